#!/usr/bin/env bash
# Builds a variant of some GPU kernels for an A/B run on the GPU machine: the named kernels'
# sources, from the working tree or from a git revision (a branch, a commit), compiled by
# kernels/build-kernels.sh exactly as the bundle's are (sm_90 and compute_90 PTX, or
# GSTM_KERNEL_ARCHS), and gzipped (the device's carry limit) into target/gpu-bundle/variants/NAME/.
# In the bundle, run-variants.sh runs a command once per variant in turn, each variant's kernels
# first on the class path. Build the bundle first (scripts/build-gpu-bundle.sh replaces the folder).
# Usage: scripts/kernel-variant.sh [--rev REV] NAME KERNEL...
#   KERNEL  a .cu under kernels/src/main/cuda without the suffix: graph_relax, jit/program_jit
#   e.g.    scripts/kernel-variant.sh --rev HEAD~1 before graph_relax
set -euo pipefail

usage() { sed -n '2,11p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "kernel-variant: $*" >&2; exit 2; }

rev=
while [[ $# -gt 0 && $1 == -* ]]; do
  case $1 in
    --rev) [[ $# -ge 2 ]] || die "--rev needs a revision"; rev=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[[ $# -ge 2 ]] || { usage >&2; die "a NAME and at least one KERNEL are needed"; }
name=$1; shift
[[ $name =~ ^[A-Za-z0-9_.-]+$ && $name != main ]] \
  || die "NAME '$name': letters, digits, '.', '_' and '-' only, and not 'main' (the bundle's own)"

cd "$(dirname "${BASH_SOURCE[0]}")/.."
bundle=target/gpu-bundle
[[ -d $bundle/lib ]] || die "no bundle at $bundle: run scripts/build-gpu-bundle.sh first"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cuda=kernels/src/main/cuda
if [[ -n $rev ]]; then
  git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || die "--rev $rev: no such revision"
  git archive "$rev" "$cuda" | tar -x -C "$tmp"
  cuda=$tmp/$cuda
fi
mkdir -p "$tmp/src"
cp -r "$cuda/include" "$tmp/src/"
for k in "$@"; do
  [[ -f $cuda/$k.cu ]] || die "no kernel $k ($cuda/$k.cu)${rev:+ at $rev}"
  mkdir -p "$tmp/src/$(dirname "$k")"
  cp "$cuda/$k.cu" "$tmp/src/$k.cu"
done
GSTM_KERNEL_ARCHS=${GSTM_KERNEL_ARCHS-90} bash kernels/build-kernels.sh "$tmp/src" "$tmp/out" \
  "$tmp/target" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log" >&2; die "the build failed"; }
grep -q '^architectures=.' "$tmp/out/kernels.properties" \
  || { cat "$tmp/build.log" >&2; die "no kernels built (nvcc missing?)"; }
dest=$bundle/variants/$name
rm -rf "$dest"
mkdir -p "$dest"
# Only the kernels: the jar's kernels.properties still lists every kernel.
for f in "$tmp/out"/*.fatbin "$tmp/out"/*.ptx; do
  [[ -f $f ]] && gzip -9 -c "$f" >"$dest/$(basename "$f").gz"
done
echo "kernel-variant: $name (${rev:-working tree}): $(cd "$dest" && ls | tr '\n' ' ')($(du -sh "$dest" | cut -f1))"
{ grep -Eo '[0-9]+ bytes spill (stores|loads)' "$tmp/target/ptxas-report.txt" || true; } \
  | awk '{s+=$1} END {if (s) print "kernel-variant: ptxas reports " s " spill bytes"}'
