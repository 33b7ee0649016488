#!/usr/bin/env bash
# Compiles every .cu under SRC into a fatbin (cubins for the architectures asked for, PTX for
# compute_90) in OUT, writes kernels.properties (architectures built, kernels) and keeps ptxas's
# register/spill report.
#
# Which architectures: GSTM_KERNEL_ARCHS when set ("80 90", "90", or "none"), else the Maven
# property gstm.kernelArchs (-Pkernels sets the full set, as the GPU bundle and Spark staging do),
# else this machine's GPU as nvidia-smi reports it, and none where it finds no GPU: nothing here
# could run them, and the full set costs about 13 CPU-minutes, most of a first build on a small
# machine. Without nvcc, or with none asked for, it says so in one line and leaves a properties
# file that lists no architectures, so the jar is built without kernels and the engine factory
# falls back to the JVM engine.
#
# A fatbin is rebuilt only when its key changed: the nvcc release, the flags, the .cu and every
# header under include/. Fatbins are also kept by key in a cache shared by all checkouts on the
# machine (GSTM_KERNEL_CACHE, default ~/.cache/gstm-kernels; "off" disables it), so a fresh clone,
# a `mvn clean` or CI on a machine that built the same sources restores them in seconds instead of
# recompiling. nvcc records its working directory in the line info, so with the cache on it
# compiles in a directory named by the key: the same sources give the same bytes whatever the
# checkout's path.
set -euo pipefail
src=$1 out=$2 target=$3
mkdir -p "$out" "$target"
props="$out/kernels.properties"
report="$target/ptxas-report.txt"
NVCC=${NVCC:-nvcc}
without_kernels() {  # reason
  echo "[gstm-kernels] $1: building the kernels jar WITHOUT GPU kernels (JVM engine only)"
  rm -f "$out"/*.fatbin "$out"/*.ptx
  printf 'architectures=\nkernels=\njit=\n' >"$props"
  exit 0
}
if [ -n "${GSTM_KERNEL_ARCHS+x}" ]; then
  asked=$GSTM_KERNEL_ARCHS why="GSTM_KERNEL_ARCHS=$GSTM_KERNEL_ARCHS"
elif [ -n "${GSTM_KERNEL_ARCHS_PROPERTY:-}" ]; then  # Maven's gstm.kernelArchs (-Pkernels)
  asked=$GSTM_KERNEL_ARCHS_PROPERTY why="gstm.kernelArchs=$GSTM_KERNEL_ARCHS_PROPERTY"
else
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 \
    | tr -d ' .' || true)
  if [[ $cap =~ ^[0-9]+$ ]]; then
    asked=$cap why="this machine's GPU (sm_$cap)"
  else
    without_kernels "no GPU found by nvidia-smi (GSTM_KERNEL_ARCHS=\"80 90\" or mvn -Pkernels builds them anyway)"
  fi
fi
[ "$asked" = none ] && without_kernels "$why"
command -v "$NVCC" >/dev/null 2>&1 || without_kernels "nvcc not found (kernels asked for by $why)"
read -r -a archs <<<"$asked"
[ ${#archs[@]} -gt 0 ] || without_kernels "$why lists no architecture"
for a in "${archs[@]}"; do
  [[ $a =~ ^[0-9]+$ ]] || { echo "[gstm-kernels] $why: '$a' is not an architecture (e.g. \"80 90\")" >&2; exit 2; }
done
gencode=()
for a in "${archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
gencode+=(-gencode "arch=compute_90,code=compute_90")
flags=(-std=c++17 -O3 -lineinfo -fatbin --threads 0 "${gencode[@]}" -I include -Xptxas -v)
release=$("$NVCC" --version | tail -n 2 | head -n 1 | sed 's/.*release //')
cache=${GSTM_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gstm-kernels}
# What every fatbin depends on besides its own .cu: compiler, flags and all shared headers.
common=$( { echo "$release"; echo "${flags[*]}";
  (cd "$src" && find include -type f | LC_ALL=C sort | xargs sha256sum); } | sha256sum | cut -c1-64)

names=()
stale=()
for cu in "$src"/*.cu; do
  [ -f "$cu" ] || continue  # none at the top (a variant of jit/ kernels only)
  name=$(basename "$cu" .cu)
  names+=("$name")
  key=$( { echo "$common"; echo "$name"; sha256sum <"$cu"; } | sha256sum | cut -c1-40)
  if [ -f "$out/$name.fatbin" ] && [ -f "$target/ptxas-$name.txt" ] \
     && [ "$(cat "$target/key-$name" 2>/dev/null)" = "$key" ]; then
    echo "[gstm-kernels] $name.fatbin is up to date"
  else
    stale+=("$name $key")
  fi
done

compile() {  # name key
  local name=$1 key=$2 dir
  if [ "$cache" = off ]; then
    dir=$src
  else
    dir=$cache/src/$key
    if [ -f "$cache/bin/$key.fatbin" ] && [ -f "$cache/bin/$key.ptxas.txt" ]; then
      cp "$cache/bin/$key.fatbin" "$out/$name.fatbin.tmp"
      cp "$cache/bin/$key.ptxas.txt" "$target/ptxas-$name.txt"
      mv "$out/$name.fatbin.tmp" "$out/$name.fatbin"
      touch "$cache/bin/$key.fatbin"  # recently used: kept by the pruning below
      echo "$key" >"$target/key-$name"
      echo "[gstm-kernels] $name.fatbin restored from $cache"
      return 0
    fi
    if [ ! -d "$dir" ]; then  # staged once, then only read: concurrent builds may share it
      mkdir -p "$cache/src" "$cache/bin"
      local tmp
      tmp=$(mktemp -d "$cache/src/.stage.XXXXXX")
      cp "$src/$name.cu" "$tmp/" && cp -r "$src/include" "$tmp/"
      mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
    fi
  fi
  echo "[gstm-kernels] nvcc $name.cu -> $name.fatbin (${archs[*]/#/sm_} + compute_90 PTX)"
  (cd "$dir" && "$NVCC" "${flags[@]}" -o "$out/$name.fatbin.tmp" "$name.cu") \
    2>"$target/ptxas-$name.txt" || { cat "$target/ptxas-$name.txt" >&2; return 1; }
  if [ "$cache" != off ]; then
    cp "$out/$name.fatbin.tmp" "$cache/bin/$key.fatbin.$$" \
      && mv "$cache/bin/$key.fatbin.$$" "$cache/bin/$key.fatbin"
    cp "$target/ptxas-$name.txt" "$cache/bin/$key.ptxas.txt.$$" \
      && mv "$cache/bin/$key.ptxas.txt.$$" "$cache/bin/$key.ptxas.txt"
  fi
  mv "$out/$name.fatbin.tmp" "$out/$name.fatbin"
  echo "$key" >"$target/key-$name"
}

# One nvcc per stale .cu, up to one per core at once; nvcc's --threads 0 compiles the
# architectures of a file in parallel too.
jobs=${GSTM_NVCC_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ ${#stale[@]} -gt 0 ]; then
  start=$(date +%s)
  export -f compile
  export NVCC src out target cache
  export FLAGS="${flags[*]}" ARCHS="${archs[*]}"
  printf '%s\n' "${stale[@]}" \
    | xargs -P "$jobs" -L 1 bash -c 'flags=($FLAGS); archs=($ARCHS); compile "$1" "$2"' _
  echo "[gstm-kernels] ${#stale[@]} file(s) compiled or restored in $(( $(date +%s) - start )) s," \
    "$jobs at a time"
  if [ "$cache" != off ]; then  # forget what no build used for a month
    find "$cache/bin" -name '*.fatbin' -mtime +30 2>/dev/null | while read -r f; do
      k=$(basename "$f" .fatbin)
      rm -rf "$f" "$cache/bin/$k.ptxas.txt" "$cache/src/$k"
    done
  fi
fi
# The templates of compiled programs (jit/*.cu): PTX with relocatable device code for the lowest
# architecture asked for, which the engine completes and JIT-compiles at run time. Same key rule.
min_arch=$(printf '%s\n' "${archs[@]}" | sort -n | head -n 1)
jit=()
for cu in "$src"/jit/*.cu; do
  [ -f "$cu" ] || continue
  name=$(basename "$cu" .cu)
  jit+=("$name")
  key=$( { echo "$common"; echo "jit-$min_arch"; echo "$name"; sha256sum <"$cu"; } | sha256sum | cut -c1-40)
  if [ -f "$out/$name.ptx" ] && [ "$(cat "$target/key-jit-$name" 2>/dev/null)" = "$key" ]; then
    echo "[gstm-kernels] $name.ptx is up to date"
  elif [ "$cache" != off ] && [ -f "$cache/bin/$key.ptx" ]; then
    cp "$cache/bin/$key.ptx" "$out/$name.ptx" && touch "$cache/bin/$key.ptx"
    echo "$key" >"$target/key-jit-$name"
    echo "[gstm-kernels] $name.ptx restored from $cache"
  else
    echo "[gstm-kernels] nvcc jit/$name.cu -> $name.ptx (compute_$min_arch, relocatable)"
    (cd "$src" && "$NVCC" -std=c++17 -O3 -rdc=true -ptx -arch="compute_$min_arch" -I include \
      -o "$out/$name.ptx.tmp" "jit/$name.cu")
    mv "$out/$name.ptx.tmp" "$out/$name.ptx"
    if [ "$cache" != off ]; then
      mkdir -p "$cache/bin" && cp "$out/$name.ptx" "$cache/bin/$key.ptx.$$" \
        && mv "$cache/bin/$key.ptx.$$" "$cache/bin/$key.ptx"
    fi
    echo "$key" >"$target/key-jit-$name"
  fi
done
: >"$report"
for name in "${names[@]}"; do
  cat "$target/ptxas-$name.txt" >>"$report"
done
spills=$( { grep -Eo '[0-9]+ bytes spill (stores|loads)' "$report" || true; } \
  | awk '{s+=$1} END {print s+0}')
printf 'architectures=%s\nptx=compute_90\nkernels=%s\njit=%s\nnvcc=%s\n' \
  "$(IFS=,; echo "${archs[*]}")" "$(IFS=,; echo "${names[*]}")" "$(IFS=,; echo "${jit[*]}")" \
  "$release" >"$props"
echo "[gstm-kernels] built ${#names[@]} fatbin(s); spill bytes in ptxas report: $spills ($report)"
