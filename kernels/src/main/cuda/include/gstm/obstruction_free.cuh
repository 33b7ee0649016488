/// @file obstruction_free.cuh
/// @brief Cederman, Tsigas and Chaudhry's obstruction-free STM (after Harris and Fraser) over
///        PR-STM's lock table. Twin of io.gstm.core.jvm.JvmObstructionFreeTx and
///        io.gstm.core.jvm.OfDescriptors (keep them in step); design, mapping and the argument
///        for its correctness in docs/cederman-stm.md.
///
/// Reads and writes are the blocking STM's (a logged snapshot per word, buffered writes), except
/// that nobody waits for a lock's holder. Commit announces, in the thread's public descriptor,
/// the locks it writes with the versions read and the values it will write, then takes those
/// locks by CAS, each word carrying the attempt's tag (the low 32 bits of its sequence number)
/// in place of the version and the descriptor's id as owner. A lock held by another attempt
/// stands for what that attempt's status says: still acquiring (or aborted), the version its
/// holder read and the words in the store, so readers read through it (but a validation never
/// accepts it while its holder is undecided) and a committer that needs it, or read it, aborts
/// the holder first and then releases it for it; committed, the version
/// after with the announced values, so whoever meets it steals it by writing those values back
/// and releasing it at the version after. The CAS that starts a write-back (held, to
/// written-back-by, the pre-locked bit) makes one thread the only writer of the lock's words for
/// that commit, owner or thief: a late owner that finds its lock taken skips it, so no late
/// store overwrites a newer commit. Only a write-back in progress (a few stores) is waited for,
/// a bounded number of tries. An update commits by the CAS of its status from acquiring to
/// committed, after its reads proved current; that CAS fails if another aborted it meanwhile. A
/// committer aborts an undecided holder at once when it outranks it (a lower owner, PR-STM's
/// rule), else waits for it to decide, up to kResolveTries rounds, and then aborts itself. Unlike
/// the JVM twin, it never aborts a holder that outranks it: a GPU thread is never descheduled, so
/// a holder undecided for long is slow, not stalled, and on the H100 (16,384 threads on the
/// queue's two hot words) waiters that aborted such holders after 64 rounds aborted every holder
/// before it could decide, and the batch made no progress. So the lowest owner attempting is
/// never aborted by another attempt: it gives way to commits that moved what it read (or, after
/// kResolveTries rounds on one lock, to a write-back in progress).
#pragma once
#include <cstdint>

#include "gstm/detail/lock_table_tx.cuh"

namespace gstm {

/// The public descriptors, one per thread of the launch: entry i of descriptor d at
/// [i * threads + d] (a warp's accesses to one entry coalesce). Zeroed before the launch (every
/// status PREPARING, sequence 0). Host: io.gstm.core.cuda.LockTableKernel.
struct OfDescriptors {
  unsigned long long* status;  ///< [threads] sequence << 2 | state
  uint32_t* owner;             ///< [threads] the attempt's priority (lower wins)
  uint32_t* lock_count;        ///< [threads] locks announced
  uint32_t* lock_idx;          ///< [capacity * threads] a lock the attempt writes
  uint32_t* lock_ver;          ///< [capacity * threads] the version it read that lock at
  uint32_t* write_count;       ///< [threads] writes announced
  uint32_t* w_region;          ///< [capacity * threads]
  uint32_t* w_index;
  uint32_t* w_lock;
  unsigned long long* w_value;
  uint32_t threads;
  uint32_t capacity;
};
static_assert(sizeof(OfDescriptors) == 88, "host packer assumes 88 bytes");

namespace of {
/// Announcing: no lock word carries the attempt's tag yet.
constexpr uint32_t kPreparing = 0;
/// Taking its locks and validating: undecided, nothing written; others may abort it.
constexpr uint32_t kAcquiring = 1;
/// Decided: every lock it writes is held and stands for the announced values.
constexpr uint32_t kCommitted = 2;
/// Aborted: the locks it still holds stand for the versions it read.
constexpr uint32_t kAborted = 3;

__device__ __forceinline__ unsigned long long word(unsigned long long seq, uint32_t state) {
  return (seq << 2) | state;
}
__device__ __forceinline__ uint32_t state(unsigned long long s) {
  return static_cast<uint32_t>(s) & 3u;
}
/// The attempt's tag, as the lock words it holds carry it.
__device__ __forceinline__ uint32_t tag(unsigned long long s) {
  return static_cast<uint32_t>(s >> 2);
}
__device__ __forceinline__ unsigned long long with_state(unsigned long long s, uint32_t st) {
  return (s & ~3ull) | st;
}
}  // namespace of

template <int CAPACITY>
class ObstructionFreeTx : public detail::LockTableTx<ObstructionFreeTx<CAPACITY>, CAPACITY> {
  GSTM_LOCK_TABLE_TX_BASE(ObstructionFreeTx);

