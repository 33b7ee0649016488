/// @file graph_relax.cu
/// @brief Device-resident frontier rounds of graph relaxation (shortest paths, components) with
///        PR-STM transactions. Host twin: io.gstm.core.cuda.CudaGraphRelax.
///
/// One round is one launch over a queue of work items (vertex u, first edge of a chunk of at
/// most CAPACITY - 1 of its out-edges). A thread first filters its chunk with plain loads:
/// values only ever decrease, so an edge whose candidate is not below the target's current value
/// can never improve it, and such edges stay out of the transaction. If any edge is left, one
/// transaction reads value(u) and those targets' values and writes the improved ones. A vertex
/// improved in a round is stamped once and its chunks are appended to the next round's queue.
/// CSR offsets, targets and weights are read-only regions of the store: plain loads, no locks.
#include <cstdint>

#include "gstm/batch.cuh"
#include "gstm/prstm.cuh"
#include "gstm/store_view.cuh"

namespace gstm::graph_relax {

enum Stat : int { kTransactions = 0, kRelaxations = 1, kImproved = 2, kStatCount = 3 };

/// The launch arguments of one round; the host packs this byte for byte.
struct RelaxArgs {
  const int2* in;            ///< [in_count] work items (u, first edge)
  int2* out;                 ///< next round's work items
  uint32_t* out_count;       ///< next round's item count (zeroed by the host)
  uint32_t* stamps;          ///< [vertices] the last stamp that queued each vertex
  unsigned long long* counters;  ///< [kCounterCount]
  unsigned long long* stats;     ///< [kStatCount]
  uint32_t in_count;
  uint32_t stamp;            ///< this round's stamp, unique across rounds and calls
  uint32_t values_region;
  uint32_t targets_region;
  uint32_t weights_region;
  uint32_t offsets_region;
  uint32_t components;       ///< 1: label propagation, 0: shortest paths
  uint32_t weighted;         ///< shortest paths with stored weights (else weight 1)
  uint32_t max_retries;      ///< concurrency aborts before the chunk is retried next round
  uint32_t pad;
};
static_assert(sizeof(RelaxArgs) == 88, "host packer assumes 88 bytes");

__device__ __forceinline__ double as_double(uint64_t bits) {
  return __longlong_as_double(static_cast<long long>(bits));
}
__device__ __forceinline__ uint64_t as_bits(double v) {
  return static_cast<uint64_t>(__double_as_longlong(v));
}

/// Queues every chunk of vertex v for the next round, once per round; true if it queued.
template <int CHUNK>
__device__ __forceinline__ bool enqueue(const RelaxArgs& a, const int32_t* offsets, uint32_t v) {
  if (atomicExch(a.stamps + v, a.stamp) == a.stamp) return false;
  const int32_t begin = __ldg(offsets + v);
  const int32_t end = __ldg(offsets + v + 1);
  const uint32_t chunks = static_cast<uint32_t>(end - begin + CHUNK - 1) / CHUNK;
  if (chunks == 0) return true;
  const uint32_t at = atomicAdd(a.out_count, chunks);
  for (uint32_t j = 0; j < chunks; ++j) {
    a.out[at + j] = make_int2(static_cast<int>(v), begin + static_cast<int>(j) * CHUNK);
  }
  return true;
}

template <int CAPACITY>
__device__ __forceinline__ void relax_round(const StoreView& view, const RelaxArgs& a) {
  constexpr int kChunk = CAPACITY - 1;
  const int32_t* offsets = static_cast<const int32_t*>(view.regions[a.offsets_region].base);
  const int32_t* targets = static_cast<const int32_t*>(view.regions[a.targets_region].base);
  const double* weights = static_cast<const double*>(view.regions[a.weights_region].base);
  const unsigned long long* values =
      static_cast<const unsigned long long*>(view.regions[a.values_region].base);
  ThreadCounters<kAbandonedCount + 1> counters;
  uint32_t transactions = 0;
  uint32_t relaxations = 0;
  uint32_t improved = 0;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t stride = gridDim.x * blockDim.x;
  // Warp-uniform loop: every lane of a warp runs the same iterations, so the retry rounds
  // below can use whole-warp votes.
  for (uint32_t i0 = self - lane; i0 < a.in_count; i0 += stride) {
    const uint32_t i = i0 + lane;
    uint32_t u = 0;
    int32_t e0 = 0;
    int count = 0;
    uint32_t mask = 0;
    if (i < a.in_count) {
      const int2 item = a.in[i];
      u = static_cast<uint32_t>(item.x);
      e0 = item.y;
      count = min(kChunk, __ldg(offsets + u + 1) - e0);
      relaxations += static_cast<uint32_t>(count);
      const double du = as_double(mem::load_relaxed(values + u));
#pragma unroll
      for (int j = 0; j < kChunk; ++j) {
        if (j < count) {
          const uint32_t v = static_cast<uint32_t>(__ldg(targets + e0 + j));
          const double w = a.components ? 0.0 : (a.weighted ? __ldg(weights + e0 + j) : 1.0);
          const double dv = as_double(mem::load_relaxed(values + v));
          mask |= (du + w < dv) ? (1u << j) : 0u;
        }
      }
    }
    bool pending = mask != 0;
    if (pending) ++transactions;
    uint32_t conflicts = 0;
    while (__any_sync(0xffffffffu, pending)) {
      if (pending) {
        // No pre-locks on what is only read: the chunks of one vertex (up to a warp of them,
        // queued together) all read its value and would otherwise refuse one another.
        PrStmTx<CAPACITY, false> tx(view, priority::ordinary(self));
        const double du = as_double(tx.read(a.values_region, u));
        uint32_t wrote = 0;
#pragma unroll
        for (int j = 0; j < kChunk; ++j) {
          if ((mask >> j) & 1u) {
            const uint32_t v = static_cast<uint32_t>(__ldg(targets + e0 + j));
            const double w = a.components ? 0.0 : (a.weighted ? __ldg(weights + e0 + j) : 1.0);
            const double candidate = du + w;
            const double dv = as_double(tx.read(a.values_region, v));
            if (candidate < dv) {
              tx.write(a.values_region, v, as_bits(candidate));
              wrote |= 1u << j;
            }
          }
        }
        if (tx.commit()) {
          ++counters.c[kCommits];
          if (tx.read_only()) ++counters.c[kReadOnlyCommits];
#pragma unroll
          for (int j = 0; j < kChunk; ++j) {
            if ((wrote >> j) & 1u) {
              const uint32_t v = static_cast<uint32_t>(__ldg(targets + e0 + j));
              if (enqueue<kChunk>(a, offsets, v)) ++improved;
            }
          }
          pending = false;
        } else {
          counters.add(tx.abort_cause());
          if (++conflicts >= a.max_retries) {
            // Give up for this round; the vertex's chunks run again in the next one.
            ++counters.c[kAbandonedCount];
            enqueue<kChunk>(a, offsets, u);
            pending = false;
          } else {
            // Values only decrease: drop the edges that a commit since our filter has made
            // useless (their target is already at or below the candidate). What is left is a
            // smaller write set and fewer hub locks; if nothing is left the chunk is done (u
            // is queued again by whoever lowers it).
            const double du_now = as_double(mem::load_relaxed(values + u));
#pragma unroll
            for (int j = 0; j < kChunk; ++j) {
              if ((mask >> j) & 1u) {
                const uint32_t v = static_cast<uint32_t>(__ldg(targets + e0 + j));
                const double w =
                    a.components ? 0.0 : (a.weighted ? __ldg(weights + e0 + j) : 1.0);
                if (!(du_now + w < as_double(mem::load_relaxed(values + v)))) mask &= ~(1u << j);
              }
            }
            pending = mask != 0;
            // Randomised exponential backoff from the first abort.
            const uint32_t cap = 64u << min(conflicts, 7u);
            if (pending) __nanosleep(cap / 2 + (((self + conflicts) * 2654435761u) >> 16) % (cap / 2));
          }
        }
      }
      __syncwarp();
    }
  }
  counters.flush_to(a.counters);
  // Stats: a warp reduction, then one atomic per warp.
  for (int off = 16; off > 0; off >>= 1) {
    transactions += __shfl_down_sync(0xffffffffu, transactions, off);
    relaxations += __shfl_down_sync(0xffffffffu, relaxations, off);
    improved += __shfl_down_sync(0xffffffffu, improved, off);
  }
  if (lane == 0) {
    if (transactions) atomicAdd(a.stats + kTransactions, static_cast<unsigned long long>(transactions));
    if (relaxations) atomicAdd(a.stats + kRelaxations, static_cast<unsigned long long>(relaxations));
    if (improved) atomicAdd(a.stats + kImproved, static_cast<unsigned long long>(improved));
  }
}

}  // namespace gstm::graph_relax

#define GSTM_GRAPH_RELAX(CAP, MIN_BLOCKS)                                                    \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_graph_relax_round_s##CAP( \
      const __grid_constant__ gstm::StoreView view,                                          \
      const __grid_constant__ gstm::graph_relax::RelaxArgs args) {                           \
    gstm::graph_relax::relax_round<CAP>(view, args);                                         \
  }

/// @brief One frontier round of graph relaxation; chunks of CAP - 1 edges per transaction.
///        Launch with a multiple of 32 threads per block (whole warps vote on retries).
/// @param view the store (values transactional; offsets, targets, weights read-only)
/// @param args queues, stamps, counters and the round's settings

GSTM_GRAPH_RELAX(16, 2)
