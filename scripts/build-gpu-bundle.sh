#!/usr/bin/env bash
# Builds target/gpu-bundle/: everything needed to run the gstm CLI and the GPU tests on a GPU
# machine that has no Java (x86-64 Linux, NVIDIA driver). Layout:
#   runtime/  jlink image of the local JDK 17      lib/   runtime jars (tools, core, kernels, deps)
#   test/     test classes (core's and the tools'), test jars, JUnit console
#             gstm, run-gpu-tests.sh, run-bench.sh, run-variants.sh, MANIFEST.txt
# Kernel variants for an A/B run go in after it: scripts/kernel-variant.sh.
# Usage: scripts/build-gpu-bundle.sh [--no-build]
set -euo pipefail

usage() { sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "build-gpu-bundle: $*" >&2; exit 1; }

build=1
for arg in "$@"; do
  case "$arg" in
    --no-build) build=0 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $arg" ;;
  esac
done

# Work from the repository root whatever the caller's cwd.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

VERSION=0.1.0-SNAPSHOT
JUNIT_PLATFORM_VERSION=1.14.4          # matches junit-bom 5.14.4 in the parent pom
MAX_MIB=60                             # the device carry limit is 64 MiB including the repo
JDK=${GSTM_BUNDLE_JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
BUNDLE=$ROOT/target/gpu-bundle

TOOLS_JAR=tools/target/gstm-tools-$VERSION.jar
CORE_JAR=core/target/gstm-core-$VERSION.jar
KERNELS_JAR=kernels/target/gstm-kernels-$VERSION.jar
# Test classes: core's (the engine's GPU tests) and the tools' (the CLI's GPU tests).
TEST_MODULES=(core tools)

# Base modules; jdeps below adds whatever the bundled jars need on top (it found java.sql/java.xml
# for the JUnit console launcher, java.management/java.instrument for assertj + byte-buddy).
MODULES=java.base,java.logging,java.management,java.sql,java.instrument,jdk.management,jdk.unsupported

# --- 1. build (runs nvcc through the kernels module); spark-connector is not needed here --------
if (( build )); then
  # sm_90 (and its PTX) unless GSTM_KERNEL_ARCHS says otherwise: the lent machines are H100s and
  # H200s, and the fatbins of sm_80 beside them took the bundle past the carry limit.
  echo "==> mvn package (kernels for sm_${GSTM_KERNEL_ARCHS:-90}, core, tools)"
  GSTM_KERNEL_ARCHS=${GSTM_KERNEL_ARCHS:-90} mvn -B -q -DskipTests -Pkernels -pl tools -am package
fi

for f in "$TOOLS_JAR" "$CORE_JAR" "$KERNELS_JAR" tools/target/lib tools/target/test-lib \
    core/target/test-classes tools/target/test-classes; do
  [[ -e $f ]] || die "missing $f (run without --no-build, or 'mvn -DskipTests package' first)"
done
[[ -x $JDK/bin/jlink && -d $JDK/jmods ]] \
  || die "no JDK 17 with jmods at $JDK (Debian: apt-get install openjdk-17-jdk-headless openjdk-17-jmods; or set GSTM_BUNDLE_JDK)"

echo "==> assembling $BUNDLE"
rm -rf "$BUNDLE"
mkdir -p "$BUNDLE/lib" "$BUNDLE/test"

# --- 2. lib/: project jars first, then runtime deps; skip names already present (core and
#        kernels also sit in tools/target/lib) -----------------------------------------------------
cp "$TOOLS_JAR" "$CORE_JAR" "$KERNELS_JAR" "$BUNDLE/lib/"
for jar in tools/target/lib/*.jar; do
  [[ -e $BUNDLE/lib/$(basename "$jar") ]] || cp "$jar" "$BUNDLE/lib/"
done

# jcuda-natives carries libJNvPTXCompiler (24 MB unpacked, ~8 MB packed), which gstm never uses
# (kernels are compiled by nvcc at build time); only the driver/runtime natives are needed.
if command -v zip >/dev/null; then
  for jar in "$BUNDLE"/lib/jcuda-natives-*.jar; do
    [[ -e $jar ]] || continue
    zip -q -d "$jar" 'lib/libJNvPTXCompiler-*' >/dev/null || true
  done
else
  echo "warning: 'zip' not found, jcuda-natives keeps its unused nvPTXCompiler native (~8 MB)" >&2
fi

# --- 3. test/: test classes, the JUnit console launcher, and test-scope jars it does not shade ---
# One folder for both modules' test classes (their packages differ: io.gstm.core vs io.gstm.cli,
# io.gstm.bench), so the launcher scans one class path entry.
mkdir -p "$BUNDLE/test/classes"
for m in "${TEST_MODULES[@]}"; do
  cp -r "$m/target/test-classes/." "$BUNDLE/test/classes/"
done
# The GPU test classes, for run-gpu-suite.sh (one JVM each): sources that carry the gpu tag.
for m in "${TEST_MODULES[@]}"; do
  grep -rlE '@EnabledIfGpu|@Tag\("gpu"\)' "$m/src/test/java" --include='*.java' \
    | grep -v '/testing/EnabledIfGpu.java$' | sed "s|^$m/src/test/java/||; s|\\.java\$||; s|/|.|g" \
    || true   # a module may have none (the tools' tests have none today)
done | LC_ALL=C sort >"$BUNDLE/test/gpu-classes.txt"

CONSOLE_JAR=junit-platform-console-standalone-$JUNIT_PLATFORM_VERSION.jar
# -N: run in the parent pom only, not once per module. Output is shown only on failure.
if ! log=$(mvn -B -q -N dependency:copy \
    -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_PLATFORM_VERSION \
    -DoutputDirectory="$BUNDLE/test" 2>&1) || [[ ! -f $BUNDLE/test/$CONSOLE_JAR ]]; then
  echo "$log" >&2
  die "could not fetch $CONSOLE_JAR"
fi

# Leave out of test/ what is already on the class path, so no class is there twice: jars in lib/
# (test-lib repeats the runtime deps), core's test jar (its classes are in test/classes: tools'
# test-lib is a superset of core's) and what the standalone jar shades (it lists them:
# junit-*, opentest4j, apiguardian, ...). assertj etc. stay; byte-buddy (9 MB) does not: assertj
# needs it only for soft assertions and its own assumptions, which the tests do not use.
shaded=$(unzip -p "$BUNDLE/test/$CONSOLE_JAR" META-INF/shadowed-artifacts 2>/dev/null | cut -d: -f2 || true)
for jar in tools/target/test-lib/*.jar; do
  [[ -e $jar ]] || continue
  name=$(basename "$jar")
  skip=0
  [[ -e $BUNDLE/lib/$name || $name == junit-* || $name == byte-buddy-* || $name == gstm-* ]] && skip=1
  for artifact in $shaded; do
    [[ $name == "$artifact"-[0-9]* ]] && skip=1
  done
  (( skip )) || cp "$jar" "$BUNDLE/test/"
done

# --- 4. runtime/: a trimmed JDK 17 image -------------------------------------------------------
found=$("$JDK/bin/jdeps" --multi-release 17 --ignore-missing-deps --print-module-deps \
          --class-path "$BUNDLE/lib/*:$BUNDLE/test/*" \
          "$BUNDLE"/lib/*.jar "$BUNDLE"/test/*.jar "$BUNDLE/test/classes" 2>/dev/null | tail -n 1 || true)
if [[ $found =~ ^[a-z0-9.,]+$ ]]; then
  MODULES=$MODULES,$found
else
  echo "warning: jdeps gave no module list; using the base list only" >&2
fi
MODULES=$(tr ',' '\n' <<<"$MODULES" | sort -u | paste -sd, -)
echo "==> jlink modules: $MODULES"
# JDK 17 jlink knows --compress=0|1|2 only (zip-N arrived in JDK 21).
"$JDK/bin/jlink" --add-modules "$MODULES" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$BUNDLE/runtime"
# Debian's libjvm.so keeps its full symbol table (~4 MB); the dynamic symbols are all the JVM needs
# to run (only native frame names in hs_err files get poorer).
if command -v strip >/dev/null; then
  strip --strip-unneeded "$BUNDLE/runtime/lib/server/libjvm.so"
fi

# --- 5. launch scripts --------------------------------------------------------------------------
cat >"$BUNDLE/gstm" <<'EOF'
#!/usr/bin/env bash
# Runs the gstm CLI with the bundled Java runtime. JVM options: GSTM_JAVA_OPTS (default -Xmx16g,
# and transparent huge pages where the kernel offers them). GSTM_KERNELS_FIRST: a folder put
# first on the class path, whose gstm/kernels/ files replace the jar's (run-variants.sh).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
first=${GSTM_KERNELS_FIRST:+$GSTM_KERNELS_FIRST:}
# A fresh JVM's first touch of a GB of arrays took 0.45 s in 4 kB pages, 0.2 s in 2 MB pages
# (H200 node; docs/benchmark-log.md).
default=-Xmx16g
grep -qE '\[(always|madvise)\]' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null \
  && default="$default -XX:+UseTransparentHugePages"
# GSTM_JAVA_OPTS may hold several options: word splitting is intended.
# shellcheck disable=SC2086
exec "$HERE/runtime/bin/java" ${GSTM_JAVA_OPTS-$default} -cp "$first$HERE/lib/*" io.gstm.cli.GstmCli "$@"
EOF

cat >"$BUNDLE/run-gpu-tests.sh" <<'EOF'
#!/usr/bin/env bash
# Runs the tests tagged "gpu" (not "slow") with the JUnit console launcher and the bundled Java runtime.
#   GSTM_TEST_TAGS   tag expression replacing "gpu & !slow & !poisons-context" (e.g. "gpu");
#                    "poisons-context" runs the fatal-error test, which needs a JVM of its own
#   GSTM_TEST_CLASSES  comma-separated test classes to run instead of scanning every class
#   GSTM_JAVA_OPTS   JVM options (default -Xmx16g)
#   GSTM_KERNELS_FIRST  a folder first on the class path (a kernel variant: run-variants.sh)
#   OUT              reports go to $OUT/junit-reports (default ./junit-reports)
# Extra arguments are passed to the launcher's "execute" command.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

args=(--details=tree --reports-dir "${OUT:-.}/junit-reports")
if [[ -n ${GSTM_TEST_CLASSES-} ]]; then
  IFS=, read -ra classes <<<"$GSTM_TEST_CLASSES"
  for c in "${classes[@]}"; do args+=(--select-class "$c"); done
else
  args+=(--scan-class-path "$HERE/test/classes")
fi
tags=${GSTM_TEST_TAGS-gpu & !slow & !poisons-context}
[[ -n $tags ]] && args+=(--include-tag "$tags")
[[ -t 1 ]] || args+=(--disable-ansi-colors)   # readable logs when captured

# One flat class path (no launcher-created class loader), so JCuda loads its natives normally.
# shellcheck disable=SC2086
exec "$HERE/runtime/bin/java" ${GSTM_JAVA_OPTS--Xmx16g} -Dgstm.requireGpu=true -Dgstm.jit.background=false \
  -cp "${GSTM_KERNELS_FIRST:+$GSTM_KERNELS_FIRST:}$HERE/lib/*:$HERE/test/classes:$HERE/test/*" \
  org.junit.platform.console.ConsoleLauncher execute "${args[@]}" "$@"
EOF

cat >"$BUNDLE/run-gpu-suite.sh" <<'EOF'
#!/usr/bin/env bash
# The GPU tests one class at a time, each in a JVM of its own under a time limit, so that a kernel
# that never ends (a livelock) costs one class its limit, is reported with a thread dump, and
# leaves the next class a fresh context; classes are skipped once the whole budget is spent.
#   GSTM_SUITE_JOBS     classes run at once on the one GPU, each lane of classes in turn (default
#                       1; 2 ran the whole suite in 250 s against 447 on an H200: much of a class
#                       is its JVM, the JIT and the host). CudaDeviceFailureTest, which measures
#                       the device's free memory, runs alone after the others.
#   GSTM_CLASS_TIMEOUT  seconds per class (default 240)
#   GSTM_SUITE_BUDGET   seconds for the whole run; classes not started by then are "not run"
#                       (default 560, inside one 10-minute device call)
#   GSTM_TEST_CLASSES   comma-separated classes instead of test/gpu-classes.txt (the classes
#                       whose sources carry @EnabledIfGpu or @Tag("gpu"))
#   GSTM_TEST_TAGS, GSTM_JAVA_OPTS  as run-gpu-tests.sh
# Writes the launchers' output to $OUT/gpu-suite.log and a table to $OUT/gpu-suite.txt (and
# stdout). Exit status 0 when every class that ran passed and none was cut or skipped.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out=${OUT:-.}
log=$out/gpu-suite.log
table=$out/gpu-suite.txt
if [[ -n ${GSTM_TEST_CLASSES-} ]]; then
  IFS=, read -ra classes <<<"$GSTM_TEST_CLASSES"
else
  mapfile -t classes <"$HERE/test/gpu-classes.txt"
fi
jobs=${GSTM_SUITE_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "GSTM_SUITE_JOBS: expected a positive count, got '$jobs'" >&2; exit 2; }
start=$(date +%s)

# run_lane NAME CLASS...: the classes in turn; the table's rows to $out/.NAME.txt, the output to
# $out/.NAME.log. Exit status 0 when every class passed.
run_lane() {
  local name=$1; shift
  local rows=$out/.$name.txt lanelog=$out/.$name.log one=$out/.$name.class.log status=0
  local reports=$out/reports
  (( jobs > 1 )) && reports=$out/reports-$name
  : >"$rows"
  : >"$lanelog"
  local c t0 rc ok failed result
  for c in "$@"; do
    if (( $(date +%s) - start >= ${GSTM_SUITE_BUDGET:-560} )); then
      printf '| %s | not run (budget spent) | | | |\n' "$c" >>"$rows"
      status=1
      continue
    fi
    t0=$(date +%s)
    echo "=== $c" >>"$lanelog"
    OUT=$reports GSTM_TEST_CLASSES=$c timeout -s QUIT -k 10 "${GSTM_CLASS_TIMEOUT:-240}" \
      "$HERE/run-gpu-tests.sh" >"$one" 2>&1
    rc=$?
    cat "$one" >>"$lanelog"
    ok=$(grep -Eo '[0-9]+ tests successful' "$one" | grep -Eo '^[0-9]+')
    failed=$(grep -Eo '[0-9]+ tests failed' "$one" | grep -Eo '^[0-9]+')
    case $rc in
      0) result=passed ;;
      124|131|137) result="CUT at the time limit (thread dump in gpu-suite.log)"; status=1 ;;
      *) result="FAILED (exit $rc)"; status=1 ;;
    esac
    printf '| %s | %s | %s | %s | %s |\n' "$c" "$result" "${ok:-?}" "${failed:-?}" \
      "$(( $(date +%s) - t0 ))" >>"$rows"
  done
  rm -f "$one"
  return $status
}

# The classes dealt round-robin to the lanes; those that must run alone kept for after.
alone=()
lanes=()
n=0
for c in "${classes[@]}"; do
  if [[ $c == io.gstm.core.cuda.CudaDeviceFailureTest ]]; then
    alone+=("$c")
  else
    lanes[n % jobs]+="$c "
    n=$((n + 1))
  fi
done
status=0
pids=()
for ((i = 0; i < jobs; i++)); do
  # shellcheck disable=SC2086  # a lane's classes, split on the spaces
  run_lane "lane$i" ${lanes[i]-} &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
if [[ ${#alone[@]} -gt 0 ]]; then run_lane alone "${alone[@]}" || status=1; fi

printf '| class | result | tests ok | tests failed | seconds |\n|---|---|---|---|---|\n' >"$table"
: >"$log"
for ((i = 0; i <= jobs; i++)); do
  name=lane$i
  (( i == jobs )) && name=alone
  [[ -f $out/.$name.txt ]] || continue
  cat "$out/.$name.txt" >>"$table"
  cat "$out/.$name.log" >>"$log"
  rm -f "$out/.$name.txt" "$out/.$name.log"
done
cat "$table"
echo "gpu suite: $(( $(date +%s) - start )) s, exit $status"
exit $status
EOF

cat >"$BUNDLE/run-bench.sh" <<'EOF'
#!/usr/bin/env bash
# Runs a benchmark: ./run-bench.sh [bench-bank|bench-csmv|...] [args]; bench-bank by default.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
case "${1:-}" in bench-*) cmd=$1; shift ;; *) cmd=bench-bank ;; esac
exec "$HERE/gstm" "$cmd" "$@"
EOF
cat >"$BUNDLE/run-sanitizer.sh" <<'EOF'
#!/usr/bin/env bash
# Runs compute-sanitizer (memcheck, then racecheck) over small CLI runs that exercise every CSMV
# variant (CSMV, CSMV-NoCV, CSMV-onlyCS, JVSTM-GPU, plus PR-STM) on the bank and memcached, and the
# program interpreter kernels (PR-STM and every CSMV variant; bank and vacation as programs; the
# four data structures, whose skip list runs the 64-entry PR-STM sets, also under GPU-STM and
# Cederman's blocking and obstruction-free STMs), and the graph kernels (the CSR built on the
# GPU, gstm's relaxation rounds, the device loop a grid hands over to, components by union-find,
# the bare-atomic bound of bench-graph, and a program relaxation's compiled rounds; R-MAT and
# grid).
#   SANITIZER  path of compute-sanitizer (default /usr/local/cuda/bin/compute-sanitizer, else PATH)
#   TOOLS      tools to run (default "memcheck racecheck")
#   PARTS      which runs (default "csmv programs ds graphs")
# Exit status: 0 when every tool reported no error.
set -uo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SAN=${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
[[ -x $SAN ]] || SAN=$(command -v compute-sanitizer) || { echo "compute-sanitizer not found" >&2; exit 3; }
small=(--engine gpu --accounts 64 --read-only 0.5,0.99 --versions 4 --version-sweep 2
       --ways 4,16 --cache-items 256 --threads-per-block 64 --blocks 2 --tx-per-thread 2 --reps 1)
programs=(--engine gpu --accounts 64 --customers 64 --threads-per-block 64 --blocks 2
          --tx-per-thread 2 --reps 1 --algorithms prstm,csmv,csmv-nocv,csmv-onlycs,jvstm-gpu)
ds=(--engine gpu --transactions 512 --threads-per-block 64 --blocks 2 --reps 1 --warmups 0
    --local-work 4 --algorithms prstm,csmv,csmv-nocv,csmv-onlycs,jvstm-gpu,gpu-stm,blocking,obstruction-free,blocking:none,obstruction-free:linear)
graphs=("--scale 10 --edges 16384 --csr gpu" "--scale 10 --edges 16384 --kind cc --csr gpu"
        "--graph grid --scale 10" "--graph grid --scale 10 --kind cc"
        "--scale 10 --edges 16384 --program paths" "--graph grid --scale 10 --program paths")
parts=" ${PARTS:-csmv programs ds graphs} "
for p in $parts; do
  case $p in csmv|programs|ds|graphs) ;; *) echo "PARTS: unknown part '$p' (csmv programs ds graphs)" >&2; exit 3 ;; esac
done
status=0
for tool in ${TOOLS:-memcheck racecheck}; do
  echo "==> compute-sanitizer --tool $tool"
  [[ $parts == *" csmv "* ]] && { GSTM_JAVA_OPTS=${GSTM_JAVA_OPTS--Xmx4g -Dgstm.csmv.waitMillis=300000} "$SAN" --tool "$tool" --error-exitcode 9 \
    --print-limit 20 "$HERE/gstm" bench-csmv "${small[@]}" || status=$?; }
  [[ $parts == *" programs "* ]] && { GSTM_JAVA_OPTS=${GSTM_JAVA_OPTS--Xmx4g -Dgstm.csmv.waitMillis=300000} "$SAN" --tool "$tool" --error-exitcode 9 \
    --print-limit 20 "$HERE/gstm" bench-programs "${programs[@]}" || status=$?; }
  [[ $parts == *" ds "* ]] && { GSTM_JAVA_OPTS=${GSTM_JAVA_OPTS--Xmx4g -Dgstm.csmv.waitMillis=300000} "$SAN" --tool "$tool" --error-exitcode 9 \
    --print-limit 20 "$HERE/gstm" bench-ds "${ds[@]}" || status=$?; }
  if [[ $parts == *" graphs "* ]]; then
    for g in "${graphs[@]}"; do
      # shellcheck disable=SC2086
      GSTM_JAVA_OPTS=${GSTM_JAVA_OPTS--Xmx4g} "$SAN" --tool "$tool" --error-exitcode 9 \
        --print-limit 20 "$HERE/gstm" bench-graph --engine gpu --reps 1 $g || status=$?
    done
  fi
  echo "==> $tool exit status: $status"
done
exit $status
EOF
cp scripts/run-variants.sh "$BUNDLE/run-variants.sh"
chmod +x "$BUNDLE/gstm" "$BUNDLE/run-gpu-tests.sh" "$BUNDLE/run-gpu-suite.sh" "$BUNDLE/run-bench.sh" "$BUNDLE/run-sanitizer.sh" "$BUNDLE/run-variants.sh"

# --- 6. MANIFEST.txt: what this bundle was built from ------------------------------------------
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "no-commit")
[[ -z $(git status --porcelain 2>/dev/null) ]] || commit="$commit-dirty"
{
  echo "gstm GPU bundle $VERSION"
  echo "commit: $commit"
  echo "built:  $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
  echo "java:   $("$BUNDLE/runtime/bin/java" -version 2>&1 | head -n 1)"
  echo "modules: $MODULES"
  echo
  echo "# gstm/kernels/kernels.properties"
  unzip -p "$KERNELS_JAR" gstm/kernels/kernels.properties || echo "(not found in $KERNELS_JAR)"
  echo
  echo "# files"
  (cd "$BUNDLE" && find lib test -maxdepth 1 -name '*.jar' | sort)
} >"$BUNDLE/MANIFEST.txt"

# --- 7. size check ------------------------------------------------------------------------------
du -sh "$BUNDLE"/* | sed "s|$BUNDLE/||"
bytes=$(du -sb "$BUNDLE" | cut -f1)
mib=$(( (bytes + 1048575) / 1048576 ))
echo "==> $BUNDLE: $(du -sh "$BUNDLE" | cut -f1) ($bytes bytes)"
if (( bytes > MAX_MIB * 1048576 )); then
  die "bundle is ${mib} MiB, over the ${MAX_MIB} MiB limit (device carry limit is 64 MiB with the repo)"
fi
