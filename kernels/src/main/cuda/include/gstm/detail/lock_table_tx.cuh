/// @file detail/lock_table_tx.cuh
/// @brief What GPU-STM and Cederman's two STMs keep alike over PR-STM's lock table, so that each
///        holds only its algorithm. Twin of io.gstm.core.jvm.JvmLockTableTx (keep them in step).
///
/// The attempt's status and abort cause; the lock set (lock, version read, a written bit); the
/// write buffer; the read log (each word read with the value it showed: a second read returns
/// it, as Cederman's local copy of an object and GPU-STM's repeatable reads do); a read-only
/// range read as one entry (validated by the sum of its versions, as in prstm.cuh); the history
/// record; the frame of a commit. The derived class (CRTP) decides how a new read meets its lock
/// (`read_new`), how a write's lock joins the set (`track_write`), which version the history
/// records (`recorded_version`), whether what was read still holds (`reads_current`) and how a
/// transaction that wrote commits (`commit_writes`).
///
/// Sets live in registers where they fit: loops over them are unrolled (up to 16 entries) and
/// predicated, and lookups select values instead of returning early, as in prstm.cuh.
#pragma once
#include <cstdint>
#include <type_traits>

#include "gstm/batch.cuh"
#include "gstm/lock_word.cuh"
#include "gstm/memory.cuh"
#include "gstm/store_view.cuh"

namespace gstm::detail {

template <class Derived, int CAPACITY>
class LockTableTx {
  static_assert(CAPACITY >= 1 && CAPACITY <= 64, "set masks are at most 64-bit");

 protected:
  using word_t = lock_word::word_t;
  using mask_t = std::conditional_t<(CAPACITY > 32), unsigned long long, uint32_t>;
  /// Loops are unrolled for sets that stay in registers; larger ones live in local memory.
  static constexpr int kUnroll = CAPACITY <= 16 ? CAPACITY : 1;
  __device__ __forceinline__ static mask_t bit(int s) { return static_cast<mask_t>(1) << s; }

 public:
  enum Status : uint8_t { kActive, kAborted, kOverflow, kSemantic, kEnded, kDone };

  __device__ __forceinline__ LockTableTx(const StoreView& view, uint32_t owner)
      : view_(view), owner_(owner) {}

  /// No urgent mode (PR-STM's alone): run_semantic asks.
  __device__ __forceinline__ bool urgent() const { return false; }
  __device__ __forceinline__ bool lost_in_line() const { return false; }

  __device__ __forceinline__ bool active() const { return status_ == kActive; }
  __device__ __forceinline__ bool overflowed() const { return status_ == kOverflow; }
  __device__ __forceinline__ bool semantic() const { return status_ == kSemantic; }
  __device__ __forceinline__ bool ended() const { return status_ == kEnded; }
  __device__ __forceinline__ uint8_t end_outcome() const { return cause_; }
  __device__ __forceinline__ int abort_cause() const { return cause_; }
  __device__ __forceinline__ bool read_only() const { return n_writes_ == 0; }

  __device__ __forceinline__ void semantic_conflict() {
    if (status_ == kActive) status_ = kSemantic;
  }
  __device__ __forceinline__ void end(uint8_t outcome) {
    if (status_ == kActive) {
      status_ = kEnded;
      cause_ = outcome;
    }
  }

  /// The write buffer first, then the read log; a word met for the first time goes to read_new.
  __device__ __forceinline__ uint64_t read(uint32_t region, uint32_t index) {
    if (status_ != kActive) return 0;
    bool known = false;
    uint64_t value = 0;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_writes_ && w_region_[s] == region && w_index_[s] == index;
      value = hit ? w_value_[s] : value;
      known = known || hit;
    }
#pragma unroll kUnroll
    for (int e = 0; e < CAPACITY; ++e) {
      const bool hit = !known && e < n_reads_ && r_region_[e] == region && r_index_[e] == index;
      value = hit ? r_value_[e] : value;
      known = known || hit;
    }
    if (known) return value;
    if (n_reads_ == CAPACITY) {
      overflow();
      return 0;
    }
    return self().read_new(region, index);
  }

  /// A read outside the sets, for data no transaction writes (prstm.cuh).
  __device__ __forceinline__ uint64_t read_shared(uint32_t region, uint32_t index) const {
    return status_ == kActive ? view_.load_word(region, index) : 0;
  }