 public:
  /// Rounds spent settling one lock (a write-back in progress, a holder moving, an undecided
  /// holder that outranks this attempt) before giving up.
  static constexpr uint32_t kResolveTries = 256;

  /// `self` is this thread's descriptor, the owner its lock words carry.
  __device__ __forceinline__ ObstructionFreeTx(const StoreView& view, uint32_t owner,
                                               uint32_t self, const OfDescriptors& d)
      : Base(view, owner), d_(d), self_(self) {}

  /// Locks stolen from other attempts during this one.
  __device__ __forceinline__ uint32_t stolen() const { return stolen_; }

 private:
  /// Commits a transaction that wrote (commit() fenced after its reads).
  __device__ __forceinline__ bool commit_writes() {
    if (!lock_all()) return false;
    mem::fence_sc();  // our lock CASes before the loads that validate (store buffering)
    if (!reads_current(true)) return give_up(kAbortValidation);
    if (atomicCAS(d_.status + self_, mine_, of::with_state(mine_, of::kCommitted)) != mine_) {
      return give_up(kAbortKilled);
    }
    finish();
    return this->done();
  }

  __device__ __forceinline__ size_t at(uint32_t d, uint32_t i) const {
    return static_cast<size_t>(i) * d_.threads + d;
  }

  __device__ __forceinline__ uint64_t read_new(uint32_t region, uint32_t index) {
    const uint32_t lock = this->view_.lock_of(region, index);
    uint64_t value = 0;
    const long long version = settle(lock, region, index, value);
    if (version < 0) {
      this->abort(kAbortReadLocked);
      return 0;
    }
    this->join(lock, static_cast<uint32_t>(version), false);
    if (this->status_ == Base::kActive) this->log_read(region, index, value);
    return value;
  }

  __device__ __forceinline__ bool track_write(uint32_t lock) {
    uint64_t ignored = 0;
    const long long version = settle(lock, 0xffffffffu, 0, ignored);
    if (version < 0) {
      this->abort(kAbortReadLocked);
      return false;
    }
    this->join(lock, static_cast<uint32_t>(version), true);
    return this->status_ == Base::kActive;
  }

