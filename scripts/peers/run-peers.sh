#!/usr/bin/env bash
# gstm and its peers on the very same graphs, in one call on the GPU machine, from the bundle's
# root (scripts/peers/stage-peers.sh put the peers in peers/):
#   bash peers/run-peers.sh [DIR]     logs go to DIR (default $OUT, else /tmp/gstm-peers), the
#                                     graphs and answers to PEERS_WORK (/tmp/gstm-peers-work)
# For each graph: `gstm export-graph` writes bench-graph's graph in the peer's format, the peer
# runs it (its own timer, kernels only), `gstm check-peer` checks its answer against Dijkstra's
# or union-find's, and `gstm bench-graph` relaxes the same graph (kernel and total, best of 3).
# PEERS_GRAPHS overrides the graphs: lines of "graph scale kind" (kind sssp: ADDS; cc: ECL-CC).
# PEERS_TIMEOUT (seconds, default 90) bounds each peer's run: a peer that hangs (ADDS's
# persistent kernels do when ptxas optimises them: stage-peers.sh) costs that, not the call. Its
# output is line buffered, so its log shows how far it got.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:-${OUT:-/tmp/gstm-peers}}
limit=${PEERS_TIMEOUT:-90}
# The graphs and the peers' answers (hundreds of MB at 2^24) stay out of DIR: logs only there.
work=${PEERS_WORK:-/tmp/gstm-peers-work}
mkdir -p "$work"
# The peers travel compressed (stage-peers.sh): unpacked into the work directory.
for peer in adds-sssp ecl-cc; do
  gunzip -c "$root/peers/$peer.gz" >"$work/$peer" && chmod +x "$work/$peer" \
    || { echo "run-peers: cannot unpack peers/$peer.gz" >&2; exit 2; }
done
buffered=()
command -v stdbuf >/dev/null && buffered=(stdbuf -oL -eL)
mkdir -p "$dir"
graphs=${PEERS_GRAPHS:-"grid 20 sssp
road 24 sssp
rmat 22 cc
rmat 22 sssp"}
# ECL-CC verifies its answer recursively: deep stacks on large components.
ulimit -s unlimited 2>/dev/null || true
status=0
summary=()
while read -r graph scale kind; do
  [ -n "$graph" ] || continue
  name=$graph-$scale-$kind
  args=(--graph "$graph" --scale "$scale" --kind "$kind")
  [ "$graph" = rmat ] && args+=(--edges -1)
  echo "== $name"
  if [ "$kind" = sssp ]; then
    peer=adds file=$work/$name.gr answer=$work/adds-$name.txt
    if ! "$root/gstm" export-graph "${args[@]}" --format gr --out "$file" >"$dir/export-$name.log" 2>&1; then
      cat "$dir/export-$name.log"; status=1; continue
    fi
    cat "$dir/export-$name.log"
    source=$(sed -n 's/^source: //p' "$dir/export-$name.log")
    rm -f "$answer"
    timeout -k 5 "$limit" ${buffered[@]+"${buffered[@]}"} "$work/adds-sssp" -s "$source" -o "$answer" "$file" \
      >"$dir/adds-$name.log" 2>&1 3>"$dir/adds-$name.fd3"
    rc=$?
    # It times each of its runs (RUN_LOOP of them): the best, as gstm's best of 3.
    peer_s=$(sed -n 's/.*Measured time for sample = \([0-9.]*\)s.*/\1/p' "$dir/adds-$name.log" \
      | sort -g | head -1)
  else
    peer=ecl file=$work/$name.egr answer=$work/ecl-$name.bin
    if ! "$root/gstm" export-graph "${args[@]}" --format ecl --out "$file" >"$dir/export-$name.log" 2>&1; then
      cat "$dir/export-$name.log"; status=1; continue
    fi
    cat "$dir/export-$name.log"
    rm -f "$answer"
    GSTM_PEER_OUT=$answer timeout -k 5 "$limit" ${buffered[@]+"${buffered[@]}"} "$work/ecl-cc" "$file" >"$dir/ecl-$name.log" 2>&1
    rc=$?
    peer_s=$(sed -n 's/^compute time: \([0-9.]*\) s$/\1/p' "$dir/ecl-$name.log")
  fi
  if [ $rc -ne 0 ]; then
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo "$peer: no answer within ${limit} s"
    echo "$peer failed (status $rc):"; tail -5 "$dir/$peer-$name.log"; status=1
    check="not checked"
  else
    check=$("$root/gstm" check-peer "${args[@]}" --peer "$peer" --values "$answer") || status=1
    echo "$check"
  fi
  "$root/gstm" bench-graph --engine gpu "${args[@]}" --reps 3 >"$dir/gstm-$name.log" 2>&1 \
    || status=1
  grep -E "graph:|relaxed edges/s|rounds:|verifier" "$dir/gstm-$name.log"
  gstm_ms=$(sed -n 's/.*in \([0-9.]*\) ms kernel time, \([0-9.]*\) ms total.*/\1 ms kernel, \2 ms total/p' \
    "$dir/gstm-$name.log")
  summary+=("$name: $peer ${peer_s:-?} s ($check); gstm $gstm_ms")
done <<<"$graphs"
echo
echo "== same graphs, same call ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(nproc) cores)"
[ -f "$root/peers/COMMITS" ] && echo "peers built from: $(paste -sd ';' "$root/peers/COMMITS")"
printf '%s\n' "${summary[@]}"
exit $status
