/// @file graph_components.cu
/// @brief Connected components of a symmetric graph by concurrent union-find, for a run whose
///        frontier holds every vertex with edges. Host twin: io.gstm.core.cuda.CudaComponents.
///
/// Label propagation from every vertex ends, on a symmetric graph, with each vertex holding the
/// lowest starting value of its component: the same fixpoint as finding the components and
/// writing each one's lowest value. Rounds of propagation touch every edge once a round and run
/// a transaction per edge that may improve its target; union-find touches most edges never:
///
/// 1. Every vertex links to its first two neighbours in the CSR, one kernel per neighbour
///    index, and the forest is compressed (each vertex to its root).
/// 2. The host samples a few hundred roots and takes the most common: on a graph with a giant
///    component (R-MAT, a social network) nearly every vertex is in it.
/// 3. Every vertex whose root is not that one links to the rest of its neighbours (a warp per
///    vertex, lanes over the edges). A vertex of the common component may skip its edges: an
///    edge to a vertex outside it is linked from that vertex's side (the graph is symmetric),
///    and an edge inside it joins what is joined already.
/// 4. Compressed again, each root takes the lowest value of its vertices (a warp's lanes of one
///    root reduce first), and each vertex whose value is above its component's is lowered in one
///    PR-STM transaction, as a relaxation's commit would, with its bit set in `changed`.
///
/// Links hook the root of the higher id under the root of the lower one with one CAS, so every
/// parent pointer points to a lower id (no cycles) and a failed CAS means the root moved:
/// both sides are found again. Finds halve their paths with plain stores, which only ever point
/// a vertex at one of its ancestors, whatever else runs (the forest only grows).
#include <cstdint>

#include "gstm/batch.cuh"
#include "gstm/prstm.cuh"
#include "gstm/store_view.cuh"

namespace gstm::components {

enum Stat : int { kTransactions = 0, kRelaxations = 1, kImproved = 2 };

/// The arguments of every kernel of a run; the host packs this byte for byte.
struct ComponentsArgs {
  const int32_t* offsets;    ///< [vertices + 1] CSR offsets
  const int32_t* targets;    ///< CSR targets
  uint32_t* parent;          ///< [vertices] the union-find forest
  unsigned long long* min_keys;  ///< [vertices] a root's lowest value, as an ordered key
  uint32_t* samples;         ///< [sample_count] roots of sampled vertices
  uint32_t* changed;         ///< [ceil(vertices / 32)] bit v set when v is lowered
  unsigned long long* counters;  ///< [kCounterCount]
  unsigned long long* stats;     ///< [3] as graph_relax's Stat
  uint32_t vertices;
  uint32_t values_region;
  uint32_t neighbour;        ///< link_one: the neighbour index; link_rest: the first index
  uint32_t skip;             ///< link_rest: the root whose vertices skip their edges
  uint32_t sample_count;
  uint32_t pad;
};
static_assert(sizeof(ComponentsArgs) == 88, "host packer assumes 88 bytes");

__device__ __forceinline__ uint32_t load(const uint32_t* p) {
  return *reinterpret_cast<const volatile uint32_t*>(p);
}

/// v's root, halving the path on the way.
__device__ __forceinline__ uint32_t find(uint32_t* parent, uint32_t v) {
  for (;;) {
    const uint32_t p = load(parent + v);
    if (p == v) return v;
    const uint32_t gp = load(parent + p);
    if (gp == p) return p;
    *reinterpret_cast<volatile uint32_t*>(parent + v) = gp;
    v = gp;
  }
}

/// Joins the trees of u and v: the higher root goes under the lower.
__device__ __forceinline__ void link(uint32_t* parent, uint32_t u, uint32_t v) {
  uint32_t a = find(parent, u);
  uint32_t b = find(parent, v);
  while (a != b) {
    const uint32_t hi = max(a, b);
    const uint32_t lo = min(a, b);
    const uint32_t old = atomicCAS(parent + hi, hi, lo);
    if (old == hi) return;
    a = find(parent, old);
    b = find(parent, lo);
  }
}

/// A double's bits as a key that orders as the doubles do (-0 just below +0; no NaN here).
__device__ __forceinline__ unsigned long long key_of(unsigned long long bits) {
  return (bits >> 63) ? ~bits : bits | (1ull << 63);
}
__device__ __forceinline__ unsigned long long bits_of(unsigned long long key) {
  return (key >> 63) ? key & ~(1ull << 63) : ~key;
}

__device__ __forceinline__ const unsigned long long* values_of(const StoreView& view,
                                                               const ComponentsArgs& a) {
  return static_cast<const unsigned long long*>(view.regions[a.values_region].base);
}

/// Adds n to stats[s] once per warp. Every lane of the warp calls this.
__device__ __forceinline__ void add_stat(const ComponentsArgs& a, int s, uint32_t n) {
  for (int off = 16; off > 0; off >>= 1) n += __shfl_down_sync(0xffffffffu, n, off);
  if ((threadIdx.x & 31u) == 0 && n != 0) {
    atomicAdd(a.stats + s, static_cast<unsigned long long>(n));
  }
}

}  // namespace gstm::components

using gstm::components::ComponentsArgs;

/// @brief Each vertex its own tree, and its value as its tree's lowest so far.
///        Launch a thread per vertex (whole warps).
extern "C" __global__ void __launch_bounds__(256) gstm_components_init(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.vertices) return;
  a.parent[v] = v;
  a.min_keys[v] = gstm::components::key_of(gstm::components::values_of(view, a)[v]);
}

