/// @file lock_word.cuh
/// @brief PR-STM's lock word, widened to 64 bits (see ARCHITECTURE.md):
///        [63:32] version, [31:2] owner (thread priority, lower wins), [1] pre-locked, [0] locked.
///
/// The paper's 11-bit version wraps after 2048 commits, an ABA hazard at a billion commits a
/// second; a 32-bit version does not wrap within any batch. A 64-bit CAS costs the same.
#pragma once
#include <cstdint>

namespace gstm::lock_word {

using word_t = unsigned long long;

constexpr uint32_t kOwnerBits = 30;
constexpr uint32_t kMaxOwner = (1u << kOwnerBits) - 1;
constexpr word_t kLockedBit = 1ull;
constexpr word_t kPreLockedBit = 2ull;

__host__ __device__ constexpr uint32_t version(word_t w) { return static_cast<uint32_t>(w >> 32); }
__host__ __device__ constexpr uint32_t owner(word_t w) {
  return static_cast<uint32_t>(w >> 2) & kMaxOwner;
}
__host__ __device__ constexpr bool locked(word_t w) { return (w & kLockedBit) != 0; }
__host__ __device__ constexpr bool pre_locked(word_t w) { return (w & kPreLockedBit) != 0; }

__host__ __device__ constexpr word_t unlocked(uint32_t version) {
  return static_cast<word_t>(version) << 32;
}
__host__ __device__ constexpr word_t pre_locked_by(uint32_t version, uint32_t owner) {
  return unlocked(version) | (static_cast<word_t>(owner) << 2) | kPreLockedBit;
}
__host__ __device__ constexpr word_t locked_by(uint32_t version, uint32_t owner) {
  return unlocked(version) | (static_cast<word_t>(owner) << 2) | kLockedBit;
}

}  // namespace gstm::lock_word
