/// @file semantic_bank.cu
/// @brief Bank batches under the semantic contention manager (deposits, withdrawals, checked
///        transfers), one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/bank.cuh"

#define GSTM_SEMANTIC_BANK(CAP, MIN_BLOCKS)                                                    \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_semantic_bank_s##CAP(   \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::TxTable tab, \
      const __grid_constant__ gstm::SemanticOut out) {                                         \
    gstm::run_semantic<gstm::bank::Ops<CAP>, CAP>(view, tab, out);                                  \
  }

/// @brief Semantic bank batch with sets of at most 2, 4, 8 or 16 entries.
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_BANK(2, 2)
GSTM_SEMANTIC_BANK(4, 2)
GSTM_SEMANTIC_BANK(8, 2)
GSTM_SEMANTIC_BANK(16, 1)
