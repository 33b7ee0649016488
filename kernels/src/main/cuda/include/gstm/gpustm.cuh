/// @file gpustm.cuh
/// @brief GPU-STM (Xu et al., the JPDC PR-STM paper's comparator) over PR-STM's lock table:
///        locks sorted as they are met, write locks taken in that order at commit, time-based
///        validation falling back to value-based. Twin of io.gstm.core.jvm.JvmGpuStmTx; design
///        and reasons in docs/gpu-stm.md.
///
/// Every read and write inserts its lock into a lock set kept sorted by lock index (the cost the
/// PR-STM papers blame: a search and a shift on every access). Commit takes the written locks in
/// that order, a bounded number of tries each (a lane never spins without bound on a lock that a
/// diverged lane of its own warp holds), then validates what it only read as a double collect:
/// the versions of those locks (where one moved, every word read under it must still hold the
/// value read), then the versions again; equal collects mean the versions recorded were all
/// current at one instant, which the history checker needs once values stand in for versions.
#pragma once
#include <cstdint>

#include "gstm/detail/lock_table_tx.cuh"

namespace gstm {

template <int CAPACITY>
class GpuStmTx : public detail::LockTableTx<GpuStmTx<CAPACITY>, CAPACITY> {
  GSTM_LOCK_TABLE_TX_BASE(GpuStmTx);

 public:
  /// Tries on a busy write lock at commit before the attempt gives up.
  static constexpr uint32_t kAcquireTries = 256;
  /// Collects of the read versions before validation gives up.
  static constexpr int kCollects = 4;

  __device__ __forceinline__ GpuStmTx(const StoreView& view, uint32_t owner) : Base(view, owner) {}

 private:
  /// A read-only commit validates once: commit() fenced after the reads already.
  __device__ __forceinline__ bool commit_read_only() { return this->validated() && this->done(); }

  /// Commits a transaction that wrote (commit() fenced after its reads).
  __device__ __forceinline__ bool commit_writes() {
    // Written locks in ascending lock order (the set is sorted): no cycle of waits.
    mask_t held = 0;
    bool busy = false;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (!busy && s < this->n_locks_ && ((this->written_ >> s) & 1u)) {
        word_t* lock = this->view_.locks + this->lock_idx_[s];
        uint32_t sleep_ns = 32;
        bool got = false;
        for (uint32_t tries = 0; tries < kAcquireTries && !got; ++tries) {
          const word_t w = mem::load_relaxed(lock);
          if (!lock_word::locked(w) && !lock_word::pre_locked(w)) {
            const uint32_t v = lock_word::version(w);
            if (atomicCAS(lock, w, lock_word::locked_by(v, this->owner_)) == w) {
              seen_ver_[s] = v;
              got = true;
            }
          } else {
            __nanosleep(sleep_ns);
            sleep_ns = min(sleep_ns * 2, 1024u);
          }
        }
        if (got) {
          held |= bit(s);
        } else {
          busy = true;
        }
      }
    }
    if (busy) {
      release(held);
      this->abort(kAbortLockBusy);
      return false;
    }
    mem::fence_sc();  // our lock CASes before the loads that validate (store buffering)
    if (!reads_current(true)) {
      release(held);
      this->abort(kAbortValidation);
      return false;
    }
    this->write_back_all();
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if ((held >> s) & 1u) {
        mem::store_relaxed(this->view_.locks + this->lock_idx_[s],
                           lock_word::unlocked(seen_ver_[s] + 1));
      }
    }
    return this->done();
  }

  /// A word met for the first time: version, value, version again (unlocked and equal, so the
  /// value is that version's); its lock joins the sorted set.
  __device__ __forceinline__ uint64_t read_new(uint32_t region, uint32_t index) {
    const uint32_t lock = this->view_.lock_of(region, index);
    const word_t w = mem::load_acquire(this->view_.locks + lock);
    const uint64_t value = this->view_.load_word(region, index);
    mem::fence_acq_rel();
    if (lock_word::locked(w) || mem::load_relaxed(this->view_.locks + lock) != w) {
      this->abort(kAbortReadLocked);  // a writer was between its lock and its release
      return 0;
    }
    insert(lock, lock_word::version(w), false);
    if (this->status_ != Base::kActive) return 0;
#pragma unroll kUnroll
    for (int e = 0; e < CAPACITY; ++e) {
      if (e == this->n_reads_) r_ver_[e] = lock_word::version(w);
    }
    this->log_read(region, index, value);
    return value;
  }

  /// A blind write's lock joins the sorted set at its current version.
  __device__ __forceinline__ bool track_write(uint32_t lock) {
    const word_t w = mem::load_acquire(this->view_.locks + lock);
    if (lock_word::locked(w)) {
      this->abort(kAbortReadLocked);
      return false;
    }
    insert(lock, lock_word::version(w), true);
    return this->status_ == Base::kActive;
  }

  /// Reads at the versions validation saw (the serial order's), writes after the one held.
  __device__ __forceinline__ uint32_t recorded_version(int s) const { return seen_ver_[s]; }

  /// Inserts a lock into the sorted set (shifting the larger ones up), or checks the version of
  /// one already there.
  __device__ __forceinline__ void insert(uint32_t lock, uint32_t version, bool written) {
    int at = 0;
    bool known = false;
    bool consistent = true;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool in = s < this->n_locks_;
      at += (in && this->lock_idx_[s] < lock) ? 1 : 0;
      const bool hit = in && this->lock_idx_[s] == lock;
      consistent = consistent && !(hit && this->lock_ver_[s] != version);
      this->written_ |= (hit && written) ? bit(s) : static_cast<mask_t>(0);
      known = known || hit;
    }
    if (!consistent) return this->abort(kAbortValidation);  // two words, two versions
    if (known) return;
    if (this->n_locks_ == CAPACITY) return this->overflow();
