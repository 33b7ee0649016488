/// @file semantic_graph_relax.cu
/// @brief Graph relaxation batches (a chunk of one vertex's out-edges per transaction)
///        under the semantic contention manager, one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/graph_relax.cuh"

/// @brief Semantic graph relax batch with sets of at most 2, 4, 8 or 16 entries (a transaction
///        needs its edge count + 1).
///        Two blocks of 256 per SM up to capacity 4, one above (spill-free in the ptxas report).
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_KERNEL(graph_relax, graph_relax, 2, 2)
GSTM_SEMANTIC_KERNEL(graph_relax, graph_relax, 4, 2)
GSTM_SEMANTIC_KERNEL(graph_relax, graph_relax, 8, 1)
GSTM_SEMANTIC_KERNEL(graph_relax, graph_relax, 16, 1)
