/// @file kmeans_update.cu
/// @brief One k-means centroid update with PR-STM transactions on the centroid accumulators.
///        Host twin: io.gstm.core.cuda.CudaKMeans.
///
/// A persistent grid (the host launches few blocks, each with at least `ppt` points): a block
/// assigns its points grid-stride to their nearest centroid (no transaction; distances rounded
/// as the JVM computes them, ties to the lowest index) and sums them per centroid, in
/// registers where k * (dims + 1) is small, then in shared memory. Then one transaction per
/// (centroid, slice of at most CAPACITY record words) with points adds the block's contribution
/// to the centroid's record [count, sum_0 .. sum_{dims-1}] of the store's accumulator region.
/// Commit contention, not memory traffic, bounds this kernel: every record sees one commit per
/// block, so the host keeps the grid small, and blocks visit the records in rotated order.
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

/// Register path: a thread keeps its own counts and sums for up to KMAX centroids of DIMS
/// dimensions (indices fixed at compile time, so they stay in registers), then each warp
/// reduces them with shuffles and lane 0 adds them to the block's shared accumulators.
template <int DIMS, int KMAX>
__device__ __forceinline__ void assign_registers(const KMeansArgs& a, const double* points,
                                                 const double* cent, double* acc, double& cost) {
  constexpr int kRecord = DIMS + 1;
  const uint32_t k = a.k;
  uint32_t count[KMAX];
  double sum[KMAX][DIMS];
#pragma unroll
  for (int c = 0; c < KMAX; ++c) {
    count[c] = 0;
#pragma unroll
    for (int d = 0; d < DIMS; ++d) sum[c][d] = 0;
  }
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < a.n; p += stride) {
    double x[DIMS];
#pragma unroll
    for (int d = 0; d < DIMS; ++d) x[d] = __ldg(points + static_cast<size_t>(p) * DIMS + d);
    uint32_t best = 0;
    double best_dist = __longlong_as_double(0x7ff0000000000000ll);  // +infinity
    for (uint32_t c = 0; c < k; ++c) {
      double dist = 0;
#pragma unroll
      for (int d = 0; d < DIMS; ++d) {
        const double diff = __dsub_rn(x[d], cent[c * DIMS + d]);
        dist = __dadd_rn(dist, __dmul_rn(diff, diff));
      }
      if (dist < best_dist) {
        best_dist = dist;
        best = c;
      }
    }
    cost = __dadd_rn(cost, best_dist);
#pragma unroll
    for (int c = 0; c < KMAX; ++c) {
      const bool mine = best == static_cast<uint32_t>(c);
      count[c] += mine ? 1u : 0u;
#pragma unroll
      for (int d = 0; d < DIMS; ++d) sum[c][d] += mine ? x[d] : 0.0;
    }
  }
  const uint32_t lane = threadIdx.x & 31u;
#pragma unroll
  for (int c = 0; c < KMAX; ++c) {
    if (static_cast<uint32_t>(c) < k) {  // uniform across the warp
      const uint32_t n = __reduce_add_sync(0xffffffffu, count[c]);
#pragma unroll
      for (int d = 0; d < DIMS; ++d) {
        double v = sum[c][d];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0 && n != 0) atomicAdd(acc + c * kRecord + 1 + d, v);
      }
      if (lane == 0 && n != 0) atomicAdd(acc + c * kRecord, static_cast<double>(n));
    }
  }
}

/// Generic path: every point's contribution is added to the block's shared accumulators.
__device__ __forceinline__ void assign_shared(const KMeansArgs& a, const double* points,
                                              const double* cent, double* acc, double& cost) {
  const uint32_t dims = a.dims;
  const uint32_t k = a.k;
  const uint32_t record = dims + 1;
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < a.n; p += stride) {
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
}

