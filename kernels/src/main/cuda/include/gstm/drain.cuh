/// @file drain.cuh
/// @brief A bucket of a relaxation drained without rounds: its work items in a bounded ring that
///        every warp takes from and queues to at once (graph_relax.cu's gstm_graph_relax_drain,
///        jit/program_jit.cu's gstm_jit_relax_drain_s*). A round waits at a grid sync for its
///        slowest warp's chain of hops; here a warp that is done takes the next items.
///
/// Each slot's sequence word says whose turn it is: the producer of position p waits for p,
/// writes, sets p + 1; the taker of p finds p + 1, reads, and sets p + capacity by
/// compare-and-swap. A warp takes up to 32 positions with one atomic add before their items
/// exist and relaxes what comes while the others are pending, so a producer never waits for a
/// taker (two busy warps would wait on each other): it takes a written item a lap back over
/// (the same compare-and-swap; its taker finds the slot moved on) and queues it again after its
/// own. It waits only for the producer of the position a lap back, which reserved it earlier, so
/// every wait is on a lower position and none closes a cycle. The caller keeps each vertex in
/// the ring at most once until taken, so the ring never holds more items than its capacity.
#pragma once

#include <cstdint>

#include "gstm/memory.cuh"

namespace gstm::drain {

/// Where a drained bucket stands (Ring::state).
enum State : uint32_t { kDraining = 0, kDrained = 1, kStopped = 2 };

/// A bucket's ring and its counters, all zeroed (state kDraining) before the bucket. The first
/// items sit at positions [0, *tail), their slots' sequences p + 1, the other slots' their index.
template <class Item>
struct Ring {
  Item* items;        ///< [cap]
  uint32_t* seq;      ///< [cap] each slot's sequence
  uint32_t cap;
  uint32_t* tail;     ///< positions handed to producers
  uint32_t* head;     ///< positions handed to takers
  uint32_t* taken;    ///< items taken (taken over ones included)
  uint32_t* busy;     ///< warps busy with items they took
  uint32_t* state;    ///< State
  uint32_t budget;    ///< items a bucket may take before it stops (State kStopped)
};

/// Queues `item` at the ring's next position. Once the bucket stopped a producer gives up
/// waiting: its position, never taken, counts as left.
template <class Item>
__device__ __forceinline__ void push(const Ring<Item>& r, Item item) {
  for (;;) {
    const uint32_t pos = atomicAdd(r.tail, 1u);
    const uint32_t slot = pos % r.cap;
    const uint32_t lap = pos - r.cap + 1;  // the sequence of the item a lap back, written
    bool moved = false;
    Item old{};
    for (uint32_t seen = mem::load_relaxed(r.seq + slot); seen != pos;
         seen = mem::load_relaxed(r.seq + slot)) {
      if (seen == lap) {
        __threadfence();
        old = __ldcg(r.items + slot);
        if (atomicCAS(r.seq + slot, lap, pos) == lap) {
          moved = true;
          atomicAdd(r.taken, 1u);  // its position is done; it comes again at another
          break;
        }
      } else {
        if (mem::load_relaxed(r.state) == kStopped) return;
        __nanosleep(32);
      }
    }
    __stcg(r.items + slot, item);
    __threadfence();
    mem::store_relaxed(r.seq + slot, pos + 1);
    if (!moved) return;
    item = old;
  }
}

/// A warp's positions: those still pending (a lane each) and how long it has found nothing.
struct Taker {
  uint32_t pos = 0;
  uint32_t pending = 0;
  uint32_t idle = 0;
};

/// The warp's next items: true with `item` on the lanes that took one (the warp then counts as
/// busy until done()), false on every lane once the bucket is drained or stopped. Waits while
/// nothing came. Every lane of the warp calls this.
template <class Item>
__device__ __forceinline__ bool take(const Ring<Item>& r, Taker& w, Item& item, bool& ready) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warps = gridDim.x * blockDim.x / 32u;
  for (;;) {
    if (w.pending == 0) {
      // New positions: as many as the queued items share out among the warps, 1 to 32, whether
      // or not their items exist yet. (Taken only below the tail by compare-and-swap, and
      // relaxed only once all had come, the road-like grid 2^24 took 99-121 ms against 81.5.)
      uint32_t first = 0;
      uint32_t k = 1;
      if (lane == 0) {
        const uint32_t h = mem::load_relaxed(r.head);
        const uint32_t tail = mem::load_relaxed(r.tail);
        k = tail > h ? max(1u, min(32u, (tail - h) / warps)) : 1u;
        first = atomicAdd(r.head, k);
      }
      k = __shfl_sync(0xffffffffu, k, 0);
      w.pending = k == 32 ? 0xffffffffu : (1u << k) - 1u;
      w.pos = __shfl_sync(0xffffffffu, first, 0) + lane;
    }
    // Each pending lane's item: come (its sequence p + 1), not yet, or taken over by a producer
    // a lap later (moved on), which queued it again.
    const bool mine = ((w.pending >> lane) & 1u) != 0;
    const uint32_t slot = w.pos % r.cap;
    int32_t ahead = -1;
    ready = false;
    if (mine) {
      ahead = static_cast<int32_t>(mem::load_relaxed(r.seq + slot) - (w.pos + 1));
      if (ahead == 0) {
        __threadfence();
        item = __ldcg(r.items + slot);
        __threadfence();
        ready = atomicCAS(r.seq + slot, w.pos + 1, w.pos + r.cap) == w.pos + 1;
      }
    }
    const uint32_t took = __ballot_sync(0xffffffffu, ready);
    const bool moved_on = mine && (ahead > 0 || (ahead == 0 && !ready));
    w.pending &= ~(took | __ballot_sync(0xffffffffu, moved_on));
    if (took != 0) {
      w.idle = 0;
      if (lane == 0) {
        atomicAdd(r.busy, 1u);
        __threadfence();
        const uint32_t n = static_cast<uint32_t>(__popc(took));
        if (atomicAdd(r.taken, n) + n > r.budget) mem::store_relaxed(r.state, kStopped);
      }
      __syncwarp();
      return true;
    }
    // Nothing came: is the bucket done? Taken equal to the tail, then no warp busy, then the
    // tail unchanged: every item queued was taken, and its taker (busy from before it counted
    // the item until after its pushes) was done.
    uint32_t now = kDraining;
    if (lane == 0) {
      now = mem::load_relaxed(r.state);
      // The counters are hot words: the whole check every eighth idle pass.
      if (now == kDraining && (w.idle & 7u) == 7u) {
        const uint32_t t = mem::load_relaxed(r.taken);
        __threadfence();
        const uint32_t tail = mem::load_relaxed(r.tail);
        if (t == tail) {
          __threadfence();
          if (mem::load_relaxed(r.busy) == 0) {
            __threadfence();
            if (mem::load_relaxed(r.tail) == tail) {
              now = kDrained;
              mem::store_relaxed(r.state, now);
            }
          }
        }
      }
    }
    if (__shfl_sync(0xffffffffu, now, 0) != kDraining) return false;
    __nanosleep(min(32u << min(w.idle, 3u), 256u));
    ++w.idle;
  }
}

/// The warp is done with what take() gave it: every lane's pushes visible first. Every lane of
/// the warp calls this.
template <class Item>
__device__ __forceinline__ void done(const Ring<Item>& r) {
  __threadfence();
  __syncwarp();
  if ((threadIdx.x & 31u) == 0) atomicSub(r.busy, 1u);
}

}  // namespace gstm::drain
