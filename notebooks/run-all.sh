#!/usr/bin/env bash
# Executes every notebook in this folder headless, with a Java kernel from Maven Central and
# Jupyter from Debian's packages, into notebooks/target/executed/ (ignored by git: running them
# leaves the committed notebooks as they are). A failing cell fails the script.
# Usage: notebooks/run-all.sh [--inplace] [NAME.ipynb ...]
#   --inplace  rewrites the committed notebooks with the new outputs and plots (to refresh them)
# GSTM_NB_SIZE=smoke|small|paper sets the experiments' size (default smoke: CI on 2 cores).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
kernel_version=3.0.1
kernel_jar=$here/target/kernel/rapaio-jupyter-kernel-$kernel_version.jar

if ! command -v jupyter >/dev/null 2>&1 || ! jupyter nbconvert --version >/dev/null 2>&1; then
  echo "notebooks: jupyter nbconvert not found; install it with" >&2
  echo "  apt-get install -y --no-install-recommends jupyter-nbconvert jupyter-client" \
    "python3-nbclient python3-ipykernel" >&2
  exit 2
fi
# The notebooks load the project's jars and their runtime class paths.
# The tools' jars: tools/ (core, gstm bench's tables and plots) and spark-tools/ (the connector,
# the DataFrame generators, the GraphX baselines), each with its class path in target/lib.
if [ ! -f "$root/spark-tools/target/gstm-spark-tools-0.1.0-SNAPSHOT.jar" ] \
    || [ ! -d "$root/spark-tools/target/lib" ] || [ ! -d "$root/tools/target/lib" ]; then
  echo "notebooks: building the jars (mvn -DskipTests package)" >&2
  (cd "$root" && mvn -B -q -DskipTests package -pl tools,spark-tools -am)
fi
if [ ! -f "$kernel_jar" ]; then
  (cd "$root" && mvn -B -q -N org.apache.maven.plugins:maven-dependency-plugin:3.11.0:copy \
    -Dartifact=io.github.padreati:rapaio-jupyter-kernel:$kernel_version \
    -DoutputDirectory="$here/target/kernel")
fi

# A kernelspec in a project-local JUPYTER_PATH: nothing is installed for the user.
spec=$here/target/jupyter/kernels/gstm-java
mkdir -p "$spec"
opens=""
for m in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
    java.util.concurrent java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action \
    sun.util.calendar; do
  opens="$opens\"--add-opens=java.base/$m=ALL-UNNAMED\", "
done
cat >"$spec/kernel.json" <<JSON
{
  "argv": ["java", "-Xmx3g", "-Djava.awt.headless=true",
           "-Dlog4j2.configurationFile=$root/scripts/log4j2-spark.properties", $opens
           "-jar", "$kernel_jar", "{connection_file}"],
  "display_name": "Java (gstm)",
  "language": "java",
  "interrupt_mode": "message",
  "env": {"SPARK_LOCAL_IP": "127.0.0.1"}
}
JSON
export JUPYTER_PATH=$here/target/jupyter
export GSTM_NB_SIZE=${GSTM_NB_SIZE:-smoke}

inplace=0
if [ "${1:-}" = --inplace ]; then
  inplace=1
  shift
fi
executed=$here/target/executed
mkdir -p "$executed"
if [ $# -gt 0 ]; then
  books=("$@")
else
  books=("$here"/[0-9]*.ipynb)
fi
passed=0
for nb in "${books[@]}"; do
  name=$(basename "$nb")
  log=$here/target/$name.log
  # About one kernel start in eight hangs in a start-up race inside the kernel, more on a busy
  # machine (4 of 9 starts in one CI run here), and now and then the kernel dies before its
  # first reply: retry on those start-up messages only, up to 8 starts; a failing cell fails at
  # once.
  for attempt in 1 2 3 4 5 6 7 8; do
    start=$(date +%s)
    # Executed in this folder (the notebooks' relative paths start here), written to $executed.
    if (cd "$here" && jupyter nbconvert --to notebook --execute "$name" \
        --output-dir "$executed" --output "$name" \
        --ExecutePreprocessor.timeout=900 --ExecutePreprocessor.startup_timeout=45 \
        --ExecutePreprocessor.kernel_name=gstm-java) >"$log" 2>&1; then
      # The %jar cells print this machine's paths: not worth keeping in the committed notebook.
      python3 - "$executed/$name" <<'PY'
import json, sys
path = sys.argv[1]
nb = json.load(open(path))
for cell in nb["cells"]:
    if cell["cell_type"] == "code" and "".join(cell["source"]).lstrip().startswith("%jar"):
        cell["outputs"] = []
json.dump(nb, open(path, "w"), indent=1, ensure_ascii=False)
open(path, "a").write("\n")
PY
      if (( inplace )); then
        cp "$executed/$name" "$here/$name"
      fi
      echo "notebooks: $name ran in $(( $(date +%s) - start )) s"
      passed=$((passed + 1))
      break
    fi
    if grep -qE "Kernel didn't respond|Kernel died before replying to kernel_info" "$log" \
        && [ $attempt -lt 8 ]; then
      echo "notebooks: $name: the kernel did not start (attempt $attempt); retrying"
      continue
    fi
    grep -v '^\[20' "$log" | tail -n 40 >&2
    echo "notebooks: $name FAILED (log: $log)" >&2
    echo "notebooks: $passed passed, 1 failed"
    exit 1
  done
done
echo "notebooks: $passed passed, 0 failed"
