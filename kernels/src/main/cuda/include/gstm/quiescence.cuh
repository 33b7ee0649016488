/// @file quiescence.cuh
/// @brief Ends semantic waits that can never come true, the same rule as the JVM engine's
///        io.gstm.core.jvm.Quiescence (keep the two in step).
///
/// A postponed transaction waits for a state that other transactions bring; when no transaction
/// can bring it, only the semantic limit would end the wait. The rule: a thread whose pending
/// transactions all met a confirmed semantic conflict in a row (a whole pass over its share, or
/// kMinStreak attempts under retry-in-place) reads the batch's finish count; if a second such
/// pass leaves the count unchanged, it registers as stuck at that count. When every thread that still owns pending transactions is
/// registered at the current finish count, the waits are in vain: the state is what every one of
/// them was found to conflict with, and only a commit could change it, but a commit needs one of
/// those transactions to succeed on that same state. What they waited on then ends
/// ABANDONED_SEMANTIC: every pending transaction of the thread under postponement (each was
/// tried), the one retried under retry-in-place (the thread's later ones were never tried and
/// run next). A thread adds its finishes to the count lazily, when it reads the count and when
/// its share is done, never per commit (one hot word would cost every commit): a registered
/// thread has committed nothing since its streak began, and it added what it committed before,
/// so when every live thread is registered at the current count, no commit is missing from it.
/// A streak touches the shared words only after a whole pass: most semantic conflicts end within
/// one (a deposit arrives), and reading a hot word at every streak's start cost the semantic
/// kernel 10% under postponement and 40% under retry-in-place (H200, bench-semantic).
///
/// Control words (after the batch counters, zeroed with them): [0] finishes, [1] stuck threads
/// (the finish count they registered at in the high half, how many in the low half: pack()),
/// [2] threads whose share is done, [3] the finish count + 1 at which the waits were found in
/// vain (0: never).
#pragma once
#include <cstdint>

#include "gstm/memory.cuh"

namespace gstm::quiescence {

constexpr int kWords = 4;

/// Stuck threads registered at finish count `epoch` (its low 32 bits).
__device__ __forceinline__ unsigned long long pack(uint32_t epoch, uint32_t count) {
  return (static_cast<unsigned long long>(epoch) << 32) | count;
}

/// Fewest conflicts in a row that make a streak, and the spacing of its checks.
constexpr uint32_t kMinStreak = 32;

/// One thread's view: its streak of semantic conflicts, whether it is registered, and the
/// finishes it has not added to the count yet.
struct Streak {
  uint32_t left = 0;      ///< conflicts until the streak's next check (0: no streak)
  uint32_t seen = 0;      ///< finish count read a whole pass into the streak
  uint32_t unflushed = 0; ///< this thread's finishes not in the count yet
  uint64_t enrolled = 0;  ///< the count + 1 this thread is counted as stuck at (0: none)
  bool armed = false;     ///< seen holds the count
  bool registered = false;

  /// A concurrency abort of this thread: the streak starts over.
  __device__ __forceinline__ void reset() {
    left = 0;
    armed = false;
    registered = false;
  }

  /// A transaction of this thread finished; `share_done` if it was its last.
  __device__ __forceinline__ void finished(unsigned long long* control, bool share_done) {
    reset();
    ++unflushed;
    if (share_done) {
      flush(control);
      atomicAdd(control + 2, 1ull);
    }
  }

  /// After a confirmed semantic conflict that did not end the transaction. `needed` conflicts in
  /// a row make a whole pass; `live0` threads owned transactions at the start. True when every
  /// live thread is stuck at the current count: the caller abandons its pending transactions.
  __device__ __forceinline__ bool conflict(unsigned long long* control, uint32_t needed,
                                           uint32_t live0) {
    // The shared words are read once every `needed` conflicts, not at each one: threads
    // retrying in place meet a billion conflicts a second.
    if (left == 0) left = needed;
    if (--left != 0) return false;
    left = needed;
    if (!armed) {
      flush(control);
      seen = static_cast<uint32_t>(load_acquire(control));
      armed = true;
      return false;
    }
    // Found in vain at the count this thread is stuck at (checked before a newer count resets
    // the streak: the others' abandons move the count on).
    if (registered && mem::load_relaxed(control + 3) == seen + 1ull) return true;
    if (static_cast<uint32_t>(load_acquire(control)) != seen) {
      reset();
      return false;
    }
    if (!registered) {
      // Counted once per count: a streak that restarts at the same count (after a concurrency
      // abort) must not count this thread twice.
      registered = enrolled == seen + 1ull || enrol(control + 1);
      if (registered) {
        enrolled = seen + 1ull;
      } else {
        reset();
      }
      return false;
    }
    const uint32_t live = live0 - static_cast<uint32_t>(mem::load_relaxed(control + 2));
    if (mem::load_relaxed(control + 1) == pack(seen, live) &&
        static_cast<uint32_t>(load_acquire(control)) == seen) {
      mem::store_relaxed(control + 3, seen + 1ull);
      return true;
    }
    return false;
  }

 private:
  /// Adds this thread's finishes to the count, after its commits (release).
  __device__ __forceinline__ void flush(unsigned long long* control) {
    if (unflushed != 0) {
      mem::fence_acq_rel();
      atomicAdd(control, static_cast<unsigned long long>(unflushed));
      unflushed = 0;
    }
  }

  /// Counts this thread as stuck at `seen`; false if a later count is already registered.
  __device__ __forceinline__ bool enrol(unsigned long long* word) {
    unsigned long long w = mem::load_relaxed(word);
    while (true) {
      const uint32_t epoch = static_cast<uint32_t>(w >> 32);
      unsigned long long next;
      if (epoch == seen) {
        next = w + 1;
      } else if (static_cast<int32_t>(seen - epoch) > 0) {
        next = pack(seen, 1);
      } else {
        return false;
      }
      const unsigned long long old = atomicCAS(word, w, next);
      if (old == w) return true;
      w = old;
    }
  }

  __device__ __forceinline__ static unsigned long long load_acquire(unsigned long long* p) {
    return mem::load_acquire(p);
  }
};

}  // namespace gstm::quiescence
