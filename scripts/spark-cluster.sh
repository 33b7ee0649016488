#!/usr/bin/env bash
# A Spark standalone cluster on this machine, from a folder of Spark's jars: a master and N
# workers, each worker launching its executors in JVMs of their own. Needs bash and Java 17
# only (no Spark distribution, no Maven): what the cluster tests (spark-dist, *IT) and the
# GPU machine use.
#
#   spark-cluster.sh start --spark-home DIR --work DIR [--workers N] [--cores C] [--memory M]
#                          [--gpus-per-worker G] [--java PATH] [--host H] [--timeout S]
#   spark-cluster.sh stop --work DIR
#
# start prints the master URL (spark://H:PORT) once every worker has registered, and writes it
# to WORK/master-url. WORK holds master.log and worker-I.log, their pids (master.pid,
# worker-I.pid) and each worker's folder (worker-I/: executors' stdout and stderr by
# application, the GPU discovery script). --spark-home: a folder whose jars/ holds Spark's jars
# (links will do). --gpus-per-worker G: worker I (from 0) offers GPUs I*G .. I*G+G-1 to Spark's
# scheduler (spark.worker.resource.gpu.*; ask for them with spark.executor.resource.gpu.amount).
# Defaults: 2 workers, 1 core and 1g each, no GPUs, java from JAVA_HOME or PATH, host
# 127.0.0.1, 90 s to start. stop ends the workers (and with them their executors) and the
# master: TERM, then KILL after 20 s.
set -euo pipefail

die() {
  echo "spark-cluster.sh: $*" >&2
  exit 2
}

# Spark's JVM module options, as spark-submit sets them (the daemons serialize with Java's
# reflection too).
opens=()
for m in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
    java.util.concurrent java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action \
    sun.util.calendar; do
  opens+=("--add-opens=java.base/$m=ALL-UNNAMED")
done

alive() {
  [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null
}

# Ends the process in pid file $1: TERM, then KILL after 20 s.
end() {
  local pidfile=$1 pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 200); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "spark-cluster.sh: $(basename "$pidfile" .pid) (pid $pid) ignored TERM; killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pidfile"
}

stop() {
  local work=$1 f
  for f in "$work"/worker-*.pid; do
    [ -e "$f" ] && end "$f"
  done
  end "$work/master.pid"
  rm -f "$work/master-url"
}

# Waits until file $2 has a line matching $3, while the process of pid file $1 lives.
await_line() {
  local pidfile=$1 log=$2 pattern=$3 deadline=$4
  until grep -q -- "$pattern" "$log" 2>/dev/null; do
    if ! alive "$pidfile"; then
      echo "spark-cluster.sh: $(basename "$pidfile" .pid) exited; the end of $log:" >&2
      tail -n 30 "$log" >&2 || true
      return 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "spark-cluster.sh: no '$pattern' in $log within the time limit; its end:" >&2
      tail -n 30 "$log" >&2 || true
      return 1
    fi
    sleep 0.2
  done
}

cmd=${1:-}
[ -n "$cmd" ] || die "usage: spark-cluster.sh start|stop --work DIR [options] (see its header)"
shift
work="" spark_home="" workers=2 cores=1 memory=1g gpus=0 host=127.0.0.1 timeout=90
java_bin=${JAVA_HOME:+$JAVA_HOME/bin/java}
java_bin=${java_bin:-$(command -v java || true)}
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || die "$1 needs a value"
  case $1 in
    --work) work=$2 ;;
    --spark-home) spark_home=$2 ;;
    --workers) workers=$2 ;;
    --cores) cores=$2 ;;
    --memory) memory=$2 ;;
    --gpus-per-worker) gpus=$2 ;;
    --java) java_bin=$2 ;;
    --host) host=$2 ;;
    --timeout) timeout=$2 ;;
    *) die "unknown option $1" ;;
  esac
  shift 2
done
[ -n "$work" ] || die "--work DIR is required"

case $cmd in
  stop)
    stop "$work"
    exit 0
    ;;
  start) ;;
  *) die "unknown command '$cmd': start or stop" ;;
esac

[ -n "$spark_home" ] || die "--spark-home DIR (a folder whose jars/ holds Spark's jars) is required"
spark_home=$(cd "$spark_home" && pwd)
compgen -G "$spark_home/jars/spark-core_2.13-*.jar" >/dev/null \
  || die "no spark-core_2.13 jar in $spark_home/jars"
[ -n "$java_bin" ] && [ -x "$java_bin" ] || die "no java: give --java PATH or set JAVA_HOME"
for n in "$workers" "$cores" "$gpus" "$timeout"; do
  [[ $n =~ ^[0-9]+$ ]] || die "'$n' is not a count"
done
[ "$workers" -ge 1 ] && [ "$cores" -ge 1 ] || die "--workers and --cores must be at least 1"
mkdir -p "$work"
work=$(cd "$work" && pwd)
if alive "$work/master.pid"; then
  die "a cluster already runs from $work (master pid $(cat "$work/master.pid")): stop it first"
fi
stop "$work" # what a crashed start left

# The workers build their executors' command from these: the java of JAVA_HOME, the class path
# of $SPARK_HOME/jars (the Scala version names the folder layout).
export JAVA_HOME
JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$java_bin")")")
export SPARK_HOME=$spark_home SPARK_SCALA_VERSION=2.13 SPARK_LOCAL_IP=$host
classpath="$spark_home/jars/*"
deadline=$((SECONDS + timeout))
trap 'stop "$work"' ERR

nohup "$java_bin" -Xmx256m "${opens[@]}" -cp "$classpath" org.apache.spark.deploy.master.Master \
  --host "$host" --port 0 --webui-port 0 </dev/null >"$work/master.log" 2>&1 &
echo $! >"$work/master.pid"
await_line "$work/master.pid" "$work/master.log" "Starting Spark master at spark://" "$deadline"
url=$(grep -o -m 1 "spark://[^ ]*" "$work/master.log")

for ((i = 0; i < workers; i++)); do
  dir="$work/worker-$i"
  mkdir -p "$dir"
  props="$dir/worker.properties"
  : >"$props"
  if [ "$gpus" -gt 0 ]; then
    addresses=""
    for ((g = i * gpus; g < (i + 1) * gpus; g++)); do
      addresses="$addresses${addresses:+,}\"$g\""
    done
    printf '#!/usr/bin/env bash\necho '"'"'{"name":"gpu","addresses":[%s]}'"'"'\n' \
      "$addresses" >"$dir/gpus.sh"
    chmod +x "$dir/gpus.sh"
    printf 'spark.worker.resource.gpu.amount=%s\nspark.worker.resource.gpu.discoveryScript=%s\n' \
      "$gpus" "$dir/gpus.sh" >"$props"
  fi
  nohup "$java_bin" -Xmx256m "${opens[@]}" -cp "$classpath" org.apache.spark.deploy.worker.Worker \
    --host "$host" --port 0 --webui-port 0 --cores "$cores" --memory "$memory" \
    --work-dir "$dir" --properties-file "$props" "$url" \
    </dev/null >"$work/worker-$i.log" 2>&1 &
  echo $! >"$work/worker-$i.pid"
done
for ((i = 0; i < workers; i++)); do
  await_line "$work/worker-$i.pid" "$work/worker-$i.log" "Successfully registered with master" \
    "$deadline"
done
trap - ERR
echo "$url" >"$work/master-url"
echo "$url"
