/// @file graph_relax.cuh
/// @brief Graph relaxation (shortest paths, connected components) over a CSR graph in the store.
///        io.gstm.core.workload.graph.GraphRelaxWorkload is the JVM twin; keep the two in step.
#pragma once
#include <cstdint>

#include "gstm/semantic.cuh"

namespace gstm::graph_relax {

enum Type : uint32_t { kShortestPaths = 0, kComponents = 1 };

/// Parameter slots of the TxTable: {valuesRegion, targetsRegion, weightsRegion, weighted}.
enum Param : int { kValuesRegion = 0, kTargetsRegion = 1, kWeightsRegion = 2, kWeighted = 3 };

__device__ __forceinline__ double as_double(uint64_t bits) {
  return __longlong_as_double(static_cast<long long>(bits));
}
__device__ __forceinline__ uint64_t as_bits(double v) {
  return static_cast<uint64_t>(__double_as_longlong(v));
}

/// One transaction relaxes a chunk of one vertex's out-edges. Column 0 is the vertex u,
/// column 1 the chunk's first edge, column 2 its edge count (at most CAPACITY - 1, checked by
/// the host). Reads value(u); for every edge u -> v reads value(v) and writes the candidate
/// (value(u) + w, or value(u) for components) when it is smaller. Edge targets and weights are
/// read-only (read_shared).
template <int CAPACITY>
struct Ops {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const TxTable& tab, uint32_t t,
                                                  uint32_t type) {
    const uint32_t values = static_cast<uint32_t>(tab.params[kValuesRegion]);
    const uint32_t targets = static_cast<uint32_t>(tab.params[kTargetsRegion]);
    const uint32_t weights = static_cast<uint32_t>(tab.params[kWeightsRegion]);
    const bool weighted = tab.params[kWeighted] != 0;
    const uint32_t u = static_cast<uint32_t>(tab.col(0, t));
    const uint32_t first = static_cast<uint32_t>(tab.col(1, t));
    const int count = tab.col(2, t);
    const double du = as_double(tx.read(values, u));
#pragma unroll
    for (int i = 0; i < CAPACITY - 1; ++i) {
      if (i < count) {
        const uint32_t e = first + i;
        const uint32_t v = static_cast<uint32_t>(tx.read_shared(targets, e));
        double candidate = du;
        if (type == kShortestPaths) candidate += weighted ? as_double(tx.read_shared(weights, e)) : 1.0;
        const double dv = as_double(tx.read(values, v));
        if (candidate < dv) tx.write(values, v, as_bits(candidate));
      }
    }
    return 0;
  }
};

}  // namespace gstm::graph_relax
