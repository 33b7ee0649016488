/// @file semantic_bank.cu
/// @brief Bank batches under the semantic contention manager (deposits, withdrawals, checked
///        transfers), one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/bank.cuh"

/// @brief Semantic bank batch with sets of at most 2, 4, 8 or 16 entries.
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_KERNEL(bank, bank, 2, 2)
GSTM_SEMANTIC_KERNEL(bank, bank, 4, 2)
GSTM_SEMANTIC_KERNEL(bank, bank, 8, 2)
GSTM_SEMANTIC_KERNEL(bank, bank, 16, 1)