/// @brief Links each vertex with its neighbour number a.neighbour, if it has one.
///        Launch a thread per vertex (whole warps).
extern "C" __global__ void __launch_bounds__(256) gstm_components_link_one(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t linked = 0;
  if (v < a.vertices) {
    const int32_t e = __ldg(a.offsets + v) + static_cast<int32_t>(a.neighbour);
    if (e < __ldg(a.offsets + v + 1)) {
      gstm::components::link(a.parent, v, static_cast<uint32_t>(__ldg(a.targets + e)));
      linked = 1;
    }
  }
  gstm::components::add_stat(a, gstm::components::kRelaxations, linked);
}

/// @brief Points every vertex at its root. Launch a thread per vertex (whole warps).
///        Between links only: the roots stay put. A thread walks up with loads alone and writes
///        only its own vertex's parent: find's path halving writes other vertices' parents, and
///        a stale one of those, landing after that vertex's own thread wrote its root, would
///        leave it pointing below the root, which the kernels after the last compress take
///        parent[v] to be.
extern "C" __global__ void __launch_bounds__(256) gstm_components_compress(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= a.vertices) return;
  uint32_t r = v;
  for (uint32_t p = gstm::components::load(a.parent + r); p != r;
       p = gstm::components::load(a.parent + r)) {
    r = p;
  }
  a.parent[v] = r;
}

/// @brief The roots of a.sample_count vertices spread over the graph (a multiplicative hash of
///        the sample's index), after a compress. Launch a thread per sample.
extern "C" __global__ void __launch_bounds__(256) gstm_components_sample(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.sample_count) return;
  const uint32_t v = static_cast<uint32_t>(
      (static_cast<unsigned long long>(i * 2654435761u) * a.vertices) >> 32);
  a.samples[i] = gstm::components::find(a.parent, v);
}

/// @brief Links every vertex whose root is not a.skip with its neighbours from number
///        a.neighbour on: a lane per vertex finds whether it takes part, then the warp runs
///        each such vertex's edges together (coalesced loads of its targets).
///        Launch a thread per vertex (whole warps).
extern "C" __global__ void __launch_bounds__(256) gstm_components_link_rest(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31u;
  int32_t begin = 0;
  int32_t end = 0;
  if (v < a.vertices) {
    begin = __ldg(a.offsets + v) + static_cast<int32_t>(a.neighbour);
    end = __ldg(a.offsets + v + 1);
    if (begin < end && gstm::components::find(a.parent, v) == a.skip) end = begin;
  }
  uint32_t linked = 0;
  for (uint32_t todo = __ballot_sync(0xffffffffu, begin < end); todo != 0; todo &= todo - 1) {
    const int k = __ffs(todo) - 1;
    const uint32_t u = __shfl_sync(0xffffffffu, v, k);
    const int32_t b = __shfl_sync(0xffffffffu, begin, k);
    const int32_t e = __shfl_sync(0xffffffffu, end, k);
    for (int32_t i = b + static_cast<int32_t>(lane); i < e; i += 32) {
      gstm::components::link(a.parent, u, static_cast<uint32_t>(__ldg(a.targets + i)));
      ++linked;
    }
  }
  gstm::components::add_stat(a, gstm::components::kRelaxations, linked);
}

/// @brief Lowers each root's key to the lowest of its vertices' (after a compress: parent is
///        the root). The lanes of a warp with the same root reduce first, and a key not below
///        the root's current one takes no atomic. Launch a thread per vertex (whole warps).
extern "C" __global__ void __launch_bounds__(256) gstm_components_lowest(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  const bool in = v < a.vertices;
  const uint32_t root = in ? a.parent[v] : ~0u;
  unsigned long long key = in ? a.min_keys[v] : ~0ull;
  const uint32_t same = __match_any_sync(0xffffffffu, root);
  for (uint32_t others = same; others != 0; others &= others - 1) {
    key = min(key, __shfl_sync(same, key, __ffs(others) - 1));
  }
  const bool leader = (threadIdx.x & 31u) == static_cast<uint32_t>(__ffs(same) - 1);
  if (in && leader && key < gstm::mem::load_relaxed(a.min_keys + root)) {
    atomicMin(a.min_keys + root, key);
  }
}

/// @brief Writes each vertex its component's lowest value where that is below its own: one
///        PR-STM transaction per vertex lowered (read and write of its value), retried until it
///        commits (only these writes run, one per vertex). Launch a thread per vertex.
extern "C" __global__ void __launch_bounds__(256) gstm_components_write(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ ComponentsArgs a) {
  namespace cc = gstm::components;
  const uint32_t v = blockIdx.x * blockDim.x + threadIdx.x;
  gstm::ThreadCounters<gstm::kAbandonedCount + 1> counters;
  uint32_t ran = 0;
  uint32_t lowered = 0;
  if (v < a.vertices) {
    const unsigned long long* values = cc::values_of(view, a);
    const unsigned long long lowest = cc::bits_of(a.min_keys[a.parent[v]]);
    const double target = __longlong_as_double(static_cast<long long>(lowest));
    if (target < __longlong_as_double(static_cast<long long>(values[v]))) {
      ran = 1;
      for (uint32_t attempt = 0;; ++attempt) {
        gstm::PrStmTx<1, false> tx(view, gstm::priority::ordinary(v));
        const double now = __longlong_as_double(static_cast<long long>(tx.read(a.values_region, v)));
        const bool lower = target < now;
        if (lower) tx.write(a.values_region, v, lowest);
        if (tx.commit()) {
          ++counters.c[gstm::kCommits];
          if (lower) {
            atomicOr(a.changed + (v >> 5), 1u << (v & 31u));
            lowered = 1;
          }
          break;
        }
        counters.add(tx.abort_cause());
        if (attempt > 0) __nanosleep(64u << min(attempt, 4u));
      }
    }
  }
  counters.flush_to(a.counters);
  cc::add_stat(a, cc::kTransactions, ran);
  cc::add_stat(a, cc::kImproved, lowered);
}
