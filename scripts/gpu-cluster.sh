#!/usr/bin/env bash
# Sourced on a GPU machine where scripts/stage-spark-gpu.sh's parts are unpacked in
# /tmp/gstm-spark and scripts/stage-spark-cluster-gpu.sh's folder is carried: a standalone Spark
# cluster of workers with one GPU each, the one gstm jar shipped to its executors, and the jobs
# to run on it. Logs go to $OUT (or ./cluster-out).
#
#   . target/spark-cluster/gpu-cluster.sh
#   start 2 16 100g                 # 2 workers x 16 cores, one GPU each (worker i: GPU i)
#   cluster executors --expect 2    # ./gstm-spark on the cluster (requireGpu on)
#   cluster relax --scale 20        # the same job on the cluster...
#   inlocal relax --scale 20        # ...and in local mode on this machine
#   submit example.GstmApp 1000000 1000000   # spark-submit of a user's jar (examples/spark-app)
#   scaling kmeans                  # 2 executors against 1 (issue 33's pairs; graphs, state too)
#   stop                            # (GC_JFR=1 before start: the executors' profiles, summed up;
#                                   #  GC_EVENTS=1: Spark's event logs in $OUT/events.tgz;
#                                   #  GC_GCLOG=1: each executor's collector pauses, the longest
#                                   #  in $OUT/gc-pauses.txt;
#                                   #  GC_EXECUTOR_OPTS: more executor JVM options)
[ -n "${BASH_SOURCE[0]:-}" ] || { echo "source this file" >&2; return 2 2>/dev/null || exit 2; }
GC_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GC_SPARK=/tmp/gstm-spark
GC_OUT=${OUT:-$PWD/cluster-out}
mkdir -p "$GC_OUT"
GC_JAVA=$GC_SPARK/java/bin/java
GC_OPENS=()
for m in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
    java.util.concurrent java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action \
    sun.util.calendar; do
  GC_OPENS+=("--add-opens=java.base/$m=ALL-UNNAMED")
done
export SPARK_LOCAL_IP=127.0.0.1
# What the executors get from spark.jars: the one jar, and the jars of ./gstm-spark's own jobs
# (their closures and generators); nothing of gstm comes from the workers' Spark folder.
GC_ONE_JAR=$(ls "$GC_HERE"/gstm-spark_2.13-*.jar | head -n 1)
GC_JARS="$GC_ONE_JAR,$GC_HERE/gstm-spark-tools.jar,$GC_HERE/gstm-tools.jar"
GC_WORK=/tmp/gstm-cluster

# A Spark folder for the workers: links to Spark's jars alone (the staged lib/ holds gstm's too).
gc_spark_home() {
  local home=/tmp/gstm-spark-home
  if [ ! -d "$home/jars" ]; then
    mkdir -p "$home/jars"
    for j in "$GC_SPARK"/lib/*.jar; do
      case $(basename "$j") in
        gstm-*|jcuda*|picocli-*|progressbar-*|xchart-*|commons-csv-*) ;;
        *) ln -s "$j" "$home/jars/" ;;
      esac
    done
  fi
  echo "$home"
}

# The java the workers launch executors with. Spark 4 starts every executor with
# --add-modules=jdk.incubator.vector (for its vectorized BLAS, optional), a module the staged
# runtime (jlink) lacks, so the executor JVM would not boot: this wrapper drops that option.
gc_executor_java() {
  local home=/tmp/gstm-executor-java
  mkdir -p "$home/bin"
  cat >"$home/bin/java" <<JAVA
#!/usr/bin/env bash
args=()
for a in "\$@"; do [ "\$a" = --add-modules=jdk.incubator.vector ] || args+=("\$a"); done
exec $GC_JAVA "\${args[@]}"
JAVA
  chmod +x "$home/bin/java"
  echo "$home/bin/java"
}

# With GC_JFR=1, every executor records a JFR profile (/tmp/gstm-jfr), summed up by stop.
gc_jfr_option() {
  [ "${GC_JFR:-0}" = 1 ] || return 0
  mkdir -p /tmp/gstm-jfr
  echo " -XX:StartFlightRecording=filename=/tmp/gstm-jfr/,settings=profile,dumponexit=true"
}

# With GC_GCLOG=1, every executor logs its collector's pauses (/tmp/gstm-gc, a file per JVM).
gc_gclog_option() {
  [ "${GC_GCLOG:-0}" = 1 ] || return 0
  mkdir -p /tmp/gstm-gc
  echo " -Xlog:gc:file=/tmp/gstm-gc/gc-%p.log"
}

# The executors' profiles as text: per recording, the sampled top frames and the first gstm
# frame of each sample (where gstm's own code spends the executor's time), most first.
gc_jfr_summary() {
  local f jfr=$GC_SPARK/java/bin/jfr
  [ -x "$jfr" ] || jfr=$(dirname "$GC_JAVA")/jfr
  for f in /tmp/gstm-jfr/*.jfr; do
    [ -f "$f" ] || continue
    echo "== $(basename "$f") ($(du -h "$f" | cut -f1))"
    "$jfr" print --events jdk.ExecutionSample --stack-depth 40 "$f" | awk '
      /stackTrace = \[/ { inst = 1; first = 1; gstm = 0; next }
      inst && /^[[:space:]]*\]/ { inst = 0; next }
      inst {
        line = $0; sub(/^[[:space:]]+/, "", line); sub(/[[:space:]]+line:.*/, "", line)
        if (first) { top[line]++; n++; first = 0 }
        if (!gstm && line ~ /^io\.gstm\./) { own[line]++; gstm = 1 }
      }
      END {
        print "samples: " n
        print "-- top frames"; for (k in top) printf "%7d %s\n", top[k], k | "sort -rn | head -n 45"
        close("sort -rn | head -n 45")
        print "-- first gstm frame"; for (k in own) printf "%7d %s\n", own[k], k | "sort -rn | head -n 45"
        close("sort -rn | head -n 45")
      }'
  done
}

