#!/usr/bin/env bash
# Runs a command once per kernel variant, the variants taking turns, so that their figures come
# from the same machine and minutes. A variant is a folder under variants/ (scripts/kernel-variant.sh);
# "main" is the bundle's own kernels. The command sees GSTM_KERNELS_FIRST, which the bundle's gstm
# and run-gpu-tests.sh put first on the class path.
# Usage: ./run-variants.sh [--rounds N] "VARIANT..." COMMAND [ARG...]
#   e.g. ./run-variants.sh --rounds 2 "main before" ./gstm bench-graph --engine gpu --graph grid --scale 20
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rounds=1
if [[ ${1-} == --rounds ]]; then
  [[ ${2-} =~ ^[1-9][0-9]*$ ]] || { echo "run-variants: --rounds needs a positive count" >&2; exit 2; }
  rounds=$2; shift 2
fi
[[ $# -ge 2 ]] || { sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
read -r -a variants <<<"$1"; shift
unpacked=${TMPDIR:-/tmp}/gstm-variants
for v in "${variants[@]}"; do
  [[ $v == main ]] && continue
  [[ -d $HERE/variants/$v ]] || { echo "run-variants: no variant '$v' under $HERE/variants" >&2; exit 2; }
  rm -rf "${unpacked:?}/$v" && mkdir -p "$unpacked/$v/gstm/kernels"
  for g in "$HERE/variants/$v"/*.gz; do
    gunzip -c "$g" >"$unpacked/$v/gstm/kernels/$(basename "$g" .gz)"
  done
done
status=0
for ((r = 1; r <= rounds; r++)); do
  for v in "${variants[@]}"; do
    echo "=== variant $v (round $r of $rounds): $*"
    if [[ $v == main ]]; then
      env -u GSTM_KERNELS_FIRST "$@" || status=$?
    else
      GSTM_KERNELS_FIRST="$unpacked/$v" "$@" || status=$?
    fi
  done
done
exit $status