  /// The version `lock` stands for now, reading word `index` of `region` at it into `value`
  /// (unless region is ~0); -1 after kResolveTries. A lock held by a committed attempt is stolen
  /// first; one held by an undecided or aborted attempt is read through (it wrote nothing).
  __device__ __forceinline__ long long settle(uint32_t lock, uint32_t region, uint32_t index,
                                              uint64_t& value) {
    word_t* word = this->view_.locks + lock;
    uint32_t sleep_ns = 32;
    for (uint32_t tries = 0; tries < kResolveTries; ++tries) {
      const word_t w = mem::load_acquire(word);
      if (lock_word::pre_locked(w)) {  // a write-back in progress: a few stores
        __nanosleep(sleep_ns);
        sleep_ns = min(sleep_ns * 2, 1024u);
        continue;
      }
      if (!lock_word::locked(w)) {
        value = region == 0xffffffffu ? 0 : this->view_.load_word(region, index);
        mem::fence_acq_rel();
        if (mem::load_relaxed(word) == w) return lock_word::version(w);
        continue;
      }
      const uint32_t holder = lock_word::owner(w);
      const unsigned long long s = mem::load_acquire(d_.status + holder);
      if (of::tag(s) != lock_word::version(w)) continue;  // the word or its holder moved on
      if (of::state(s) == of::kCommitted) {
        steal(lock, w, holder, s);
        continue;
      }
      const long long v = version_of(holder, lock);
      value = region == 0xffffffffu ? 0 : this->view_.load_word(region, index);
      mem::fence_acq_rel();
      // Unchanged status and word: the holder had not decided, so it had written nothing.
      if (v >= 0 && mem::load_relaxed(d_.status + holder) == s && mem::load_relaxed(word) == w) {
        return v;
      }
    }
    return -1;
  }

  /// The version descriptor `d`'s attempt read `lock` at, or -1 if it announced no such lock.
  /// The caller checks afterwards that d's status did not change.
  __device__ __forceinline__ long long version_of(uint32_t d, uint32_t lock) const {
    const uint32_t n = min(mem::load_relaxed(d_.lock_count + d), d_.capacity);
    long long v = -1;
    for (uint32_t i = 0; i < n && v < 0; ++i) {
      if (mem::load_relaxed(d_.lock_idx + at(d, i)) == lock) {
        v = mem::load_relaxed(d_.lock_ver + at(d, i));
      }
    }
    return v;
  }

  /// Takes `lock` (held as `w` by committed attempt `s` of `holder`) by writing back the values
  /// it announced for the lock and releasing it at the version after. Nothing happens if the
  /// holder moved on or another thread writes the lock back first.
  __device__ __forceinline__ void steal(uint32_t lock, word_t w, uint32_t holder,
                                        unsigned long long s) {
    // Copied before the CAS: once the lock is ours the holder may announce its next attempt.
    uint32_t region[CAPACITY];
    uint32_t index[CAPACITY];
    uint64_t value[CAPACITY];
    const long long v = version_of(holder, lock);
    const uint32_t n = min(mem::load_relaxed(d_.write_count + holder), d_.capacity);
    uint32_t found = 0;
    for (uint32_t i = 0; i < n && found < CAPACITY; ++i) {
      if (mem::load_relaxed(d_.w_lock + at(holder, i)) == lock) {
        region[found] = mem::load_relaxed(d_.w_region + at(holder, i));
        index[found] = mem::load_relaxed(d_.w_index + at(holder, i));
        value[found] = mem::load_relaxed(d_.w_value + at(holder, i));
        ++found;
      }
    }
    mem::fence_acq_rel();
    if (v < 0 || mem::load_relaxed(d_.status + holder) != s) return;  // maybe a later attempt's
    word_t* word = this->view_.locks + lock;
    if (atomicCAS(word, w, lock_word::pre_locked_by(static_cast<uint32_t>(v), self_)) != w) return;
    mem::fence_acq_rel();
    for (uint32_t i = 0; i < found; ++i) this->view_.store_word(region[i], index[i], value[i]);
    mem::fence_acq_rel();
    mem::store_relaxed(word, lock_word::unlocked(static_cast<uint32_t>(v) + 1));
    ++stolen_;
  }