# start WORKERS CORES [EXECUTOR_MEMORY]: the cluster, one GPU per worker and executor.
start() {
  local workers=$1 cores=$2 mem=${3:-64g}
  GC_MASTER=$(bash "$GC_HERE/spark-cluster.sh" start --spark-home "$(gc_spark_home)" \
    --work "$GC_WORK" --workers "$workers" --cores "$cores" --memory "$mem" \
    --gpus-per-worker 1 --java "$(gc_executor_java)") || return 1
  GC_CONF=(--conf "spark.jars=$GC_JARS"
    --conf spark.executor.resource.gpu.amount=1
    --conf "spark.task.resource.gpu.amount=$(awk "BEGIN {print 1 / $cores}")"
    --conf "spark.executor.cores=$cores" --conf "spark.cores.max=$((workers * cores))"
    --conf "spark.executor.memory=$mem"
    --conf spark.scheduler.minRegisteredResourcesRatio=1.0
    --conf "spark.executor.extraJavaOptions=-Dlog4j2.configurationFile=$GC_SPARK/log4j2-spark.properties -Djava.util.concurrent.ForkJoinPool.common.parallelism=$cores$(gc_jfr_option)$(gc_gclog_option) ${GC_EXECUTOR_OPTS:-}"
    --conf spark.gstm.requireGpu=true)
  if [ "${GC_EVENTS:-0}" = 1 ]; then
    # Spark's event logs (every job, stage and task with its metrics), archived by stop.
    mkdir -p /tmp/gstm-events
    GC_CONF+=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file:///tmp/gstm-events)
  fi
  GC_CORES=$cores
  echo "cluster: $GC_MASTER, $workers worker(s) x $cores cores, one GPU each"
}

# The driver of ./gstm-spark: the staged connector with spark-tools (run.sh's class path).
gc_driver() {
  "$GC_JAVA" ${GSTM_JAVA_OPTS:--Xmx48g} "${GC_OPENS[@]}" \
    -Dlog4j2.configurationFile=$GC_SPARK/log4j2-spark.properties \
    -cp "$GC_SPARK/gstm-spark-connector.jar:$GC_SPARK/lib/*" io.gstm.spark.cli.GstmSparkCli "$@"
}

# cluster SUBCOMMAND [ARGS]: ./gstm-spark SUBCOMMAND on the cluster.
cluster() {
  local sub=$1
  shift
  echo "== cluster $sub $*"
  gc_driver "$sub" --master "$GC_MASTER" "${GC_CONF[@]}" "$@"
}

# inlocal SUBCOMMAND [ARGS]: the same in local mode (this machine's first GPU).
inlocal() {
  local sub=$1
  shift
  echo "== local $sub $*"
  gc_driver "$sub" --conf spark.gstm.requireGpu=true "$@"
}