  /// A read-only transaction's range as one entry, validated by the sum of its versions.
  __device__ __forceinline__ long long sum_range(uint32_t region, uint32_t first, uint32_t count,
                                                 uint32_t wrap) {
    if (status_ != kActive) return 0;
    if (n_writes_ != 0 || range_count_ != 0 || count == 0) {
      if (count != 0) overflow();
      return 0;
    }
    long long sum = 0;
    unsigned long long versions = 0;
    uint32_t index = first;
    for (uint32_t j = 0; j < count; ++j) {
      const word_t w = mem::load_acquire(view_.locks + view_.lock_of(region, index));
      if (lock_word::locked(w)) {
        abort(kAbortReadLocked);
        return 0;
      }
      versions += lock_word::version(w);
      sum += static_cast<long long>(static_cast<int64_t>(view_.load_word(region, index)));
      index = index + 1 == wrap ? 0 : index + 1;
    }
    range_region_ = region;
    range_first_ = first;
    range_count_ = count;
    range_wrap_ = wrap;
    range_versions_ = versions;
    return sum;
  }

  /// Buffers a write (32-bit words sign-extended, as reads return them); the first write under a
  /// lock joins the lock set through the derived class's track_write.
  __device__ __forceinline__ void write(uint32_t region, uint32_t index, uint64_t bits) {
    if (status_ != kActive) return;
    if (view_.regions[region].word_bytes == 4) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)));
    }
    if (range_count_ != 0) return overflow();  // a range is for read-only transactions
    bool buffered = false;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_writes_ && w_region_[s] == region && w_index_[s] == index;
      w_value_[s] = hit ? bits : w_value_[s];
      buffered = buffered || hit;
    }
    if (buffered) return;
    if (n_writes_ == CAPACITY) return overflow();
    const uint32_t lock = view_.lock_of(region, index);
    if (!mark_written(lock) && !self().track_write(lock)) return;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s == n_writes_) {
        w_region_[s] = region;
        w_index_[s] = index;
        w_value_[s] = bits;
      }
    }
    ++n_writes_;
  }

  /// After a semantic conflict or a program's early end: true if what was read still holds.
  __device__ __forceinline__ bool confirm_semantic() {
    mem::fence_acq_rel();
    return validated();
  }

  /// Validates and commits; false means aborted (see abort_cause) or overflowed.
  __device__ __forceinline__ bool commit() {
    if (status_ != kActive) return false;
    mem::fence_acq_rel();
    if (n_writes_ == 0) return self().commit_read_only();
    return self().commit_writes();
  }

  /// Writes the history of a committed transaction; returns reads | writes << 16.
  __device__ __forceinline__ uint32_t record(unsigned long long* reads,
                                             unsigned long long* writes) const {
    uint32_t nw = 0;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_locks_) {
        const unsigned long long l = static_cast<unsigned long long>(lock_idx_[s]) << 32;
        const uint32_t v = self().recorded_version(s);
        reads[s] = l | v;
        if ((written_ >> s) & 1u) writes[nw++] = l | static_cast<uint32_t>(v + 1);
      }
    }
    return static_cast<uint32_t>(n_locks_) | (nw << 16);
  }

  /// What the commit counts besides its outcome (the obstruction-free STM: locks stolen).
  __device__ __forceinline__ uint32_t stolen() const { return 0; }

 protected:
  __device__ __forceinline__ Derived& self() { return static_cast<Derived&>(*this); }
  __device__ __forceinline__ const Derived& self() const {
    return static_cast<const Derived&>(*this);
  }

  /// A read-only commit: confirm_semantic, its fence included (GPU-STM's skips that one).
  __device__ __forceinline__ bool commit_read_only() { return confirm_semantic() && done(); }

  /// True if the derived class's reads_current() holds, else a validation abort.
  __device__ __forceinline__ bool validated() {
    if (self().reads_current()) return true;
    abort(kAbortValidation);
    return false;
  }

  /// The version the history records slot s as read at: the one read, unless overridden.
  __device__ __forceinline__ uint32_t recorded_version(int s) const { return lock_ver_[s]; }

  /// Logs word `index` of `region` as read with `value` (the caller checked the capacity).
  __device__ __forceinline__ void log_read(uint32_t region, uint32_t index, uint64_t value) {
#pragma unroll kUnroll
    for (int e = 0; e < CAPACITY; ++e) {
      if (e == n_reads_) {
        r_region_[e] = region;
        r_index_[e] = index;
        r_value_[e] = value;
      }
    }
    ++n_reads_;
  }

  /// Adds a lock to the set in the order met, or checks that one already there was read at the
  /// same version (two words under one lock must be one snapshot).
  __device__ __forceinline__ void join(uint32_t lock, uint32_t version, bool written) {
    bool known = false;
    bool consistent = true;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_locks_ && lock_idx_[s] == lock;
      consistent = consistent && !(hit && lock_ver_[s] != version);
      written_ |= (hit && written) ? bit(s) : static_cast<mask_t>(0);
      known = known || hit;
    }
    if (!consistent) return abort(kAbortValidation);
    if (known) return;
    if (n_locks_ == CAPACITY) return overflow();
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s == n_locks_) {
        lock_idx_[s] = lock;
        lock_ver_[s] = version;
      }
    }
    if (written) written_ |= bit(n_locks_);
    ++n_locks_;
  }

  /// Marks a lock already in the set as written; false if it is not in the set.
  __device__ __forceinline__ bool mark_written(uint32_t lock) {
    bool known = false;
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_locks_ && lock_idx_[s] == lock;
      written_ |= hit ? bit(s) : static_cast<mask_t>(0);
      known = known || hit;
    }
    return known;
  }

  /// Stores every buffered write (the caller holds all their locks), between the fences that
  /// order the stores after the locks and before the versions move.
  __device__ __forceinline__ void write_back_all() const {
    mem::fence_acq_rel();  // locks are held before any value changes
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_writes_) view_.store_word(w_region_[s], w_index_[s], w_value_[s]);
    }
    mem::fence_acq_rel();  // values are visible before the versions move
  }

  /// Stores the buffered writes under `lock` (the caller holds it exclusively).
  __device__ __forceinline__ void write_back(uint32_t lock) const {
#pragma unroll kUnroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_writes_ && view_.lock_of(w_region_[s], w_index_[s]) == lock) {
        view_.store_word(w_region_[s], w_index_[s], w_value_[s]);
      }
    }
  }

  /// True when no range was read, or none of its locks is locked and their versions add up to
  /// what the reads saw (versions only grow, so an equal sum means none moved).
  __device__ __forceinline__ bool range_unchanged() const {
    if (range_count_ == 0) return true;
    unsigned long long versions = 0;
    bool locked = false;
    uint32_t index = range_first_;
    for (uint32_t j = 0; j < range_count_; ++j) {
      const word_t w = mem::load_relaxed(view_.locks + view_.lock_of(range_region_, index));
      locked = locked || lock_word::locked(w);
      versions += lock_word::version(w);
      index = index + 1 == range_wrap_ ? 0 : index + 1;
    }
    return !locked && versions == range_versions_;
  }

  __device__ __forceinline__ void abort(int cause) {
    status_ = kAborted;
    cause_ = static_cast<uint8_t>(cause);
  }
  __device__ __forceinline__ void overflow() { status_ = kOverflow; }
  __device__ __forceinline__ bool done() {
    status_ = kDone;
    return true;
  }

  const StoreView& view_;
  const uint32_t owner_;
  uint8_t status_ = kActive;
  uint8_t cause_ = 0;
  int n_locks_ = 0;
  int n_writes_ = 0;
  int n_reads_ = 0;
  mask_t written_ = 0;  ///< bit s: lock s guards a word we write
  uint32_t range_region_ = 0;
  uint32_t range_first_ = 0;
  uint32_t range_count_ = 0;
  uint32_t range_wrap_ = 0;
  unsigned long long range_versions_ = 0;
  uint32_t lock_idx_[CAPACITY];
  uint32_t lock_ver_[CAPACITY];
  uint32_t w_region_[CAPACITY];
  uint32_t w_index_[CAPACITY];
  uint64_t w_value_[CAPACITY];
  uint32_t r_region_[CAPACITY];
  uint32_t r_index_[CAPACITY];
  uint64_t r_value_[CAPACITY];
};

}  // namespace gstm::detail

/// Opens a lock-table STM's transaction class `Tx<CAPACITY>` (CRTP over LockTableTx): names the
/// base and the members it uses, which a class template does not see in a dependent base
/// otherwise. Use inside the class body, before its first access specifier.
#define GSTM_LOCK_TABLE_TX_BASE(Tx)                          \
  using Base = detail::LockTableTx<Tx<CAPACITY>, CAPACITY>; \
  friend Base;                                              \
  using typename Base::word_t;                              \
  using typename Base::mask_t;                              \
  using Base::bit;                                          \
  using Base::kUnroll
