/// @file store_view.cuh
/// @brief Trivially copyable device view of a TxStore: typed regions plus one global lock table.
///
/// The host packs this struct byte for byte (io.gstm.core.cuda.KernelStructs#storeView); keep the
/// two in step. It is passed to kernels by value.
#pragma once
#include <cstdint>

#include "gstm/memory.cuh"

namespace gstm {

/// Region element types; the code is what the host sends.
enum RegionType : uint32_t { kInt32 = 0, kInt64 = 1, kFloat32 = 2, kFloat64 = 3 };

constexpr int kMaxRegions = 8;

/// One typed region: `words` elements of `word_bytes` (4 or 8) bytes at `base`, covered by locks
/// `lock_base .. lock_base + ceil(words / coverage) - 1` of the global lock table.
struct RegionView {
  void* base;
  uint32_t words;
  uint32_t word_bytes;
  uint32_t lock_base;
  uint32_t coverage;
};

struct StoreView {
  unsigned long long* locks;
  uint32_t lock_count;
  uint32_t region_count;
  RegionView regions[kMaxRegions];

  /// Word `index`'s lock. One lock a word (the default coverage) skips the division: an unsigned
  /// division is about twenty instructions, and a program's transaction asks this at each of its
  /// reads and writes.
  __device__ __forceinline__ uint32_t lock_of(uint32_t region, uint32_t index) const {
    const uint32_t coverage = regions[region].coverage;
    return regions[region].lock_base + (coverage == 1 ? index : index / coverage);
  }

  /// Word `index` of `region` as raw bits (a 32-bit word sign-extended), a relaxed load: what
  /// every transaction type reads once it has checked the word's lock (or, for a look, not).
  __device__ __forceinline__ uint64_t load_word(uint32_t region, uint32_t index) const {
    const RegionView& r = regions[region];
    if (r.word_bytes == 4) {
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(
          mem::load_relaxed(static_cast<const uint32_t*>(r.base) + index))));
    }
    return mem::load_relaxed(static_cast<const unsigned long long*>(r.base) + index);
  }

  /// Stores raw bits to word `index` of `region` (the low 32 bits to a 32-bit word), relaxed.
  __device__ __forceinline__ void store_word(uint32_t region, uint32_t index,
                                             uint64_t bits) const {
    const RegionView& r = regions[region];
    if (r.word_bytes == 4) {
      mem::store_relaxed(static_cast<uint32_t*>(r.base) + index, static_cast<uint32_t>(bits));
    } else {
      mem::store_relaxed(static_cast<unsigned long long*>(r.base) + index, bits);
    }
  }
};

static_assert(sizeof(RegionView) == 24, "host packer assumes 24-byte regions");
static_assert(sizeof(StoreView) == 16 + 24 * kMaxRegions, "host packer assumes this layout");

}  // namespace gstm
