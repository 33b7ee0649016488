#!/usr/bin/env bash
# Prepares a Spark run on a GPU machine that has no Java and takes at most 64 MiB per upload:
# builds the connector with kernels for the GPU (sm_90 unless GSTM_KERNEL_ARCHS says otherwise),
# splits Spark, the connector and a Java runtime into parts under 56 MiB with the workplace's
# ../shared/tools/stage-spark.sh, and prints the device calls to make, one per part, back to back
# (a machine goes back after 30 s idle; /tmp stays while it is warm), then the run itself.
# Usage: scripts/stage-spark-gpu.sh [gstm-spark args for the printed run, e.g. bench --engine gpu]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage=${GSTM_STAGE_SPARK:-../shared/tools/stage-spark.sh}
[ -x "$stage" ] || [ -f "$stage" ] \
  || { echo "stage-spark-gpu: $stage not found (set GSTM_STAGE_SPARK)" >&2; exit 2; }
echo "==> mvn package (kernels for sm_${GSTM_KERNEL_ARCHS:-90}, core, connector)" >&2
GSTM_KERNEL_ARCHS=${GSTM_KERNEL_ARCHS:-90} mvn -B -q -DskipTests package -pl spark-connector -am
bash "$stage"
if [ $# -gt 0 ]; then
  args=$(printf '%q ' "$@")  # quoted as a shell there reads them
else
  args="bench --engine gpu --master 'local[16]' --partitions 16 --warmups 1 --reps 3"
fi
echo
echo "Device calls, in this order, each within 30 s of the last:"
for d in target/spark-stage/part*; do
  echo "  carry [\"$d\"]   command: bash $d/unpack.sh"
done
echo "  command: /tmp/gstm-spark/run.sh 590 $args 2>&1 | tee \$OUT/spark.log"
