/// @file semantic_graph_relax.cu
/// @brief Graph relaxation batches (a chunk of one vertex's out-edges per transaction)
///        under the semantic contention manager, one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/graph_relax.cuh"

#define GSTM_SEMANTIC_GRAPH_RELAX(CAP, MIN_BLOCKS)                                                \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_semantic_graph_relax_s##CAP( \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::TxTable tab,  \
      const __grid_constant__ gstm::SemanticOut out) {                                          \
    gstm::run_semantic<gstm::graph_relax::Ops<CAP>, CAP>(view, tab, out);                          \
  }

/// @brief Semantic graph relax batch with sets of at most 2, 4, 8 or 16 entries (a transaction
///        needs its edge count + 1).
///        Two blocks of 256 per SM up to capacity 4, one above (spill-free in the ptxas report).
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_GRAPH_RELAX(2, 2)
GSTM_SEMANTIC_GRAPH_RELAX(4, 2)
GSTM_SEMANTIC_GRAPH_RELAX(8, 1)
GSTM_SEMANTIC_GRAPH_RELAX(16, 1)
