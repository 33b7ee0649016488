/// @file semantic_kmeans.cu
/// @brief K-means accumulator batches (one block of points for one centroid per
///        transaction) under the semantic contention manager, one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/kmeans.cuh"

/// @brief Semantic kmeans batch with sets of at most 2, 4, 8 or 16 entries (a transaction
///        needs min(dims + 1, 16)).
///        Two blocks of 256 per SM up to capacity 8, one at 16 (spill-free in the ptxas report).
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_KERNEL(kmeans, kmeans, 2, 2)
GSTM_SEMANTIC_KERNEL(kmeans, kmeans, 4, 2)
GSTM_SEMANTIC_KERNEL(kmeans, kmeans, 8, 2)
GSTM_SEMANTIC_KERNEL(kmeans, kmeans, 16, 1)
