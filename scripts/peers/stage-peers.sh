#!/usr/bin/env bash
# Builds the GPU codes issue 28 measures gstm against, from their public sources, into the GPU
# bundle (target/gpu-bundle/peers), with run-peers.sh beside them:
#   ADDS    asynchronous delta-stepping SSSP (PPoPP 2021), github.com/UCLA-VAST/adds, ads_float
#   ECL-CC  connected components, github.com/burtscher/ECL-Suite, ECL-CC_11.cu
# Needs nvcc (no GPU: the binaries are built for sm_90 here, where the bundle is built) and a
# clone of each repository (a work tree or a bare git directory):
#   ADDS_SRC=<clone of UCLA-VAST/adds> ECL_SRC=<clone of burtscher/ECL-Suite> scripts/peers/stage-peers.sh
# Their code is not part of gstm: the files are exported from the clones at the commits below,
# edited where CUDA 13 and the H200 need it (each edit below says why), and compiled.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
bundle=${BUNDLE:-$repo/target/gpu-bundle}
# ADDS's first commit (its artifact, imported from Zenodo): the later one (9ef8166) keeps a parent
# beside each distance and prints that pair with %f, so its answers cannot be read back.
ADDS_COMMIT=dd2132c19d471f9a46a724b00fb01d2af379cc28
ECL_COMMIT=b75017e983cdd457ac126c933fdb3aef992712b0
ARCH=${PEERS_ARCH:-90}
[ -d "$bundle" ] || { echo "stage-peers: no bundle at $bundle (scripts/build-gpu-bundle.sh)" >&2; exit 2; }
: "${ADDS_SRC:?set ADDS_SRC to a clone of github.com/UCLA-VAST/adds}"
: "${ECL_SRC:?set ECL_SRC to a clone of github.com/burtscher/ECL-Suite}"
command -v nvcc >/dev/null || { echo "stage-peers: nvcc not found" >&2; exit 2; }

export_from() {  # clone commit dest paths...
  local src=$1 commit=$2 dest=$3
  shift 3
  local git=(git -C "$src")
  [ -d "$src/.git" ] || git=(git --git-dir="$src")
  "${git[@]}" cat-file -e "$commit^{commit}" 2>/dev/null \
    || { echo "stage-peers: $src lacks commit $commit" >&2; exit 2; }
  mkdir -p "$dest"
  "${git[@]}" archive "$commit" "$@" | tar -x -C "$dest"
}

work=$repo/target/peers
rm -rf "$work"
export_from "$ADDS_SRC" "$ADDS_COMMIT" "$work/adds" ads_float
export_from "$ECL_SRC" "$ECL_COMMIT" "$work/ecl" library/ECLgraph.h \
  src/baseline/egr-input/CC/ECL-CC_11.cu

# --- ADDS -----------------------------------------------------------------------------------
adds=$work/adds/ads_float
# The CUB it bundles (1.8.0) does not build under CUDA 13: the toolkit's own.
sed -i 's|#include "../cub-1.8.0/cub/cub.cuh"|#include <cub/cub.cuh>|' "$adds/kernel.cu"
# cub::LaneId() is gone from CUB 3: the lane of a 1-D block.
sed -i 's|cub::LaneId()|(threadIdx.x % 32)|g' "$adds/kernel.cu"
# An unused Boost include (Boost is not on the GPU machine).
sed -i '\|#include <boost/mpl/if.hpp>|d' "$adds/csr_graph.cu"
# Room for the thread blocks of 132 SMs (it asserts num_tb < MAX_TB).
sed -i 's|^#define MAX_TB [0-9]*.*|#define MAX_TB 1024|' "$adds/wl.h"
# Blocks of 768 threads exceed what its kernel's registers allow under CUDA 13 (640); 448 is
# what its own later commit uses.
sed -i 's|^#define TB_SIZE 768|#define TB_SIZE 448|' "$adds/kernel.cu"
# Its device-side launch of the two persistent kernels did not run on the H200; launched from
# the host on two non-blocking streams they do (they then run concurrently, as it intends).
grep -q 'driver_kernel<<<1, 1>>>' "$adds/kernel.cu" \
  || { echo "stage-peers: ADDS's driver launch not found" >&2; exit 1; }
