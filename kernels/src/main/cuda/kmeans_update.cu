/// @file kmeans_update.cu
/// @brief One k-means centroid update with PR-STM transactions on the centroid accumulators.
///        Host twin: io.gstm.core.cuda.CudaKMeans.
///
/// Points are cut into groups of `ppt` consecutive points; a block takes groups grid-stride.
/// For each group the block assigns every point to its nearest centroid (no transaction;
/// distances rounded as the JVM computes them, ties to the lowest index) and sums the group's
/// contribution per centroid in shared memory. Then one transaction per (centroid, slice of at
/// most CAPACITY record words) with points in the group adds that contribution to the
/// centroid's record [count, sum_0 .. sum_{dims-1}] of the store's accumulator region.
#include <cstdint>

#include "gstm/batch.cuh"
#include "gstm/prstm.cuh"
#include "gstm/store_view.cuh"

namespace gstm::kmeans_update {

enum Stat : int { kTransactions = 0, kStatCount = 1 };

/// The launch arguments; the host packs this byte for byte.
struct KMeansArgs {
  const double* centroids;        ///< [k * dims]
  double* cost;                   ///< [1] sum of squared distances, accumulated
  unsigned long long* counters;   ///< [kCounterCount]
  unsigned long long* stats;      ///< [kStatCount]
  uint32_t n;                     ///< points
  uint32_t dims;
  uint32_t k;
  uint32_t ppt;                   ///< points per group (per transaction)
  uint32_t acc_region;            ///< FLOAT64 records of dims + 1 words, one lock each
  uint32_t points_region;         ///< FLOAT64 points, row-major, read-only
  uint32_t max_retries;           ///< concurrency aborts before a transaction is abandoned
  uint32_t pad;
};
static_assert(sizeof(KMeansArgs) == 64, "host packer assumes 64 bytes");

template <int CAPACITY>
__device__ __forceinline__ void update(const StoreView& view, const KMeansArgs& a) {
  extern __shared__ double shared[];
  const uint32_t dims = a.dims;
  const uint32_t k = a.k;
  const uint32_t record = dims + 1;
  double* cent = shared;                    // [k * dims]
  double* acc = shared + k * dims;          // [k * record]
  __shared__ double block_cost;
  __shared__ unsigned int abandoned_flag;
  const double* points = static_cast<const double*>(view.regions[a.points_region].base);
  for (uint32_t i = threadIdx.x; i < k * dims; i += blockDim.x) cent[i] = a.centroids[i];
  if (threadIdx.x == 0) {
    block_cost = 0;
    abandoned_flag = 0;
  }
  ThreadCounters<kAbandonedCount + 1> counters;
  uint32_t transactions = 0;
  double cost = 0;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t slices = (record + CAPACITY - 1) / CAPACITY;
  const uint32_t groups = (a.n + a.ppt - 1) / a.ppt;
  for (uint32_t g = blockIdx.x; g < groups; g += gridDim.x) {
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < k * record; i += blockDim.x) acc[i] = 0;
    __syncthreads();
    const uint32_t first = g * a.ppt;
    const uint32_t end = min(a.n, first + a.ppt);
    for (uint32_t p = first + threadIdx.x; p < end; p += blockDim.x) {
      const double* x = points + static_cast<size_t>(p) * dims;
      uint32_t best = 0;
      double best_dist = __longlong_as_double(0x7ff0000000000000ll);  // +infinity
      for (uint32_t c = 0; c < k; ++c) {
        double dist = 0;
        for (uint32_t d = 0; d < dims; ++d) {
          const double diff = __dsub_rn(__ldg(x + d), cent[c * dims + d]);
          dist = __dadd_rn(dist, __dmul_rn(diff, diff));
        }
        if (dist < best_dist) {
          best_dist = dist;
          best = c;
        }
      }
      cost = __dadd_rn(cost, best_dist);
      double* r = acc + best * record;
      atomicAdd(r, 1.0);
      for (uint32_t d = 0; d < dims; ++d) atomicAdd(r + 1 + d, __ldg(x + d));
    }
    __syncthreads();
    // One transaction per (centroid, slice) with points; warps vote on retry rounds.
    const uint32_t pairs = k * slices;
    for (uint32_t base = threadIdx.x - lane; base < pairs; base += blockDim.x) {
      const uint32_t pair = base + lane;
      const uint32_t c = pair / slices;
      const uint32_t w0 = (pair % slices) * CAPACITY;
      bool pending = pair < pairs && acc[c * record] != 0;
      if (pending) ++transactions;
      uint32_t conflicts = 0;
      while (__any_sync(0xffffffffu, pending)) {
        if (pending) {
          PrStmTx<CAPACITY> tx(view, blockIdx.x * blockDim.x + threadIdx.x);
#pragma unroll
          for (int s = 0; s < CAPACITY; ++s) {
            const uint32_t j = w0 + s;
            if (j < record) {
              const uint32_t at = c * record + j;
              const double old =
                  __longlong_as_double(static_cast<long long>(tx.read(a.acc_region, at)));
              tx.write(a.acc_region, at,
                       static_cast<uint64_t>(__double_as_longlong(old + acc[c * record + j])));
            }
          }
          if (tx.commit()) {
            ++counters.c[kCommits];
            pending = false;
          } else {
            counters.add(tx.abort_cause());
            if (++conflicts >= a.max_retries) {
              ++counters.c[kAbandonedCount];
              atomicExch(&abandoned_flag, 1u);
              pending = false;
            } else if (conflicts > 2) {
              __nanosleep(min(32u << min(conflicts - 2, 8u), 8192u));
            }
          }
        }
        __syncwarp();
      }
    }
  }
  __syncthreads();
  counters.flush_to(a.counters);
  atomicAdd(&block_cost, cost);
  for (int off = 16; off > 0; off >>= 1) {
    transactions += __shfl_down_sync(0xffffffffu, transactions, off);
  }
  if (lane == 0 && transactions) {
    atomicAdd(a.stats + kTransactions, static_cast<unsigned long long>(transactions));
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(a.cost, block_cost);
}

}  // namespace gstm::kmeans_update

/// @brief One k-means update: assignment, per-group aggregation in shared memory, then one
///        transaction per (centroid, record slice of at most 16 words) and group. Dynamic
///        shared memory: (k * dims + k * (dims + 1)) doubles. Launch whole warps.
/// @param view the store (accumulators transactional, points read-only)
/// @param args centroids, outputs and sizes
extern "C" __global__ void __launch_bounds__(256, 2) gstm_kmeans_update_s16(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::kmeans_update::KMeansArgs args) {
  gstm::kmeans_update::update<16>(view, args);
}
