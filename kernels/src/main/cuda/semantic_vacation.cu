/// @file semantic_vacation.cu
/// @brief Vacation batches (bookings and cancellations) under the semantic contention manager,
///        one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/vacation.cuh"

/// @brief Semantic vacation batch with sets of at most 2, 4, 8 or 16 entries (a vacation
///        transaction needs 2). Two blocks of 256 per SM at every capacity: ptxas fits each in
///        128 registers with no stack frame and no spills (three blocks spill at capacity 2).
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_KERNEL(vacation, vacation, 2, 2)
GSTM_SEMANTIC_KERNEL(vacation, vacation, 4, 2)
GSTM_SEMANTIC_KERNEL(vacation, vacation, 8, 2)
GSTM_SEMANTIC_KERNEL(vacation, vacation, 16, 2)
