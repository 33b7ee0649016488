/// @file memcached.cuh
/// @brief MemcachedGPU-style cache: sets of `ways` slots, LRU per set. Twin of
///        io.gstm.core.workload.memcached.MemcachedWorkload; keep the two in step.
#pragma once
#include <cstdint>

namespace gstm::memcached {

enum Type : uint32_t { kGet = 0, kPut = 1 };
enum Region : uint32_t { kTags = 0, kValues = 1, kLru = 2, kClock = 3 };

__device__ __forceinline__ uint32_t set_of(uint32_t key, uint32_t sets) {
  return static_cast<uint32_t>((static_cast<uint64_t>(key) * 2654435761ull) & 0xffffffffull) %
         sets;
}

/// Bodies over a table with columns {key, value stamp} and params {sets, ways}.
struct Ops {
  template <class Args>
  __device__ __forceinline__ static bool read_only(const Args&, uint32_t type) {
    return type == kGet;
  }

  template <class Tx, class Table>
  __device__ __forceinline__ static long long run(Tx& tx, const Table& tab, uint32_t t,
                                                  uint32_t type) {
    const uint32_t sets = static_cast<uint32_t>(tab.params[0]);
    const uint32_t ways = static_cast<uint32_t>(tab.params[1]);
    const int32_t key = tab.col(0, t);
    const uint32_t set = set_of(static_cast<uint32_t>(key), sets);
    const uint32_t base = set * ways;
    int hit = -1, empty = -1;
    for (uint32_t w = 0; w < ways && hit < 0; ++w) {
      const int32_t tag = static_cast<int32_t>(tx.read(kTags, base + w));
      if (!tx.ok()) return 0;
      if (tag == key + 1) hit = static_cast<int>(w);
      else if (tag == 0 && empty < 0) empty = static_cast<int>(w);
    }
    if (type == kGet) {
      if (hit < 0) return -1;
      return static_cast<int32_t>(tx.read(kValues, base + hit));
    }
    int slot = hit >= 0 ? hit : empty;
    if (slot < 0) {
      int32_t oldest = 0x7fffffff;
      for (uint32_t w = 0; w < ways; ++w) {
        const int32_t tick = static_cast<int32_t>(tx.read(kLru, base + w));
        if (!tx.ok()) return 0;
        if (tick < oldest) { oldest = tick; slot = static_cast<int>(w); }
      }
    }
    const int32_t tick = static_cast<int32_t>(tx.read(kClock, set)) + 1;
    tx.write(kClock, set, static_cast<uint32_t>(tick));
    tx.write(kTags, base + slot, static_cast<uint32_t>(key + 1));
    tx.write(kValues, base + slot, static_cast<uint32_t>(tab.col(1, t)));
    tx.write(kLru, base + slot, static_cast<uint32_t>(tick));
    return 0;
  }
};

}  // namespace gstm::memcached
