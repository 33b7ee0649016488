#!/usr/bin/env bash
# Compiles every .cu under SRC into a fatbin (cubins for sm_80 and sm_90, PTX for sm_90) in OUT,
# writes kernels.properties (architectures built, kernels) and keeps ptxas's register/spill report.
# Without nvcc it says so in one line and leaves a properties file that lists no architectures,
# so the jar is built without kernels and the engine factory falls back to the JVM engine.
set -euo pipefail
src=$1 out=$2 target=$3
mkdir -p "$out" "$target"
props="$out/kernels.properties"
report="$target/ptxas-report.txt"
NVCC=${NVCC:-nvcc}
if ! command -v "$NVCC" >/dev/null 2>&1; then
  echo "[gstm-kernels] nvcc not found: building the kernels jar WITHOUT GPU kernels (JVM engine only)"
  printf 'architectures=\nkernels=\n' >"$props"
  exit 0
fi
# GSTM_KERNEL_ARCHS (e.g. "90") narrows the cubins for a quicker development build.
read -r -a archs <<<"${GSTM_KERNEL_ARCHS:-80 90}"
gencode=()
for a in "${archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
gencode+=(-gencode "arch=compute_90,code=compute_90")
: >"$report"
# One nvcc per .cu that changed, up to one per core at once; nvcc's own --threads compiles the
# architectures of a file in parallel too.
jobs=${GSTM_NVCC_JOBS:-$(nproc 2>/dev/null || echo 2)}
names=()
stale=()
for cu in "$src"/*.cu; do
  name=$(basename "$cu" .cu)
  names+=("$name")
  fatbin="$out/$name.fatbin"
  # Rebuild only when the file or a header it includes (nvcc's dependency list from the last
  # build) is newer than the fatbin.
  deps="$target/deps-$name.d"
  fresh=0
  if [ -f "$fatbin" ] && [ -f "$deps" ] && [ -f "$target/ptxas-$name.txt" ] \
     && grep -qx "architectures=$(IFS=,; echo "${archs[*]}")" "$props" 2>/dev/null; then
    fresh=1
    for dep in $(sed -e 's/^[^:]*://' -e 's/\\$//' "$deps"); do
      if [ ! -e "$dep" ] || [ "$dep" -nt "$fatbin" ]; then fresh=0; break; fi
    done
  fi
  if [ "$fresh" = 1 ]; then
    echo "[gstm-kernels] $name.fatbin is up to date"
  else
    stale+=("$name")
  fi
done
compile() {  # name
  local name=$1
  echo "[gstm-kernels] nvcc $name.cu -> $name.fatbin (sm_80, sm_90 + compute_90 PTX)"
  "$NVCC" -std=c++17 -O3 -lineinfo -fatbin --threads 0 "${gencode[@]}" -I "$src/include" \
    -MD -MF "$target/deps-$name.d" -Xptxas -v -o "$out/$name.fatbin.tmp" "$src/$name.cu" \
    2>"$target/ptxas-$name.txt" || { cat "$target/ptxas-$name.txt" >&2; return 1; }
  mv "$out/$name.fatbin.tmp" "$out/$name.fatbin"
}
export -f compile
export NVCC src out target
export GENCODE="${gencode[*]}"
if [ ${#stale[@]} -gt 0 ]; then
  start=$(date +%s)
  printf '%s\n' "${stale[@]}" | xargs -P "$jobs" -I{} bash -c 'gencode=($GENCODE); compile "$1"' _ {}
  echo "[gstm-kernels] compiled ${#stale[@]} file(s) in $(( $(date +%s) - start )) s, $jobs at a time"
fi
for name in "${names[@]}"; do
  cat "$target/ptxas-$name.txt" >>"$report"
done
spills=$(grep -Eo '[0-9]+ bytes spill (stores|loads)' "$report" | awk '{s+=$1} END {print s+0}')
printf 'architectures=%s\nptx=compute_90\nkernels=%s\nnvcc=%s\n' \
  "$(IFS=,; echo "${archs[*]}")" "$(IFS=,; echo "${names[*]}")" \
  "$("$NVCC" --version | tail -n 2 | head -n 1 | sed 's/.*release //')" >"$props"
echo "[gstm-kernels] built ${#names[@]} fatbin(s); spill bytes in ptxas report: $spills ($report)"