# scaling kmeans|graphs|state [BENCH-ARGS]: issue 33's pairs on Parquet written once under
# $GC_DATA (default /tmp/gstm-data): each workload on every executor, then on one (spark.cores.max
# = one worker's cores), then (k-means, graphs) half the data on one for weak scaling.
scaling() {
  local what=$1 d=${GC_DATA:-/tmp/gstm-data} one="--conf spark.cores.max=$GC_CORES"
  shift
  mkdir -p "$d"
  case $what in
    kmeans)
      [ -d "$d/v100m" ] || cluster gen points --points 100000000 --dims 8 --k 64 --files 64 --out "$d/v100m"
      [ -d "$d/v50m" ] || cluster gen points --points 50000000 --dims 8 --k 64 --files 32 --out "$d/v50m"
      local k="--only kmeans --k 64 --iterations 20 --no-baselines --warmups 1 --reps 3"
      cluster bench --input "$d/v100m" $k "$@"
      cluster bench --input "$d/v100m" $k $one "$@"
      cluster bench --input "$d/v50m" $k $one "$@" ;;
    graphs)
      [ -d "$d/r24" ] || cluster gen rmat --scale 24 --files 64 --out "$d/r24"
      [ -d "$d/r23" ] || cluster gen rmat --scale 23 --files 32 --out "$d/r23"
      local g="--only sssp,cc --no-baselines --warmups 1 --reps 3 --partitions 32"
      cluster bench --input "$d/r24" $g "$@"
      cluster bench --input "$d/r24" $g $one "$@"
      cluster bench --input "$d/r23" $g $one "$@" ;;
    state)
      # Written in 10 batches (a directory each, 64 files): an apply reads one batch on all cores.
      local t="--accounts 10000000 --transfers 100000000"
      [ -d "$d/t100m-b10" ] || cluster gen transfers $t --batches 10 --files 64 --out "$d/t100m-b10"
      cluster tx-bench --input "$d/t100m-b10" $t --batches 10 --partitions 2 --no-baseline --no-core "$@"
      cluster tx-bench --input "$d/t100m-b10" $t --batches 10 --partitions 1 --no-baseline --no-core $one "$@" ;;
    *) echo "scaling: kmeans, graphs or state, got '$what'" >&2; return 2 ;;
  esac
}

# submit CLASS [ARGS]: spark-submit (client mode) of examples/spark-app's jar with the one jar.
submit() {
  local cls=$1
  shift
  echo "== spark-submit $cls $*"
  "$GC_JAVA" -Xmx16g "${GC_OPENS[@]}" \
    -Dlog4j2.configurationFile=$GC_SPARK/log4j2-spark.properties \
    -cp "$(gc_spark_home)/jars/*" org.apache.spark.deploy.SparkSubmit \
    --master "$GC_MASTER" --jars "$GC_ONE_JAR" "${GC_CONF[@]}" \
    --conf "spark.driver.extraJavaOptions=-Dlog4j2.configurationFile=$GC_SPARK/log4j2-spark.properties" \
    --class "$cls" "$GC_HERE/gstm-example-app.jar" "$@"
}

# stop: the cluster; the workers' logs and the executors' stderr go to $OUT/cluster-logs.tgz,
# the last lines of any executor that died of a signal or a JVM error to
# $OUT/crashed-executors.txt, and the executors' gstm debug lines to $OUT/executor-debug.txt
# (both small enough to come back when the archive does not).
stop() {
  bash "$GC_HERE/spark-cluster.sh" stop --work "$GC_WORK"
  tar czf "$GC_OUT/cluster-logs.tgz" -C "$GC_WORK" . 2>/dev/null || true
  local f
  for f in $(find "$GC_WORK" -name stderr 2>/dev/null); do
    if grep -qE "SIGABRT|SIGSEGV|A fatal error|core dumped|hs_err|exited with code" "$f"; then
      echo "== $f"
      grep -v " DEBUG " "$f" | tail -n 60
    fi
  done >"$GC_OUT/crashed-executors.txt" 2>&1
  find "$GC_WORK" -name 'hs_err*' 2>/dev/null | head -n 3 | xargs -r head -n 60 \
    >>"$GC_OUT/crashed-executors.txt"
  [ -s "$GC_OUT/crashed-executors.txt" ] || rm -f "$GC_OUT/crashed-executors.txt"
  # gstm's own debug lines of the executors (with debug loggers on, e.g. io.gstm.spark.graph):
  # the builds', point sets' and state batches' timings, small beside the whole archive.
  find "$GC_WORK" -name stderr 2>/dev/null | xargs -r grep -h " DEBUG .*gstm\| DEBUG .*TxKMeans\| DEBUG BatchRunner" \
    2>/dev/null | tail -n 4000 >"$GC_OUT/executor-debug.txt"
  [ -s "$GC_OUT/executor-debug.txt" ] || rm -f "$GC_OUT/executor-debug.txt"
  if [ "${GC_JFR:-0}" = 1 ]; then
    gc_jfr_summary >"$GC_OUT/executor-profile.txt" 2>&1
  fi
  if [ "${GC_GCLOG:-0}" = 1 ]; then
    # Per executor JVM (one per application), its pauses and the five longest (whole lines).
    for f in /tmp/gstm-gc/gc-*.log; do
      [ -f "$f" ] || continue
      echo "== $f: $(grep -c ' Pause ' "$f") pauses"
      grep ' Pause ' "$f" | awk '{ms = $NF; sub(/ms$/, "", ms); print ms "\t" $0}' \
        | sort -rn | head -n 5 | cut -f2-
    done >"$GC_OUT/gc-pauses.txt" 2>&1
  fi
  # One file, not one per application (a call brings back only so many files).
  if [ -d /tmp/gstm-events ]; then
    tar czf "$GC_OUT/events.tgz" -C /tmp gstm-events && rm -rf /tmp/gstm-events
  fi
}
