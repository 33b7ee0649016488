#!/usr/bin/env bash
# Prepares a Spark run on a GPU machine that has no Java and takes at most 64 MiB per upload:
# builds the connector and the ./gstm-spark commands (spark-tools) with kernels for the GPU (sm_90
# unless GSTM_KERNEL_ARCHS says otherwise), splits Spark, the connector, the commands and a Java
# runtime into parts under 56 MiB with the workplace's ../shared/tools/stage-spark.sh, and prints
# the device calls to make, one per part, back to back (a machine goes back after 30 s idle; /tmp
# stays while it is warm), then the run itself.
# Usage: scripts/stage-spark-gpu.sh [gstm-spark args for the printed run, e.g. bench --engine gpu]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
stage=${GSTM_STAGE_SPARK:-../shared/tools/stage-spark.sh}
[ -x "$stage" ] || [ -f "$stage" ] \
  || { echo "stage-spark-gpu: $stage not found (set GSTM_STAGE_SPARK)" >&2; exit 2; }
stage=$(cd "$(dirname "$stage")" && pwd)/$(basename "$stage")
version=0.1.0-SNAPSHOT
echo "==> mvn package (kernels for sm_${GSTM_KERNEL_ARCHS:-90}, core, tools, connector, spark-tools)" >&2
GSTM_KERNEL_ARCHS=${GSTM_KERNEL_ARCHS:-90} mvn -B -q -DskipTests package -pl spark-tools -am
# stage-spark.sh packs spark-connector/target/gstm-spark-connector-*.jar and spark-connector/target/lib
# of the directory it runs in, and starts io.gstm.spark.cli.GstmSparkCli, which lives in
# spark-tools: hand it spark-tools' jar and class path (the connector, core, the kernels, GraphX)
# in a root of that shape, then take its parts back.
root=target/spark-stage-root
rm -rf "$root" target/spark-stage
mkdir -p "$root/spark-connector/target" "$root/scripts"
cp "spark-tools/target/gstm-spark-tools-$version.jar" \
  "$root/spark-connector/target/gstm-spark-connector-with-tools.jar"
ln -s "$PWD/spark-tools/target/lib" "$root/spark-connector/target/lib"
cp scripts/log4j2-spark.properties "$root/scripts/"
(cd "$root" && bash "$stage")
mv "$root/target/spark-stage" target/spark-stage
rm -rf "$root"
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
