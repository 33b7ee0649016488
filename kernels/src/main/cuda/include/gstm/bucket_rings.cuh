/// @file bucket_rings.cuh
/// @brief Priority buckets for asynchronous relaxation: a sliding window of buckets, each a
///        bounded multi-producer, multi-consumer ring of 64-bit items, used by a persistent
///        kernel with no grid-wide barrier (graph_relax.cu's gstm_graph_relax_async).
///
/// A ring's cells carry sequence numbers (D. Vyukov's bounded MPMC queue): the cell at
/// position p is free to write when its sequence reads p, holds an item when it reads p + 1,
/// and is freed for p + capacity by the reader. Producers reserve positions with an atomicAdd
/// on the tail; a consumer takes up to a batch with a CAS on the head, never past the tail,
/// then waits for each cell's item (its producer reserved it and is writing it). Positions
/// grow across runs and wrap at 2^32, which the power-of-two capacity divides.
///
/// The rings hold buckets [cur, cur + slots - 1): bucket b in ring b % slots, one ring left
/// empty so that a ring never holds two buckets at once. Each ring's pending count (items
/// pushed and not yet fully processed, raised before an item becomes visible) tells when the
/// current bucket is done; `live` does the same for all rings, so that an idle worker knows
/// the run has ended. A full ring (a producer that waits past kMaxSpins) sets `abort`, and
/// every worker then leaves: the host starts over from the values (all of them valid upper
/// bounds), so nothing is lost.
#pragma once
#include <cstdint>

#include "gstm/memory.cuh"

namespace gstm::bucket_rings {

/// A 32-bit word per 128-byte line: the counters that every worker polls or bumps must not
/// share lines.
constexpr uint32_t kLine = 32;
/// The control block's words: the current bucket, items live in all rings, why the run gave up
/// (0: it did not), seeding blocks still at work; then each ring's head, tail and pending.
constexpr uint32_t kCur = 0;
constexpr uint32_t kLive = kLine;
constexpr uint32_t kAbort = 2 * kLine;
constexpr uint32_t kSeeding = 3 * kLine;
constexpr uint32_t kRings = 4 * kLine;
constexpr uint32_t kRingWords = 3 * kLine;
constexpr uint32_t kRingHead = 0;
constexpr uint32_t kRingTail = kLine;
constexpr uint32_t kRingPending = 2 * kLine;

constexpr uint32_t kAbortFull = 1;   ///< a ring was full
constexpr uint32_t kAbortLimit = 2;  ///< the bucket limit (the caller's rounds) was reached

/// Waits (of about 64 ns each) for a cell before a ring counts as full: about a quarter second.
constexpr uint32_t kMaxSpins = 1u << 22;

/// The rings of one run.
struct Rings {
  unsigned long long* cells;  ///< [slots * capacity] the items
  uint32_t* seqs;             ///< [slots * capacity] the cells' sequence numbers
  uint32_t* ctl;              ///< the control block (kRings + slots * kRingWords words)
  uint32_t capacity;          ///< cells per ring, a power of two
  uint32_t slots;             ///< rings, at least 2

  __device__ __forceinline__ uint32_t* word(uint32_t ring, uint32_t which) const {
    return ctl + kRings + ring * kRingWords + which;
  }
  __device__ __forceinline__ uint32_t cell(uint32_t ring, uint32_t pos) const {
    return ring * capacity + (pos & (capacity - 1));
  }
  __device__ __forceinline__ bool aborted() const {
    return mem::load_relaxed(ctl + kAbort) != 0;
  }

  /// Reserves up to `want` items of `ring` (one caller per warp); returns how many, the first
  /// position in *pos.
  __device__ __forceinline__ uint32_t take(uint32_t ring, uint32_t want, uint32_t* pos) const {
    uint32_t* head = word(ring, kRingHead);
    uint32_t* tail = word(ring, kRingTail);
    uint32_t h = mem::load_relaxed(head);
    for (;;) {
      const uint32_t avail = mem::load_relaxed(tail) - h;
      if (avail == 0 || avail > 0x80000000u) return 0;
      const uint32_t n = min(want, avail);
      const uint32_t seen = atomicCAS(head, h, h + n);
      if (seen == h) {
        *pos = h;
        return n;
      }
      h = seen;
    }
  }

  /// The item at a reserved position, its cell freed for the next lap; false if the run gave
  /// up while waiting for it.
  __device__ __forceinline__ bool read(uint32_t ring, uint32_t pos,
                                       unsigned long long* item) const {
    const uint32_t i = cell(ring, pos);
    for (uint32_t spins = 0; mem::load_relaxed(seqs + i) != pos + 1; ++spins) {
      if ((spins & 255u) == 255u && aborted()) return false;
      __nanosleep(32);
    }
    mem::fence_acq_rel();
    *item = mem::load_relaxed(cells + i);
    mem::fence_acq_rel();
    mem::store_relaxed(seqs + i, pos + capacity);
    return true;
  }

  /// Writes an item at a reserved position; false (and the run aborted) if the ring stayed full.
  __device__ __forceinline__ bool write(uint32_t ring, uint32_t pos,
                                        unsigned long long item) const {
    const uint32_t i = cell(ring, pos);
    for (uint32_t spins = 0; mem::load_relaxed(seqs + i) != pos; ++spins) {
      if (spins >= kMaxSpins || ((spins & 255u) == 255u && aborted())) {
        atomicOr(ctl + kAbort, kAbortFull);
        return false;
      }
      __nanosleep(64);
    }
    mem::fence_acq_rel();
    mem::store_relaxed(cells + i, item);
    mem::fence_acq_rel();
    mem::store_relaxed(seqs + i, pos + 1);
    return true;
  }
};

}  // namespace gstm::bucket_rings
