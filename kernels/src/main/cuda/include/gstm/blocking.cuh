/// @file blocking.cuh
/// @brief Cederman, Tsigas and Chaudhry's blocking STM (section 5 of their paper) over PR-STM's
///        lock table: an object is the words one lock covers, its versioned lock the lock word
///        (version above, a locked bit below; nobody pre-locks). Twin of
///        io.gstm.core.jvm.JvmBlockingTx; design and mapping in docs/cederman-stm.md.
///
/// A read waits while the object's lock is held, then takes version, word and version again
/// until the two match; the word is logged (the paper's local copy). Writes are buffered. Commit
/// locks each written object by one CAS from the version read and aborts at once on any failure
/// (so nobody waits at commit and nothing deadlocks); with every written lock held it checks that
/// what it only read is unchanged and not locked, writes back and releases at the version after.
/// A read's wait is bounded (kReadWaits tries, sleeping between): the paper ran one transaction
/// per thread block, while here a lane could otherwise spin on a lock held by a diverged lane of
/// its own warp. The backoff after an abort is the kernel loop's (backoff.cuh).
#pragma once
#include <cstdint>

#include "gstm/detail/lock_table_tx.cuh"

namespace gstm {

template <int CAPACITY>
class BlockingTx : public detail::LockTableTx<BlockingTx<CAPACITY>, CAPACITY> {
  GSTM_LOCK_TABLE_TX_BASE(BlockingTx);

 public:
  /// Tries on a locked word before a read gives up.
  static constexpr uint32_t kReadWaits = 256;

  __device__ __forceinline__ BlockingTx(const StoreView& view, uint32_t owner)
      : Base(view, owner) {}

 private:
  /// Commits a transaction that wrote (commit() fenced after its reads).
  __device__ __forceinline__ bool commit_writes() {
    mask_t held = 0;
    int failure = -1;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (failure < 0 && s < this->n_locks_ && ((this->written_ >> s) & 1u)) {
        word_t* lock = this->view_.locks + this->lock_idx_[s];
        const word_t expected = lock_word::unlocked(this->lock_ver_[s]);
        const word_t seen =
            atomicCAS(lock, expected, lock_word::locked_by(this->lock_ver_[s], this->owner_));
        if (seen == expected) {
          held |= bit(s);
        } else {
          failure = lock_word::locked(seen) ? kAbortLockBusy : kAbortValidation;
        }
      }
    }
    if (failure < 0) {
      mem::fence_sc();  // our lock CASes before the loads that validate (store buffering)
      if (!reads_current()) failure = kAbortValidation;
    }
    if (failure >= 0) {
      release(held, 0);
      this->abort(failure);
      return false;
    }
    this->write_back_all();
    release(held, 1);
    return this->done();
  }

  /// Waits (bounded) while the lock is held; then version, word, version again until they
  /// match. The lock joins the set at that version and the word is logged.
  __device__ __forceinline__ uint64_t read_new(uint32_t region, uint32_t index) {
    const uint32_t lock = this->view_.lock_of(region, index);
    uint32_t sleep_ns = 32;
    for (uint32_t tries = 0; tries < kReadWaits; ++tries) {
      const word_t w = mem::load_acquire(this->view_.locks + lock);
      if (!lock_word::locked(w)) {
        const uint64_t value = this->view_.load_word(region, index);
        mem::fence_acq_rel();
        if (mem::load_relaxed(this->view_.locks + lock) == w) {
          this->join(lock, lock_word::version(w), false);
          if (this->status_ == Base::kActive) this->log_read(region, index, value);
          return value;
        }
      } else {
        __nanosleep(sleep_ns);  // another thread is writing the object back
        sleep_ns = min(sleep_ns * 2, 1024u);
      }
    }
    this->abort(kAbortReadLocked);
    return 0;
  }

  /// A blind write takes the lock's version as a read would, waiting while it is held.
  __device__ __forceinline__ bool track_write(uint32_t lock) {
    uint32_t sleep_ns = 32;
    for (uint32_t tries = 0; tries < kReadWaits; ++tries) {
      const word_t w = mem::load_acquire(this->view_.locks + lock);
      if (!lock_word::locked(w)) {
        this->join(lock, lock_word::version(w), true);
        return this->status_ == Base::kActive;
      }
      __nanosleep(sleep_ns);
      sleep_ns = min(sleep_ns * 2, 1024u);
    }
    this->abort(kAbortReadLocked);
    return false;
  }

  /// Every lock only read is at the version read and not locked; so is the range, if any.
  __device__ __forceinline__ bool reads_current() const {
    bool ok = true;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (ok && s < this->n_locks_ && !((this->written_ >> s) & 1u)) {
        ok = mem::load_relaxed(this->view_.locks + this->lock_idx_[s]) ==
             lock_word::unlocked(this->lock_ver_[s]);
      }
    }
    return ok && this->range_unchanged();
  }

  /// Unlocks the slots of `held` at the version read plus `advance` (1 after a write-back).
  __device__ __forceinline__ void release(mask_t held, uint32_t advance) {
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if ((held >> s) & 1u) {
        mem::store_relaxed(this->view_.locks + this->lock_idx_[s],
                           lock_word::unlocked(this->lock_ver_[s] + advance));
      }
    }
  }
};

}  // namespace gstm
