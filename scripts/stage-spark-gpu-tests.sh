#!/usr/bin/env bash
# Prepares the connector's TxState tests for a GPU machine where scripts/stage-spark-gpu.sh has
# staged Spark (/tmp/gstm-spark): the test jars of core and the connector, AssertJ and the JUnit
# console launcher in target/spark-gpu-tests (about 5 MB), with run-state-tests.sh, which runs
# io.gstm.spark.state's tests there with -Dgstm.requireGpu=true (every engine a GPU: a task that
# cannot get one fails). Run after stage-spark-gpu.sh (it reuses the jars that script built).
# Then: carry ["target/spark-gpu-tests"], command: bash target/spark-gpu-tests/run-state-tests.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
version=0.1.0-SNAPSHOT
out=target/spark-gpu-tests
m2=${MAVEN_REPO:-$HOME/.m2/repository}
echo "==> mvn test-jar (core, spark-connector; tests compiled, not run)" >&2
GSTM_KERNEL_ARCHS=${GSTM_KERNEL_ARCHS:-90} mvn -B -q -DskipTests package -pl spark-connector -am
rm -rf "$out" && mkdir -p "$out"
cp "core/target/gstm-core-$version-tests.jar" \
  "spark-connector/target/gstm-spark-connector-$version-tests.jar" "$out/"
# The launcher at the JUnit Platform version of the build's junit-bom (fetched when this
# machine's repository lacks it), and AssertJ as the build's tests resolved it.
platform=$(sed -n 's/^JUNIT_PLATFORM_VERSION=\([^ ]*\).*/\1/p' scripts/build-gpu-bundle.sh)
mvn -B -q -N dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:"$platform" \
  -DoutputDirectory="$out" >&2 \
  || { echo "stage-spark-gpu-tests: could not fetch the JUnit console $platform" >&2; exit 2; }
jar=$(find "$m2/org/assertj/assertj-core" -name '*.jar' ! -name '*sources*' | sort -V | tail -n 1)
[ -n "$jar" ] || { echo "stage-spark-gpu-tests: no AssertJ in $m2" >&2; exit 2; }
cp "$jar" "$out/"
cat >"$out/run-state-tests.sh" <<'RUN'
#!/usr/bin/env bash
# TxState's tests on the staged Spark (/tmp/gstm-spark) with every engine a GPU.
# Usage: run-state-tests.sh [TIMEOUT_S]; JUnit reports in $OUT/junit. GSTM_TEST_SELECT picks
# other tests (default "--select-package io.gstm.spark.state"; e.g. "--select-package
# io.gstm.spark.graph"), GSTM_TEST_OPTS adds JVM options (e.g. -Dspark.gstm.requireGpu=true, which
# the sessions the graph tests open read).
H=$(cd "$(dirname "$0")" && pwd)
cd /tmp/gstm-spark || { echo "run-state-tests: stage Spark first (scripts/stage-spark-gpu.sh)" >&2; exit 2; }
opens=""
for m in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
    java.util.concurrent java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action \
    sun.util.calendar; do opens="$opens --add-opens=java.base/$m=ALL-UNNAMED"; done
export SPARK_LOCAL_IP=127.0.0.1
# shellcheck disable=SC2086
timeout -s QUIT -k 5 "${1:-400}" java/bin/java -Xmx32g $opens -Dgstm.requireGpu=true \
  ${GSTM_TEST_OPTS:-} -Dlog4j2.configurationFile=/tmp/gstm-spark/log4j2-spark.properties \
  -cp "/tmp/gstm-spark/gstm-spark-connector.jar:/tmp/gstm-spark/lib/*:$H/*" \
  org.junit.platform.console.ConsoleLauncher execute \
  ${GSTM_TEST_SELECT:---select-package io.gstm.spark.state} \
  --details=summary --disable-ansi-colors --reports-dir "${OUT:-.}/junit"
RUN
chmod +x "$out/run-state-tests.sh"
du -sh "$out" >&2
