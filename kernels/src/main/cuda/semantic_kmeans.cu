/// @file semantic_kmeans.cu
/// @brief K-means accumulator batches (one block of points for one centroid per
///        transaction) under the semantic contention manager, one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/kmeans.cuh"

#define GSTM_SEMANTIC_KMEANS(CAP, MIN_BLOCKS)                                                \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_semantic_kmeans_s##CAP( \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::TxTable tab,  \
      const __grid_constant__ gstm::SemanticOut out) {                                          \
    gstm::run_semantic<gstm::kmeans::Ops<CAP>, CAP>(view, tab, out);                          \
  }

/// @brief Semantic kmeans batch with sets of at most 2, 4, 8 or 16 entries (a transaction
///        needs min(dims + 1, 16)).
///        Two blocks of 256 per SM up to capacity 8, one at 16 (spill-free in the ptxas report).
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_KMEANS(2, 2)
GSTM_SEMANTIC_KMEANS(4, 2)
GSTM_SEMANTIC_KMEANS(8, 2)
GSTM_SEMANTIC_KMEANS(16, 1)
