/// @file kmeans_update.cu
/// @brief One k-means centroid update with PR-STM transactions on the centroid accumulators.
///        Host twin: io.gstm.core.cuda.CudaKMeans.
///
/// Two launches. `gstm_kmeans_assign`: a grid of a few blocks per SM assigns the points
/// grid-stride to their nearest centroid (no transaction; distances rounded as the JVM computes
/// them, ties to the lowest index), sums them per centroid (registers where k * (dims + 1) is
/// small, then shared memory) and writes the block's partial sums and cost to scratch memory.
/// `gstm_kmeans_commit_s16`: one block adds the partials up in block order (so the result does
/// not depend on scheduling) and runs one transaction per (centroid, slice of at most CAPACITY
/// record words) that adds the update's contribution to the centroid's record
/// [count, sum_0 .. sum_{dims-1}] of the store's accumulator region, the k records in parallel.
/// The transactions are what keeps concurrent updaters of one store (several tasks) correct;
/// combining first keeps them off the critical path: one commit per centroid and update, where
/// one commit per block and centroid serialized on each record (8 us each on an H100).
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
  uint32_t blocks;                ///< blocks of the assign launch (partials to combine)
  double* partials;               ///< [blocks * k * (dims + 1)] per-block sums
  double* partial_cost;           ///< [blocks]
};
static_assert(sizeof(KMeansArgs) == 80, "host packer assumes 80 bytes");

/// The centroid nearest to point x (the first of equals) and its squared distance, summed in
/// dimension order with the JVM's rounding, so that both engines assign alike.
template <int DIMS>
__device__ __forceinline__ uint32_t nearest(const double (&x)[DIMS], const double* cent,
                                            uint32_t k, double& best_dist) {
  uint32_t best = 0;
  best_dist = __longlong_as_double(0x7ff0000000000000ll);  // +infinity
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
  return best;
}

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
    double best_dist;
    const uint32_t best = nearest<DIMS>(x, cent, k, best_dist);
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