#pragma unroll kUnroll
    for (int s = CAPACITY - 1; s > 0; --s) {
      const bool shift = s > at && s <= this->n_locks_;
      this->lock_idx_[s] = shift ? this->lock_idx_[s - 1] : this->lock_idx_[s];
      this->lock_ver_[s] = shift ? this->lock_ver_[s - 1] : this->lock_ver_[s];
    }
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s == at) {
        this->lock_idx_[s] = lock;
        this->lock_ver_[s] = version;
      }
    }
    const mask_t below = at == 0 ? static_cast<mask_t>(0) : (~static_cast<mask_t>(0) >>
        (8 * sizeof(mask_t) - at));
    this->written_ = (this->written_ & below) | ((this->written_ & ~below) << 1) |
                     (written ? bit(at) : static_cast<mask_t>(0));
    ++this->n_locks_;
  }

  /**
   * Hierarchical validation as a double collect (docs/gpu-stm.md). With `holding` (at commit)
   * the written locks are ours, at seen_ver_: where that moved since the read, the words read
   * under them must still hold the values read.
   */
  __device__ __forceinline__ bool reads_current(bool holding = false) {
    for (int collect = 0; collect < kCollects; ++collect) {
      // First collect: the versions of the locks only read (unlocked).
      bool ok = true;
#pragma unroll kUnroll
      for (int s = 0; s < CAPACITY; ++s) {
        const bool mine = holding && ((this->written_ >> s) & 1u);
        if (ok && s < this->n_locks_ && !mine) {
          const word_t w = mem::load_relaxed(this->view_.locks + this->lock_idx_[s]);
          ok = !lock_word::locked(w);
          seen_ver_[s] = lock_word::version(w);
        }
      }
      if (!ok) continue;
      // Every word read under a lock whose version moved must still hold the value read.
      bool values = true;
#pragma unroll kUnroll
      for (int e = 0; e < CAPACITY; ++e) {
        if (values && e < this->n_reads_) {
          const uint32_t lock = this->view_.lock_of(this->r_region_[e], this->r_index_[e]);
          const word_t w = mem::load_relaxed(this->view_.locks + lock);
          const bool ours = lock_word::locked(w) && lock_word::owner(w) == this->owner_;
          const bool moved = ours ? version_held(lock) != r_ver_[e]
                                  : lock_word::version(w) != r_ver_[e];
          values = !moved || this->view_.load_word(this->r_region_[e], this->r_index_[e]) ==
                                 this->r_value_[e];
        }
      }
      if (!values) return false;  // changed in value
      mem::fence_acq_rel();
      // Second collect: nothing moved since the first, so the values held at those versions.
#pragma unroll kUnroll
      for (int s = 0; s < CAPACITY; ++s) {
        const bool mine = holding && ((this->written_ >> s) & 1u);
        if (ok && s < this->n_locks_ && !mine) {
          ok = mem::load_relaxed(this->view_.locks + this->lock_idx_[s]) ==
               lock_word::unlocked(seen_ver_[s]);
        }
      }
      if (ok) return this->range_unchanged();
    }
    return false;
  }

  /// The version at which we hold `lock` (a written slot).
  __device__ __forceinline__ uint32_t version_held(uint32_t lock) const {
    uint32_t v = 0;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      v = (s < this->n_locks_ && this->lock_idx_[s] == lock) ? seen_ver_[s] : v;
    }
    return v;
  }

  /// Unlocks the slots of `held`, which we locked, at the versions taken.
  __device__ __forceinline__ void release(mask_t held) {
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if ((held >> s) & 1u) {
        mem::store_relaxed(this->view_.locks + this->lock_idx_[s],
                           lock_word::unlocked(seen_ver_[s]));
      }
    }
  }

  uint32_t seen_ver_[CAPACITY];  ///< per slot: the version held (written) or validated (read)
  uint32_t r_ver_[CAPACITY];     ///< per read: the version its lock had
};

}  // namespace gstm
