/// @file semantic_producer_consumer.cu
/// @brief Producer-consumer batches (puts and takes on one bounded buffer) under the semantic
///        contention manager, one kernel per set capacity. A transaction touches at most 4 locks:
///        the engine rejects capacity 2 before launch (the kernel exists so that every workload
///        has the same symbols), and capacity 4 is what ProducerConsumerConfig uses. Sets of 8
///        and 16 hold 64-bit values of three regions and need more than 128 registers: s8 is
///        bounded to one block per SM so that it does not spill.
#include "gstm/semantic.cuh"
#include "gstm/workloads/producer_consumer.cuh"

/// @brief Semantic producer-consumer batch with sets of at most 2, 4, 8 or 16 entries.
/// @param view the store; @param tab the transaction table; @param out outcomes and counters
GSTM_SEMANTIC_KERNEL(producer_consumer, pc, 2, 2)
GSTM_SEMANTIC_KERNEL(producer_consumer, pc, 4, 2)
GSTM_SEMANTIC_KERNEL(producer_consumer, pc, 8, 1)
GSTM_SEMANTIC_KERNEL(producer_consumer, pc, 16, 1)