  /// One step towards freeing `lock`, held as `w` by another attempt: abort it if it is still
  /// acquiring and we outrank it, release its lock if it aborted, steal it if it committed. False
  /// when it left an undecided holder that outranks us alone (the caller waits a little).
  __device__ __forceinline__ bool resolve(uint32_t lock, word_t w) {
    const uint32_t holder = lock_word::owner(w);
    const unsigned long long s = mem::load_acquire(d_.status + holder);
    if (of::tag(s) != lock_word::version(w)) return true;
    switch (of::state(s)) {
      case of::kAcquiring: {
        const uint32_t rank = mem::load_relaxed(d_.owner + holder);
        mem::fence_acq_rel();
        if (mem::load_relaxed(d_.status + holder) != s || rank <= this->owner_) {
          return false;
        }
        atomicCAS(d_.status + holder, s, of::with_state(s, of::kAborted));
        break;
      }
      case of::kAborted: {
        const long long v = version_of(holder, lock);
        mem::fence_acq_rel();
        if (v >= 0 && mem::load_relaxed(d_.status + holder) == s) {
          atomicCAS(this->view_.locks + lock, w, lock_word::unlocked(static_cast<uint32_t>(v)));
        }
        break;
      }
      case of::kCommitted:
        steal(lock, w, holder, s);
        break;
      default:
        break;
    }
    return true;
  }

