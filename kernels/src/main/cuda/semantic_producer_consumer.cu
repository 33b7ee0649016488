/// @file semantic_producer_consumer.cu
/// @brief Producer-consumer batches (puts and takes on one bounded buffer) under the semantic
///        contention manager, one kernel per set capacity. A transaction touches at most 4 locks:
///        the engine rejects capacity 2 before launch (the kernel exists so that every workload
///        has the same symbols), and capacity 4 is what ProducerConsumerConfig uses. Sets of 8
///        and 16 hold 64-bit values of three regions and need more than 128 registers: s8 is
///        bounded to one block per SM so that it does not spill.
#include "gstm/semantic.cuh"
#include "gstm/workloads/producer_consumer.cuh"

#define GSTM_SEMANTIC_PRODUCER_CONSUMER(CAP, MIN_BLOCKS)                                        \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS)                                 \
      gstm_semantic_producer_consumer_s##CAP(const __grid_constant__ gstm::StoreView view,      \
                                             const __grid_constant__ gstm::TxTable tab,         \
                                             const __grid_constant__ gstm::SemanticOut out) {   \
    gstm::run_semantic<gstm::pc::Ops<CAP>, CAP>(view, tab, out);                                \
  }

/// @brief Semantic producer-consumer batch with sets of at most 2, 4, 8 or 16 entries.
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_PRODUCER_CONSUMER(2, 2)
GSTM_SEMANTIC_PRODUCER_CONSUMER(4, 2)
GSTM_SEMANTIC_PRODUCER_CONSUMER(8, 1)
GSTM_SEMANTIC_PRODUCER_CONSUMER(16, 1)
