#!/usr/bin/env bash
# Prepares a standalone Spark cluster on a GPU machine (the two-GPU node: two workers with one
# GPU each): Spark's parts from scripts/stage-spark-gpu.sh, plus target/spark-cluster/ (one
# more carry, about 20 MB) with the one gstm jar (kernels for sm_90 unless GSTM_KERNEL_ARCHS
# says otherwise), the jars of ./gstm-spark's jobs, examples/spark-app built against the one jar,
# the TxState GPU tests (scripts/stage-spark-gpu-tests.sh), scripts/spark-cluster.sh and
# gpu-cluster.sh, which starts the cluster and runs jobs on it (see its header).
# Usage: scripts/stage-spark-cluster-gpu.sh; then carry each target/spark-stage/partN in turn
# (command: bash target/spark-stage/partN/unpack.sh), then carry ["target/spark-cluster"] with
# a command such as
#   . target/spark-cluster/gpu-cluster.sh; start 2 16; cluster executors --expect 2; stop
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version=0.1.0-SNAPSHOT
export GSTM_KERNEL_ARCHS=${GSTM_KERNEL_ARCHS:-90}
echo "==> mvn package (the one jar, spark-tools; kernels for sm_$GSTM_KERNEL_ARCHS)" >&2
mvn -B -q -DskipTests package -pl spark-dist,spark-tools -am
grep -q "^kernels=." kernels/target/classes/gstm/kernels/kernels.properties \
  || { echo "stage-spark-cluster-gpu: the kernels jar has no kernels (is nvcc here?)" >&2; exit 2; }
scripts/stage-spark-gpu.sh >/dev/null
scripts/stage-spark-gpu-tests.sh

out=target/spark-cluster
rm -rf "$out" && mkdir -p "$out/app"
cp "spark-dist/target/gstm-spark_2.13-$version.jar" "$out/"
cp "spark-tools/target/gstm-spark-tools-$version.jar" "$out/gstm-spark-tools.jar"
cp "spark-tools/target/lib/gstm-tools-$version.jar" "$out/gstm-tools.jar"
cp scripts/spark-cluster.sh scripts/gpu-cluster.sh "$out/"
cp -r target/spark-gpu-tests "$out/tests"
# A user's application: compiled against the one jar and Spark alone.
javac -d "$out/app" --release 17 \
  -cp "spark-dist/target/gstm-spark_2.13-$version.jar:$(ls spark-tools/target/lib/spark-*.jar \
    spark-tools/target/lib/scala-library-*.jar | tr '\n' ':')" \
  $(find examples/spark-app/src/main/java -name '*.java')
jar cf "$out/gstm-example-app.jar" -C "$out/app" .
rm -rf "$out/app"
du -sh "$out" >&2
echo
echo "Device calls, back to back (a machine goes back after 30 s idle):"
for d in target/spark-stage/part*; do
  echo "  carry [\"$d\"]   command: bash $d/unpack.sh"
done
echo "  carry [\"$out\"]   command: . $out/gpu-cluster.sh; start 2 16; cluster executors --expect 2; ...; stop"