  /// Announces the attempt (PREPARING, entries, ACQUIRING) and takes its write locks; false
  /// (aborted, locks released) if one cannot be had.
  __device__ __forceinline__ bool lock_all() {
    const unsigned long long seq = (mem::load_relaxed(d_.status + self_) >> 2) + 1;
    mem::store_relaxed(d_.status + self_, of::word(seq, of::kPreparing));
    mem::fence_acq_rel();
    mem::store_relaxed(d_.owner + self_, this->owner_);
    uint32_t nl = 0;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < this->n_locks_ && ((this->written_ >> s) & 1u)) {
        mem::store_relaxed(d_.lock_idx + at(self_, nl), this->lock_idx_[s]);
        mem::store_relaxed(d_.lock_ver + at(self_, nl), this->lock_ver_[s]);
        ++nl;
      }
    }
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < this->n_writes_) {
        mem::store_relaxed(d_.w_region + at(self_, s), this->w_region_[s]);
        mem::store_relaxed(d_.w_index + at(self_, s), this->w_index_[s]);
        mem::store_relaxed(d_.w_lock + at(self_, s),
                           this->view_.lock_of(this->w_region_[s], this->w_index_[s]));
        mem::store_relaxed(d_.w_value + at(self_, s), this->w_value_[s]);
      }
    }
    mem::store_relaxed(d_.lock_count + self_, nl);
    mem::store_relaxed(d_.write_count + self_, static_cast<uint32_t>(this->n_writes_));
    mem::fence_acq_rel();  // the announcement before the status that publishes it
    mine_ = of::word(seq, of::kAcquiring);
    mem::store_relaxed(d_.status + self_, mine_);
    const word_t held = lock_word::locked_by(of::tag(mine_), self_);
    int failure = -1;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (failure < 0 && s < this->n_locks_ && ((this->written_ >> s) & 1u)) {
        failure = acquire(this->lock_idx_[s], this->lock_ver_[s], held);
      }
    }
    if (failure >= 0) {
      give_up(failure);
      return false;
    }
    return true;
  }

  /// Takes `lock`, free at `version`, as `held`; -1, or the abort cause.
  __device__ __forceinline__ int acquire(uint32_t lock, uint32_t version, word_t held) {
    word_t* word = this->view_.locks + lock;
    uint32_t sleep_ns = 32;
    for (uint32_t tries = 0; tries < kResolveTries; ++tries) {
      if (mem::load_relaxed(d_.status + self_) != mine_) return kAbortKilled;
      const word_t w = mem::load_relaxed(word);
      if (lock_word::pre_locked(w)) {
        __nanosleep(sleep_ns);
        sleep_ns = min(sleep_ns * 2, 1024u);
        continue;
      }
      if (!lock_word::locked(w)) {
        if (lock_word::version(w) != version) return kAbortValidation;
        if (atomicCAS(word, w, held) == w) return -1;
        continue;
      }
      if (!resolve(lock, w)) {  // an undecided holder that outranks us
        __nanosleep(sleep_ns);
        sleep_ns = min(sleep_ns * 2, 1024u);
      }
    }
    return kAbortLockBusy;
  }

  /// Every lock only read still stands for the version read (and the range, if any, is
  /// unchanged). A lock held by an attempt still acquiring is not accepted as it stands: that
  /// attempt is aborted first (resolve). It may decide long after this validation; had a reader
  /// of its old values committed meanwhile, a third transaction could order them in a cycle
  /// (T read x and holds y; U commits x; R reads U's x and T's old y and commits; T commits).
  /// With `updating` this attempt holds its write locks and stops when another aborted it.
  __device__ __forceinline__ bool reads_current(bool updating = false) {
    bool ok = true;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (ok && s < this->n_locks_ && !((this->written_ >> s) & 1u)) {
        ok = current(this->lock_idx_[s], updating) == this->lock_ver_[s];
      }
    }
    return ok && this->range_unchanged();
  }

  /// The version a lock only read stands for now; -1 (never a version read) when it moved past
  /// every version read (committed, written back now) or stayed unsettled.
  __device__ __forceinline__ long long current(uint32_t lock, bool updating) {
    word_t* word = this->view_.locks + lock;
    uint32_t sleep_ns = 32;
    for (uint32_t tries = 0; tries < kResolveTries; ++tries) {
      const word_t w = mem::load_relaxed(word);
      if (lock_word::pre_locked(w)) return -1;
      if (!lock_word::locked(w)) return lock_word::version(w);
      const uint32_t holder = lock_word::owner(w);
      const unsigned long long st = mem::load_acquire(d_.status + holder);
      if (of::tag(st) != lock_word::version(w)) continue;
      if (of::state(st) == of::kCommitted) return -1;
      if (of::state(st) == of::kAcquiring) {
        if (updating && mem::load_relaxed(d_.status + self_) != mine_) return -1;  // aborted
        if (!resolve(lock, w)) {
          __nanosleep(sleep_ns);
          sleep_ns = min(sleep_ns * 2, 1024u);
        }
        continue;
      }
      const long long v = version_of(holder, lock);
      mem::fence_acq_rel();
      if (v >= 0 && mem::load_relaxed(d_.status + holder) == st && mem::load_relaxed(word) == w) {
        return v;
      }
    }
    return -1;
  }

  /// Aborts this update attempt: marks it aborted, then releases the locks it still holds.
  __device__ __forceinline__ bool give_up(int cause) {
    const bool killed =
        atomicCAS(d_.status + self_, mine_, of::with_state(mine_, of::kAborted)) != mine_;
    const word_t held = lock_word::locked_by(of::tag(mine_), self_);
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < this->n_locks_ && ((this->written_ >> s) & 1u)) {
        atomicCAS(this->view_.locks + this->lock_idx_[s], held,
                  lock_word::unlocked(this->lock_ver_[s]));
      }
    }
    this->abort(killed ? kAbortKilled : cause);
    return false;
  }

  /// Writes back every lock of this committed attempt that nobody stole.
  __device__ __forceinline__ void finish() {
    const word_t held = lock_word::locked_by(of::tag(mine_), self_);
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < this->n_locks_ && ((this->written_ >> s) & 1u)) {
        word_t* word = this->view_.locks + this->lock_idx_[s];
        if (atomicCAS(word, held, lock_word::pre_locked_by(this->lock_ver_[s], self_)) == held) {
          mem::fence_acq_rel();
          this->write_back(this->lock_idx_[s]);
          mem::fence_acq_rel();
          mem::store_relaxed(word, lock_word::unlocked(this->lock_ver_[s] + 1));
        }  // else stolen: a thief wrote our values back
      }
    }
  }

  const OfDescriptors& d_;
  const uint32_t self_;
  unsigned long long mine_ = 0;  ///< this update attempt's status while it commits
  uint32_t stolen_ = 0;
};

}  // namespace gstm
