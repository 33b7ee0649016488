/// @file semantic_vacation.cu
/// @brief Vacation batches (bookings and cancellations) under the semantic contention manager,
///        one kernel per set capacity.
#include "gstm/semantic.cuh"
#include "gstm/workloads/vacation.cuh"

#define GSTM_SEMANTIC_VACATION(CAP, MIN_BLOCKS)                                                \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_semantic_vacation_s##CAP( \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::TxTable tab,  \
      const __grid_constant__ gstm::SemanticOut out) {                                          \
    gstm::run_semantic<gstm::vacation::Ops<CAP>, CAP>(view, tab, out);                          \
  }

/// @brief Semantic vacation batch with sets of at most 2, 4, 8 or 16 entries (a vacation
///        transaction needs 2). Two blocks of 256 per SM at every capacity: ptxas fits each in
///        128 registers with no stack frame and no spills (three blocks spill at capacity 2).
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_VACATION(2, 2)
GSTM_SEMANTIC_VACATION(4, 2)
GSTM_SEMANTIC_VACATION(8, 2)
GSTM_SEMANTIC_VACATION(16, 2)
