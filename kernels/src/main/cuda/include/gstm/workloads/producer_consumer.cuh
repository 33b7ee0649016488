/// @file producer_consumer.cuh
/// @brief Producers and consumers over one bounded buffer (the coursework paper's section 4.4
///        test): an INT64 ring buffer and INT32 head/tail counters under one lock table.
///        io.gstm.core.workload.pc.ProducerConsumerWorkload is the JVM twin; keep the two in step.
#pragma once
#include <cstdint>

#include "gstm/semantic.cuh"

namespace gstm::pc {

enum Type : uint32_t { kPut = 0, kTake = 1 };
/// Words of the counters region.
enum Counters : uint32_t { kHead = 0, kTail = 1 };

/// The bodies over a generic table: params {slots region, counters region, taken region,
/// capacity}. A PUT (column 0 producer, column 1 sequence number) reads head and tail; a full
/// buffer is a semantic conflict, else it writes producer << 32 | seq to slots[tail % capacity]
/// and advances the tail. A TAKE (column 0 consumer, column 1 its own word of taken) reads head
/// and tail; an empty buffer is a semantic conflict, else it reads slots[head % capacity],
/// records it in taken[column 1] and advances the head. The modulo is unsigned, so a slot index
/// is in range whatever the counters hold.
template <int CAPACITY>
struct Ops {
  /// Head, tail, a slot and a taken word: the most locks a transaction touches (a runner may
  /// size the sets by it; larger sets only cost registers).
  static constexpr int kMaxSetEntries = 4;

  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const TxTable& tab, uint32_t t,
                                                  uint32_t type) {
    const uint32_t slots = static_cast<uint32_t>(tab.params[0]);
    const uint32_t counters = static_cast<uint32_t>(tab.params[1]);
    const uint32_t taken = static_cast<uint32_t>(tab.params[2]);
    const int32_t capacity = tab.params[3];
    const int32_t head = static_cast<int32_t>(tx.read(counters, kHead));
    const int32_t tail = static_cast<int32_t>(tx.read(counters, kTail));
    // Wrapping 32-bit difference, as Java's int arithmetic.
    const int32_t used = static_cast<int32_t>(static_cast<uint32_t>(tail) -
                                              static_cast<uint32_t>(head));
    const bool put = type == kPut;
    if (put ? used >= capacity : used <= 0) {
      tx.semantic_conflict();  // full, or empty
      return 0;
    }
    // Both types write one item word and advance one counter: one call site each halves the
    // inlined set scans (96 registers instead of 105 at capacity 4, sm_90).
    const int32_t at = put ? tail : head;
    const uint32_t slot = static_cast<uint32_t>(at) % static_cast<uint32_t>(capacity);
    uint64_t item = (static_cast<uint64_t>(static_cast<uint32_t>(tab.col(0, t))) << 32) |
                    static_cast<uint32_t>(tab.col(1, t));
    if (!put) item = tx.read(slots, slot);
    tx.write(put ? slots : taken, put ? slot : static_cast<uint32_t>(tab.col(1, t)), item);
    tx.write(counters, put ? kTail : kHead, static_cast<uint64_t>(static_cast<int64_t>(at + 1)));
    return static_cast<long long>(item);
  }
};

}  // namespace gstm::pc
