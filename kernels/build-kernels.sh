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
archs=(80 90)
gencode=()
for a in "${archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done
gencode+=(-gencode "arch=compute_90,code=compute_90")
: >"$report"
names=()
for cu in "$src"/*.cu; do
  name=$(basename "$cu" .cu)
  fatbin="$out/$name.fatbin"
  # Rebuild only when a source or header is newer than the fatbin.
  if [ -f "$fatbin" ] && [ -z "$(find "$src" -newer "$fatbin" -name '*.cu*' -print -quit)" ] \
     && [ -f "$target/ptxas-$name.txt" ]; then
    echo "[gstm-kernels] $name.fatbin is up to date"
  else
    echo "[gstm-kernels] nvcc $name.cu -> $name.fatbin (sm_80, sm_90 + compute_90 PTX)"
    "$NVCC" -std=c++17 -O3 -lineinfo -fatbin "${gencode[@]}" -I "$src/include" \
      -Xptxas -v -o "$fatbin" "$cu" 2>"$target/ptxas-$name.txt" || {
        cat "$target/ptxas-$name.txt" >&2; exit 1; }
  fi
  cat "$target/ptxas-$name.txt" >>"$report"
  names+=("$name")
done
spills=$(grep -Eo '[0-9]+ bytes spill (stores|loads)' "$report" | awk '{s+=$1} END {print s+0}')
printf 'architectures=%s\nptx=compute_90\nkernels=%s\nnvcc=%s\n' \
  "$(IFS=,; echo "${archs[*]}")" "$(IFS=,; echo "${names[*]}")" \
  "$("$NVCC" --version | tail -n 2 | head -n 1 | sed 's/.*release //')" >"$props"
echo "[gstm-kernels] built ${#names[@]} fatbin(s); spill bytes in ptxas report: $spills ($report)"