sed -i 's|^\(\s*\)driver_kernel<<<1, 1>>>(num_tb, num_threads, wl, gg, start_node, work_count);|\1{ cudaStream_t gstm_s1, gstm_s2; cudaStreamCreateWithFlags(\&gstm_s1, cudaStreamNonBlocking); cudaStreamCreateWithFlags(\&gstm_s2, cudaStreamNonBlocking); wl_kernel<<<1, 192, 0, gstm_s1>>>(wl, start_node); sssp_kernel<<<num_tb, num_threads, 0, gstm_s2>>>(gg, wl, work_count); }|' \
  "$adds/kernel.cu"
grep -q 'gstm_s1' "$adds/kernel.cu" || { echo "stage-peers: ADDS's launch edit failed" >&2; exit 1; }

# --- ECL-CC ---------------------------------------------------------------------------------
ecl=$work/ecl/src/baseline/egr-input/CC/ECL-CC_11.cu
cp "$work/ecl/library/ECLgraph.h" "$(dirname "$ecl")/"
# cudaDeviceProp lost clockRate and memoryClockRate in CUDA 13: print zeros.
sed -i 's|deviceProp.clockRate \* 0.001, deviceProp.memoryClockRate \* 0.001|0.0, 0.0|' "$ecl"
# Its answer, for gstm check-peer: the labels as int32 to $GSTM_PEER_OUT, before its own
# verification overwrites them.
grep -q 'number of connected components' "$ecl" \
  || { echo "stage-peers: ECL-CC's component count line not found" >&2; exit 1; }
sed -i '/number of connected components/a\  { const char* gstm_out = getenv("GSTM_PEER_OUT"); if (gstm_out) { FILE* f = fopen(gstm_out, "wb"); fwrite(nodestatus, sizeof(int), g.nodes, f); fclose(f); } }' "$ecl"

mkdir -p "$bundle/peers"
echo "stage-peers: building ADDS and ECL-CC for sm_$ARCH ..."
# Its persistent kernels hang under CUDA 13's ptxas at -O1 and above (on the H200; -O1 to -O3
# at its later commit, -O3 at this one; even on a 2^16 grid: set-up printed, no time in 10 s);
# with ptxas at -O0 they run and give the right distances. So ADDS runs unoptimised here, and
# its time in run-peers.sh is a bound from above: ADDS_PTXAS_OPT picks the level to try.
# Optimised with its polled shared-memory flags made volatile and one block an SM, it still hung
# in every process: in 6 of 8 before its first timed run, in the other two after one (21 and 23
# ms on the 2^20 grid; benchmark-log.md, 2026-12-02). At ptxas -O1, -O2 and -O3 it hung on the
# 2^16 grid in every try of 2026-12-03 too, with and without edits for what its host launch
# changed (sssp_kernel launched only once wl_kernel ran, the largest shared-memory carveout,
# wl_kernel loaded first) and fences where one lane publishes others' stores (benchmark-log.md,
# 2026-12-03 afternoon); and with every load and store of its PTX made volatile, without -rdc,
# as compute_75 PTX compiled by the driver. cuda-gdb found its manager's six warps and its
# workers all polling: a livelock, not a load hoisted out of a loop; built by CUDA 11.8's nvcc
# it hangs the same way (2026-12-03 night).
ADDS_PTXAS_OPT=${ADDS_PTXAS_OPT:-0}
(cd "$adds" && nvcc kernel.cu support.cu csr_graph.cu -O3 -std=c++17 -Xptxas "-O$ADDS_PTXAS_OPT" \
  -gencode "arch=compute_$ARCH,code=sm_$ARCH" -rdc=true -lcudadevrt \
  -o "$bundle/peers/adds-sssp")
nvcc "$ecl" -O3 -gencode "arch=compute_$ARCH,code=sm_$ARCH" -o "$bundle/peers/ecl-cc"
# Host symbols out, and compressed (run-peers.sh unpacks them): the bundle and the tree travel
# to the GPU machine within 64 MiB, and the bundle alone is 57 MB.
command -v strip >/dev/null && strip "$bundle/peers/adds-sssp" "$bundle/peers/ecl-cc"
gzip -9f "$bundle/peers/adds-sssp" "$bundle/peers/ecl-cc"
cp "$here/run-peers.sh" "$bundle/peers/"
printf 'adds %s (ptxas -O%s)\necl-suite %s\n' "$ADDS_COMMIT" "$ADDS_PTXAS_OPT" "$ECL_COMMIT" \
  >"$bundle/peers/COMMITS"
echo "stage-peers: $(du -sh "$bundle/peers" | cut -f1) in $bundle/peers; on the GPU machine: bash peers/run-peers.sh"