template <int CAPACITY>
__device__ __forceinline__ void update(const StoreView& view, const KMeansArgs& a) {
  extern __shared__ double shared[];
  const uint32_t dims = a.dims;
  const uint32_t k = a.k;
  const uint32_t record = dims + 1;
  double* cent = shared;                    // [k * dims]
  double* acc = shared + k * dims;          // [k * record]
  __shared__ double block_cost;
  const double* points = static_cast<const double*>(view.regions[a.points_region].base);
  for (uint32_t i = threadIdx.x; i < k * dims; i += blockDim.x) cent[i] = a.centroids[i];
  for (uint32_t i = threadIdx.x; i < k * record; i += blockDim.x) acc[i] = 0;
  if (threadIdx.x == 0) block_cost = 0;
  __syncthreads();
  // 1. Assignment: the block sums all of its points (grid-stride) per centroid.
  double cost = 0;
  if (dims == 2 && k <= 16) {
    assign_registers<2, 16>(a, points, cent, acc, cost);
  } else if (dims == 1 && k <= 24) {
    assign_registers<1, 24>(a, points, cent, acc, cost);
  } else if (dims == 3 && k <= 12) {
    assign_registers<3, 12>(a, points, cent, acc, cost);
  } else {
    assign_shared(a, points, cent, acc, cost);
  }
  atomicAdd(&block_cost, cost);
  __syncthreads();
  // 2. Commit: one transaction per (centroid, slice) with points, by warp 0. The block starts
  //    at centroid blockIdx % k and goes round, so at any moment the blocks spread over the k
  //    records; `par` lanes run at once, enough that the records stay busy with few blocks.
  if (threadIdx.x < 32) {
    ThreadCounters<kAbandonedCount + 1> counters;
    uint32_t transactions = 0;
    const uint32_t lane = threadIdx.x;
    const uint32_t slices = (record + CAPACITY - 1) / CAPACITY;
    const uint32_t pairs = k * slices;
    const uint32_t par = min(32u, max(1u, (pairs + gridDim.x - 1) / gridDim.x));
    const uint32_t owner = blockIdx.x * blockDim.x + threadIdx.x;
    for (uint32_t step = 0; step < pairs; step += par) {
      const uint32_t idx = step + lane;
      const uint32_t pair = (idx + (blockIdx.x % k) * slices) % pairs;
      const uint32_t c = pair / slices;
      const uint32_t w0 = (pair % slices) * CAPACITY;
      bool pending = lane < par && idx < pairs && acc[c * record] != 0;
      if (pending) ++transactions;
      uint32_t conflicts = 0;
      while (__any_sync(0xffffffffu, pending)) {
        if (pending) {
          PrStmTx<CAPACITY> tx(view, owner);
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
              pending = false;
            } else {
              // Randomised exponential backoff from the first abort: a winner holds the record
              // for about a microsecond, so retrying at once only adds traffic to its lock.
              const uint32_t cap = 128u << min(conflicts, 6u);
              __nanosleep(cap / 2 + (((owner + conflicts) * 2654435761u) >> 16) % (cap / 2));
            }
          }
        }
        __syncwarp();
      }
    }
    counters.flush_to(a.counters);
    for (int off = 16; off > 0; off >>= 1) {
      transactions += __shfl_down_sync(0xffffffffu, transactions, off);
    }
    if (lane == 0 && transactions) {
      atomicAdd(a.stats + kTransactions, static_cast<unsigned long long>(transactions));
    }
    if (lane == 0) atomicAdd(a.cost, block_cost);
  }
}

}  // namespace gstm::kmeans_update

/// @brief One k-means update: assignment, per-block aggregation, then one transaction per
///        (centroid, record slice of at most 16 words) and block. Dynamic
///        shared memory: (k * dims + k * (dims + 1)) doubles. Launch whole warps, at most 512 threads.
/// @param view the store (accumulators transactional, points read-only)
/// @param args centroids, outputs and sizes
extern "C" __global__ void __launch_bounds__(512, 1) gstm_kmeans_update_s16(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::kmeans_update::KMeansArgs args) {
  gstm::kmeans_update::update<16>(view, args);
}