/// Shared path with the point in registers (DIMS known at compile time, up to 16): each point
/// is read from global memory once, not once per centroid as on the generic path (8-D points,
/// k = 64: 512 scattered reads a point, which bounded the launch), then added to the block's
/// shared accumulators. Distances are summed in the same order, so the assignment is the same.
template <int DIMS>
__device__ __forceinline__ void assign_point_in_registers(const KMeansArgs& a,
                                                          const double* points,
                                                          const double* cent, double* acc,
                                                          double& cost) {
  constexpr int kRecord = DIMS + 1;
  const uint32_t k = a.k;
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < a.n; p += stride) {
    double x[DIMS];
    const double* at = points + static_cast<size_t>(p) * DIMS;
    if constexpr (DIMS % 2 == 0) {
      // 16-byte loads: a row of an even size starts 16-byte aligned (the region is).
#pragma unroll
      for (int d = 0; d < DIMS; d += 2) {
        const double2 v = __ldg(reinterpret_cast<const double2*>(at + d));
        x[d] = v.x;
        x[d + 1] = v.y;
      }
    } else {
#pragma unroll
      for (int d = 0; d < DIMS; ++d) x[d] = __ldg(at + d);
    }
    double best_dist;
    const uint32_t best = nearest<DIMS>(x, cent, k, best_dist);
    cost = __dadd_rn(cost, best_dist);
    double* r = acc + best * kRecord;
    atomicAdd(r, 1.0);
#pragma unroll
    for (int d = 0; d < DIMS; ++d) atomicAdd(r + 1 + d, x[d]);
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

/// Assignment and per-block sums, written to the block's slot of the scratch memory.
__device__ __forceinline__ void assign(const StoreView& view, const KMeansArgs& a) {
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
  double cost = 0;
  if (dims == 2 && k <= 16) {
    assign_registers<2, 16>(a, points, cent, acc, cost);
  } else if (dims == 1 && k <= 24) {
    assign_registers<1, 24>(a, points, cent, acc, cost);
  } else if (dims == 3 && k <= 12) {
    assign_registers<3, 12>(a, points, cent, acc, cost);
  } else {
    switch (dims) {
#define GSTM_KMEANS_DIMS(D) \
  case D:                   \
    assign_point_in_registers<D>(a, points, cent, acc, cost); \
    break;
      GSTM_KMEANS_DIMS(1) GSTM_KMEANS_DIMS(2) GSTM_KMEANS_DIMS(3) GSTM_KMEANS_DIMS(4)
      GSTM_KMEANS_DIMS(5) GSTM_KMEANS_DIMS(6) GSTM_KMEANS_DIMS(7) GSTM_KMEANS_DIMS(8)
      GSTM_KMEANS_DIMS(9) GSTM_KMEANS_DIMS(10) GSTM_KMEANS_DIMS(11) GSTM_KMEANS_DIMS(12)
      GSTM_KMEANS_DIMS(13) GSTM_KMEANS_DIMS(14) GSTM_KMEANS_DIMS(15) GSTM_KMEANS_DIMS(16)
#undef GSTM_KMEANS_DIMS
      default:
        assign_shared(a, points, cent, acc, cost);
    }
  }
  atomicAdd(&block_cost, cost);
  __syncthreads();
  double* mine = a.partials + static_cast<size_t>(blockIdx.x) * k * record;
  for (uint32_t i = threadIdx.x; i < k * record; i += blockDim.x) mine[i] = acc[i];
  if (threadIdx.x == 0) a.partial_cost[blockIdx.x] = block_cost;
}

/// Combines the partials in block order, then commits one transaction per (centroid, slice)
/// with points, 32 lanes at a time (different centroids: different records and locks).
template <int CAPACITY>
__device__ __forceinline__ void commit(const StoreView& view, const KMeansArgs& a) {
  extern __shared__ double shared[];
  const uint32_t k = a.k;
  const uint32_t record = a.dims + 1;
  double* acc = shared;  // [k * record]
  for (uint32_t i = threadIdx.x; i < k * record; i += blockDim.x) {
    double v = 0;
    for (uint32_t b = 0; b < a.blocks; ++b) v += a.partials[static_cast<size_t>(b) * k * record + i];
    acc[i] = v;
  }
  __syncthreads();
  if (threadIdx.x >= 32) return;
  ThreadCounters<kAbandonedCount + 1> counters;
  uint32_t transactions = 0;
  const uint32_t lane = threadIdx.x;
  const uint32_t slices = (record + CAPACITY - 1) / CAPACITY;
  const uint32_t pairs = k * slices;
  for (uint32_t step = 0; step < pairs; step += 32) {
    const uint32_t pair = step + lane;
    const uint32_t c = pair / slices;
    const uint32_t w0 = (pair % slices) * CAPACITY;
    bool pending = pair < pairs && acc[c * record] != 0;
    if (pending) ++transactions;
    uint32_t conflicts = 0;
    while (__any_sync(0xffffffffu, pending)) {
      if (pending) {
        PrStmTx<CAPACITY> tx(view, priority::ordinary(lane));
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
            __nanosleep(64u << min(conflicts, 7u));
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
  if (lane == 0) {
    if (transactions) {
      atomicAdd(a.stats + kTransactions, static_cast<unsigned long long>(transactions));
    }
    double total = 0;
    for (uint32_t b = 0; b < a.blocks; ++b) total += a.partial_cost[b];
    atomicAdd(a.cost, total);
  }
}

}  // namespace gstm::kmeans_update

/// @brief Assignment and per-block sums (first launch). Dynamic shared memory:
///        (k * dims + k * (dims + 1)) doubles. Launch whole warps, at most 512 threads.
/// @param view the store (points read-only)
/// @param args centroids, scratch and sizes
extern "C" __global__ void __launch_bounds__(512, 1) gstm_kmeans_assign(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::kmeans_update::KMeansArgs args) {
  gstm::kmeans_update::assign(view, args);
}

/// @brief The transactions (second launch, one block): partials combined in block order, then
///        one transaction per (centroid, record slice of at most 16 words). Dynamic shared
///        memory: k * (dims + 1) doubles.
/// @param view the store (accumulators transactional)
/// @param args outputs and sizes
extern "C" __global__ void __launch_bounds__(512, 1) gstm_kmeans_commit_s16(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::kmeans_update::KMeansArgs args) {
  gstm::kmeans_update::commit<16>(view, args);
}
