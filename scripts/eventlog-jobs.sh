#!/usr/bin/env bash
# Where a Spark application's time went, job by job, from its event log: for each job its start
# (seconds after the first), its length, the gap since the job before, and per stage the tasks'
# median and longest run, CPU and GC. Reads what gpu-cluster.sh's stop archives with GC_EVENTS=1
# (events.tgz), a folder of event logs, or one event log file (plain or .zstd).
# Usage: scripts/eventlog-jobs.sh events.tgz|DIR|FILE [LAST_JOBS]   (needs jq; zstd for .zstd)
set -euo pipefail
src=${1:?usage: eventlog-jobs.sh events.tgz|DIR|FILE [LAST_JOBS]}
last=${2:-0}
command -v jq >/dev/null || { echo "eventlog-jobs: needs jq" >&2; exit 2; }
[ -e "$src" ] || { echo "eventlog-jobs: no such file or folder: $src" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $src in
  *.tgz|*.tar.gz) tar xzf "$src" -C "$tmp"; files=$(find "$tmp" -type f -name 'events_*' | sort) ;;
  *) if [ -d "$src" ]; then files=$(find "$src" -type f -name 'events_*' | sort); else files=$src; fi ;;
esac
[ -n "$files" ] || { echo "eventlog-jobs: no event log (events_*) in $src" >&2; exit 2; }
for f in $files; do
  echo "== $(basename "$(dirname "$f")")"
  case $f in *.zstd) zstd -dcq "$f" ;; *) cat "$f" ;; esac | jq -r '
    if .Event == "SparkListenerJobStart" then "J \(.["Job ID"]) \(.["Submission Time"]) \(.["Stage IDs"] | map(tostring) | join(","))"
    elif .Event == "SparkListenerJobEnd" then "E \(.["Job ID"]) \(.["Completion Time"])"
    elif .Event == "SparkListenerStageCompleted" then "S \(.["Stage Info"]["Stage ID"]) \(.["Stage Info"]["Stage Name"] | gsub(" "; "_") | .[0:40])"
    elif .Event == "SparkListenerTaskEnd" then "T \(.["Stage ID"]) \(.["Task Metrics"]["Executor Run Time"]) \((.["Task Metrics"]["Executor CPU Time"] / 1e6) | floor) \(.["Task Metrics"]["JVM GC Time"])"
    else empty end' | awk -v last="$last" '
    $1 == "J" { n++; id[n] = $2; start[$2] = $3; stages[$2] = $4 }
    $1 == "E" { end[$2] = $3 }
    $1 == "S" { name[$2] = $3 }
    $1 == "T" { k = ++count[$2]; run[$2, k] = $3; cpu[$2] += $4; if ($5 > gc[$2]) gc[$2] = $5 }
    END {
      first = start[id[1]]
      for (i = (last > 0 && n > last ? n - last + 1 : 1); i <= n; i++) {
        j = id[i]
        gap = i > 1 ? start[j] - end[id[i - 1]] : 0
        printf "job %4d  +%7.2f s  %6d ms  gap %5d ms\n", j, (start[j] - first) / 1000, end[j] - start[j], gap
        m = split(stages[j], st, ",")
        for (s = 1; s <= m; s++) {
          t = count[st[s]]
          if (t == 0) continue
          # the median and the longest run of the stage tasks (an insertion sort: a few dozen)
          for (a = 1; a <= t; a++) v[a] = run[st[s], a]
          for (a = 2; a <= t; a++) { x = v[a]; b = a - 1; while (b > 0 && v[b] > x) { v[b + 1] = v[b]; b-- } v[b + 1] = x }
          printf "    stage %-5d %-40s %4d tasks, run median %5d ms, longest %5d ms, CPU %6d ms in all, GC at most %4d ms\n", st[s], name[st[s]], t, v[int((t + 1) / 2)], v[t], cpu[st[s]], gc[st[s]]
        }
      }
    }'
done
