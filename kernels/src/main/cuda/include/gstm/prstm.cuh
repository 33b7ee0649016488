/// @file prstm.cuh
/// @brief PR-STM (Shen et al., Euro-Par 2015): invisible reads with versions, commit-time
///        locking in two steps (pre-lock, then lock) and a static priority rule under which a
///        thread with a lower id steals a pre-lock from a higher one, so there is neither
///        deadlock nor livelock.
///
/// Differences from the paper's Algorithm 2, each for correctness:
/// - Lock words are 64-bit (lock_word.cuh).
/// - Every lock in the set is pre-locked, read-only ones included, as the paper's text says
///   ("prelock on all data read/written"); the pre-lock CAS also checks the version read, so it
///   validates. After the written locks are locked, the read-only ones are validated again
///   (version unchanged, not locked): two transactions that read what the other writes cannot
///   both commit, and a stolen read-only pre-lock does not abort its owner (no livelock).
/// - Reads load the lock word with acquire semantics before the value, and commits fence before
///   and after write-back, so a value and its version are seen together (message passing). An
///   ordinary commit that writes and also validates read-only words without pre-locks lets its
///   fence.sc stand for the fence before its lock CASes and the one before its write-back; one
///   whose set is a single lock it writes needs no fence before its CAS (which checks the
///   version read), nor before its write-back when that CAS, an acquire, took the lock in one
///   step (commit()).
///
/// Progress for every transaction (the paper's static priorities can starve the highest ids: a
/// transaction whose reads are invalidated again and again never uses its priority, which only
/// decides pre-lock conflicts). A transaction that has lost `urgent_after` (a run option) attempts in a
/// row turns **urgent**: it draws a ticket from a per-batch counter and its owner becomes that
/// ticket, below every ordinary owner (`priority::kOrdinary` + thread id, the paper's rule among
/// them). An urgent transaction pre-locks each lock as it first meets it (visible reads): it steals
/// pre-locks from younger owners and waits, without counting an abort, while a committing writer
/// holds the lock or an older urgent transaction holds the pre-lock. No writer can then change
/// what it has read, so the oldest urgent transaction commits at its next attempt; waits point
/// from younger to older urgent transactions or to commits in progress, which never wait, so
/// they cannot form a cycle. Correctness still rests on the commit protocol alone.
///
/// One addition: `sum_range` lets a read-only transaction read more words than the sets hold
/// (an audit of every account). It keeps the range and the sum of the versions it saw instead of
/// one set entry per word, and commit re-reads the range's lock words: the transaction is valid
/// if none is locked and their versions add up to the same sum. That is exact because a version
/// never decreases (a commit adds one, an abort restores it; a 32-bit version does not wrap
/// within a transaction), so an equal sum means every version is unchanged.
#pragma once
#include <cstdint>
#include <type_traits>

#include "gstm/batch.cuh"
#include "gstm/lock_word.cuh"
#include "gstm/memory.cuh"
#include "gstm/store_view.cuh"

namespace gstm {

/// Owners (priorities) and the urgent mode; twin io.gstm.core.jvm.Priority.
namespace priority {
/// Ordinary owners are kOrdinary + thread id; urgent owners (tickets) lie below.
constexpr uint32_t kOrdinary = 1u << 29;
/// Longest wait of an urgent transaction for one lock (~1 s at the 1 us sleep cap): a safety net
/// against a holder that cannot finish (a bug), after which the attempt aborts as usual.
constexpr uint32_t kMaxWaits = 1u << 20;

__device__ __forceinline__ uint32_t ordinary(uint32_t thread) { return kOrdinary + thread; }

/// Draws the next ticket (older tickets outrank younger ones); counts the urgent transaction.
__device__ __forceinline__ uint32_t urgent(unsigned long long* counters) {
  return static_cast<uint32_t>(atomicAdd(counters + kUrgentCount, 1ull)) % kOrdinary;
}
}  // namespace priority

/// Runs `attempt(tx)` on a new transaction of `owner`: an urgent one (PrStmTx<..., true>) when
/// the owner is a ticket, else an ordinary one. `attempt` is a generic lambda, instantiated for
/// both; only the ordinary copy is hot. DYNAMIC: one type for both (PrStmTx's DYNAMIC), so
/// `attempt` is instantiated once.
template <int CAPACITY, bool PRE_LOCK_READS = true, bool DYNAMIC = false, typename Attempt>
__device__ __forceinline__ void with_attempt(const StoreView& view, uint32_t owner, Attempt&& attempt);

/// One PR-STM transaction with read, write and lock sets of at most CAPACITY entries, held in
/// registers: every loop over a set is unrolled and predicated, so nothing is indexed
/// dynamically and nothing spills to local memory.
///
/// PRE_LOCK_READS = false leaves the read-only locks out of the pre-lock step. Serializability
/// does not rest on those pre-locks (they are stealable, and a stolen one does not abort its
/// owner): it rests on locking every written lock and then, after fence.sc, finding every
/// read-only lock at the version read and not locked (TL2). Their only use is priority, and
/// the price is that readers of one word refuse each other (a pre-lock held by a lower id
/// refuses a higher one even when both only read it). Kernels whose transactions share a hot
/// read-only word (many chunks of one vertex read its value) and that retry a bounded number
/// of times anyway may turn them off.
///
/// URGENT = true is an urgent attempt (its owner a ticket below priority::kOrdinary): visible
/// reads. A type of its own so that ordinary attempts, nearly all of them, run code without any
/// of it (checked at run time at every read and write, it cost the kernels 4-6%): kernels pick
/// the type by the owner (with_attempt()).
///
/// DYNAMIC = true (URGENT then false) is one type for both, urgency read from the owner at run
/// time: compiled programs (jit/program_jit.cu) inline the program's body once instead of once
/// per type, which is most of what ptxas spends on a new program set.
template <int CAPACITY, bool PRE_LOCK_READS = true, bool URGENT = false, bool DYNAMIC = false>
class PrStmTx {
  static_assert(!(URGENT && DYNAMIC), "a dynamic attempt reads its urgency from its owner");
  static_assert(CAPACITY >= 1 && CAPACITY <= 64, "set masks are at most 64-bit");
  using word_t = lock_word::word_t;
  /// Set masks: 32-bit up to 32 entries (every built-in kernel), 64-bit for programs beyond.
  using mask_t = std::conditional_t<(CAPACITY > 32), unsigned long long, uint32_t>;
  __device__ __forceinline__ static mask_t bit(int s) { return static_cast<mask_t>(1) << s; }

 public:
  enum Status : uint8_t { kActive, kAborted, kOverflow, kSemantic, kEnded, kDone };

  __device__ __forceinline__ PrStmTx(const StoreView& view, uint32_t owner)
      : view_(view), owner_(owner) {
    if constexpr (DYNAMIC) urgent_ = owner < priority::kOrdinary;  // the others never read it
  }

  /// Whether this attempt runs urgent (an owner below priority::kOrdinary): visible reads.
  /// Inside the class the same test is written `(DYNAMIC ? urgent_ : URGENT)`, a constant the
  /// front end folds for the fixed types: through a call, the graph kernels' register
  /// allocation and spills changed.
  __device__ __forceinline__ bool urgent() const { return DYNAMIC ? urgent_ : URGENT; }

  __device__ __forceinline__ bool active() const { return status_ == kActive; }
  /// The attempt's owner (its priority): what a fresh attempt is built from, with its view.
  __device__ __forceinline__ uint32_t owner() const { return owner_; }
  __device__ __forceinline__ bool overflowed() const { return status_ == kOverflow; }
  __device__ __forceinline__ bool semantic() const { return status_ == kSemantic; }

  /// The body cannot proceed in the state it read (overdraft, sold out, empty buffer).
  __device__ __forceinline__ void semantic_conflict() {
    if (status_ == kActive) status_ = kSemantic;
  }

  /// A program ends the attempt with a final outcome (a user abort, a fault); it stands if the
  /// reads prove consistent (confirm_semantic), else the attempt is a concurrency conflict.
  __device__ __forceinline__ void end(uint8_t outcome) {
    if (status_ == kActive) {
      status_ = kEnded;
      cause_ = outcome;
    }
  }
  __device__ __forceinline__ bool ended() const { return status_ == kEnded; }
  /// The outcome an ended attempt chose (valid while ended()).
  __device__ __forceinline__ uint8_t end_outcome() const { return cause_; }

  /// After a semantic conflict: true if every version read is still current, so the conflict is
  /// real; false (a validation abort) if the body saw an inconsistent state.
  __device__ __forceinline__ bool confirm_semantic() {
    mem::fence_acq_rel();
    const bool valid = validate_reads();
    release_visible();
    if (valid) return true;
    abort(kAbortValidation);
    return false;
  }
  /// An urgent attempt that lost to an older urgent transaction (which alone can take what the
  /// attempt has pre-locked): waiting its turn, not a failure, so the kernels do not count it
  /// against the retry limit. Range reads are not pre-locked: their failures count.
  __device__ __forceinline__ bool lost_in_line() const { return lost_in_line_; }

  /// The Counter index of the abort cause (valid after a failed commit that was not an overflow).
  __device__ __forceinline__ int abort_cause() const { return cause_; }

  /// Reads word `index` of `region` as raw bits (sign-extended for 32-bit words).
  __device__ __forceinline__ uint64_t read(uint32_t region, uint32_t index) {
    if (status_ != kActive) return 0;
    // Set lookups select values instead of returning from inside the loop: an early exit makes
    // the compiler address the set through a pointer and moves it to local memory.
    bool buffered = false;
    uint64_t value = 0;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_writes_ && w_region_[s] == region && w_index_[s] == index;
      value = hit ? w_value_[s] : value;
      buffered = buffered || hit;
    }
    if (buffered) return value;
    const uint32_t lock = view_.lock_of(region, index);
    // A word whose lock the set holds already (another word of a row under one lock: a
    // vertex's hop count after its distance) is read without loading the lock again: this
    // read comes after that lock's acquire load, so it sees at least the version the set
    // holds, and a writer since moves the version, which commit() validates (the check here
    // only aborted earlier). One round trip fewer, on the transaction's critical path.
    if (in_set(lock)) return view_.load_word(region, index);
    if ((DYNAMIC ? urgent_ : URGENT) && !take_visible(lock)) return 0;
    const word_t w = mem::load_acquire(view_.locks + lock);
    if (lock_word::locked(w)) {
      // Only an older urgent one takes an urgent attempt's pre-lock.
      lost_in_line_ = (DYNAMIC ? urgent_ : URGENT);
      abort(kAbortReadLocked);
      return 0;
    }
    value = view_.load_word(region, index);
    track(lock, lock_word::version(w), false);
    return value;
  }

  /// Reads word `index` of `region` outside the read set: only for read-only data that no
  /// transaction writes (a graph's edges, k-means points); no lock, no validation, no set entry.
  __device__ __forceinline__ uint64_t read_shared(uint32_t region, uint32_t index) const {
    return status_ == kActive ? view_.load_word(region, index) : 0;
  }

  /// Reads `count` consecutive words of `region` from `first` (wrapping to 0 at `wrap`) and
  /// returns the sum of their signed values, as one read-set entry however long the range: for
  /// read-only transactions (a write after it, or a range in a transaction that has written or
  /// already holds a range, ends kOverflow). Validated at commit by the sum of the versions.
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

  /// Buffers a write of raw bits to word `index` of `region`; applied at commit. A 32-bit word
  /// is kept sign-extended, as a read of the store returns it, so that reading it back from the
  /// buffer gives the same bits (the JVM engine does the same).
  __device__ __forceinline__ void write(uint32_t region, uint32_t index, uint64_t bits) {
    if (status_ != kActive) return;
    if (view_.regions[region].word_bytes == 4) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)));
    }
    if (range_count_ != 0) return overflow();  // sum_range is for read-only transactions
    bool buffered = false;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_writes_ && w_region_[s] == region && w_index_[s] == index;
      w_value_[s] = hit ? bits : w_value_[s];
      buffered = buffered || hit;
    }
    if (buffered) return;
    if (n_writes_ == CAPACITY) return overflow();
    const uint32_t lock = view_.lock_of(region, index);
    if (!mark_written(lock)) {
      if ((DYNAMIC ? urgent_ : URGENT) && !take_visible(lock)) return;
      const word_t w = mem::load_acquire(view_.locks + lock);
      if (lock_word::locked(w)) {
        lost_in_line_ = (DYNAMIC ? urgent_ : URGENT);
        return abort(kAbortReadLocked);
      }
      track(lock, lock_word::version(w), true);
      if (status_ != kActive) return;
    }
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s == n_writes_) {
        w_region_[s] = region;
        w_index_[s] = index;
        w_value_[s] = bits;
      }
    }
    ++n_writes_;
  }

  // ---- Fixed slots: a compiled program whose set entries the compiler laid out
  // (io.gstm.core.cuda.ptx.StaticSets) reads and writes through these, each access told its
  // lock's slot and its write's, so that no set is searched. The compiler has proven, with a
  // check of the indices at run time, that distinct slots are distinct locks and words; the
  // attempt is an ordinary one and active (the generated body leaves at the first that is not).
  // A slot comes as a one-bit mask, not a number: under `if (s == slot)` the front end puts
  // `slot` for `s` and indexes the set at run time, which moves it to local memory.

  /// read() of a word whose lock is not in the set yet: the lock takes the slot of bit `slot`,
  /// the set's `size`-th.
  __device__ __forceinline__ uint64_t read_new_lock(uint32_t region, uint32_t index,
                                                    mask_t slot, int size) {
    static_assert(!URGENT, "an urgent attempt pre-locks what it reads: it searches its set");
    const uint32_t lock = view_.lock_of(region, index);
    const word_t w = mem::load_acquire(view_.locks + lock);
    if (lock_word::locked(w)) {
      abort(kAbortReadLocked);
      return 0;
    }
    const uint64_t value = view_.load_word(region, index);
    take_slot(slot, size, lock, lock_word::version(w));
    return value;
  }

  /// The value this attempt wrote to the word of write slot bit `slot` (read() of a written
  /// word).
  __device__ __forceinline__ uint64_t buffered(mask_t slot) const {
    uint64_t value = 0;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) value = ((slot >> s) & 1u) ? w_value_[s] : value;
    return value;
  }

  /// write() with its lock's slot bit `lock_slot` (`lock_size` nonzero: the lock is new to the
  /// set, its `lock_size`-th) and its word's write slot bit `write_slot` (`write_size` nonzero:
  /// a word not written yet, the write set's `write_size`-th).
  __device__ __forceinline__ void write_at(uint32_t region, uint32_t index, uint64_t bits,
                                           mask_t lock_slot, int lock_size, mask_t write_slot,
                                           int write_size) {
    static_assert(!URGENT, "an urgent attempt pre-locks what it writes: it searches its set");
    if (view_.regions[region].word_bytes == 4) {
      bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(bits)));
    }
    if (lock_size != 0) {
      const uint32_t lock = view_.lock_of(region, index);
      const word_t w = mem::load_acquire(view_.locks + lock);
      if (lock_word::locked(w)) return abort(kAbortReadLocked);
      take_slot(lock_slot, lock_size, lock, lock_word::version(w));
    }
    written_ |= lock_slot;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool here = (write_slot >> s) & 1u;
      w_region_[s] = here && write_size != 0 ? region : w_region_[s];
      w_index_[s] = here && write_size != 0 ? index : w_index_[s];
      w_value_[s] = here ? bits : w_value_[s];
    }
    if (write_size != 0) n_writes_ = write_size;
  }

  /// commit() where the compiler knows the sets' sizes, the locks written (bit s: slot s) and
  /// the inputs: as constants, they fold the commit's loops over the set to the slots there
  /// are. The body commits so; the kernel's commit() after it then finds the attempt done (or
  /// aborted).
  __device__ __forceinline__ void commit_fixed(int locks, mask_t written, int writes,
                                               mask_t inputs) {
    static_assert(!URGENT, "an urgent attempt's sets are its own");
    if constexpr (DYNAMIC) urgent_ = false;  // fixed slots are an ordinary attempt's
    n_locks_ = locks;
    written_ = written;
    n_writes_ = writes;
    commit(inputs);
  }

  /// Validates and commits; false means aborted (see abort_cause) or overflowed; true for an
  /// attempt its body committed already (commit_fixed).
  ///
  /// `inputs` (bit s: slot s) are locks the attempt only reads and whose words it takes as a
  /// snapshot (a relaxation's source: io.gstm.core.cuda.ptx.StaticSets): where every lock it
  /// only reads is one and it writes, an ordinary attempt checks them once, after a fence that
  /// follows their words' loads and beside its lock CAS (their words were one version when
  /// read: the seqlock's check), and not again after it takes its locks. What it writes stays
  /// atomic with what it read under the locks it takes; what it read of the inputs may have
  /// changed by its commit, as the built-in relaxations' source value may (a source that changes
  /// queues its edges again). Elsewhere inputs are validated as every read is.
  __device__ __forceinline__ bool commit(mask_t inputs = 0) {
    if (status_ != kActive) {
      if (status_ == kDone) return true;
      release_visible();  // an attempt that aborted or overflowed in its body
      return false;
    }
    // Without read pre-locks (an ordinary attempt), a set that writes and also only reads some
    // words meets a fence.sc below before it validates those and before it stores, which orders
    // the reads and lock CASes as the two acquire-release fences it then skips would: a word it
    // writes cannot change between its read and its lock CAS, which checks the version read,
    // and the words it only reads are validated after the fence.sc. Two fences of four a
    // commit (a graph round's transaction): the grids' relaxations 9% faster on the H200.
    const mask_t in_set =
        n_locks_ == static_cast<int>(8 * sizeof(mask_t)) ? ~static_cast<mask_t>(0) : bit(n_locks_) - 1;
    const mask_t read_only = in_set & ~written_;
    const bool snapshot = !PRE_LOCK_READS && !(DYNAMIC ? urgent_ : URGENT) && written_ != 0 &&
                          read_only != 0 && (read_only & ~inputs) == 0;
    const mask_t late = snapshot ? 0 : read_only;  // validated after the lock CASes
    const bool sc_fenced = !PRE_LOCK_READS && !(DYNAMIC ? urgent_ : URGENT) && written_ != 0 &&
                           late != 0;
    // A set of one lock that it writes needs no fence before its lock CAS either: its reads
    // came after that lock's acquire load, and the CASes below take the lock only at the
    // version read, so nothing they read can have changed (a graph relaxation, whose source's
    // value is an input: benchmark-log.md, 2026-12-02 afternoon).
    const bool one_written = !(DYNAMIC ? urgent_ : URGENT) && n_locks_ == 1 && written_ == 1;
    if (!sc_fenced && !one_written) mem::fence_acq_rel();  // the reads happen before the checks
    if (written_ == 0) return commit_read_only();
    // A snapshot's inputs loaded again now, checked after the lock CAS (which does not wait
    // for them).
    word_t input_now[CAPACITY];
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      input_now[s] = snapshot && ((read_only >> s) & 1u)
                         ? mem::load_relaxed(view_.locks + lock_idx_[s]) : 0;
    }

    // One lock to take (a relaxation's written word, a transaction of one word): one CAS from
    // the word as it was read (unlocked at that version) straight to locked, as the pre-lock
    // and lock CASes below leave it when no one comes between them; a word that moved on or
    // that anyone holds or pre-locks goes the usual way. Two round trips of five fewer: a
    // chain of such transactions 20% faster on the H200 (benchmark-log.md).
    mask_t pre = 0;
    mask_t held = 0;
    int failure = -1;
    const mask_t to_take = PRE_LOCK_READS ? in_set : (written_ & in_set);
    if (!(DYNAMIC ? urgent_ : URGENT) && (to_take & (to_take - 1)) == 0) {
#pragma unroll
      for (int s = 0; s < CAPACITY; ++s) {
        if ((to_take >> s) & 1u) {
          const word_t free = lock_word::unlocked(lock_ver_[s]);
          if (mem::cas_acquire(view_.locks + lock_idx_[s], free,
                               lock_word::locked_by(lock_ver_[s], owner_)) == free) {
            held = bit(s);
          }
        }
      }
    }
    // Pre-lock every lock in the set; the CAS succeeds only on the version we read. No early
    // returns inside the unrolled loops: they would stop unrolling and push the sets to local memory.
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (held == 0 && failure < 0 && s < n_locks_ && (PRE_LOCK_READS || ((written_ >> s) & 1u))) {
        word_t* lock = view_.locks + lock_idx_[s];
        const word_t mine = lock_word::pre_locked_by(lock_ver_[s], owner_);
        word_t w = mem::load_relaxed(lock);
        while (true) {
          if (lock_word::version(w) != lock_ver_[s]) {
            failure = kAbortValidation;
            break;
          }
          if (lock_word::locked(w) || (lock_word::pre_locked(w) && lock_word::owner(w) < owner_)) {
            failure = kAbortPreLockRefused;
            break;
          }
          const word_t seen = mem::cas(lock, w, mine);
          if (seen == w) break;
          w = seen;
        }
        if (failure < 0) pre |= bit(s);
      }
    }
    // Lock what we write; a failed CAS means a higher priority stole the pre-lock.
    const bool taken = held != 0;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (!taken && failure < 0 && ((written_ >> s) & 1u)) {
        const word_t mine = lock_word::pre_locked_by(lock_ver_[s], owner_);
        if (mem::cas(view_.locks + lock_idx_[s], mine, lock_word::locked_by(lock_ver_[s], owner_)) == mine) {
          held |= bit(s);
        } else {
          failure = kAbortStolen;
        }
      }
    }
    // With every written lock held, what we only read must be unchanged and not locked by a
    // writer (TL2-style; a stolen read-only pre-lock alone is no reason to abort: requiring it
    // let a higher priority that stole it, then met our locked write, abort us both forever).
    // fence.sc: our lock CASes and these loads must not pass each other (store buffering).
    if (failure < 0 && late != 0) mem::fence_sc();  // only with read-only locks
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (failure < 0 && ((late >> s) & 1u)) {
        const word_t w = mem::load_relaxed(view_.locks + lock_idx_[s]);
        if (lock_word::version(w) != lock_ver_[s] || lock_word::locked(w)) failure = kAbortStolen;
      }
    }
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (failure < 0 && snapshot && ((read_only >> s) & 1u) &&
          (lock_word::version(input_now[s]) != lock_ver_[s] || lock_word::locked(input_now[s]))) {
        failure = kAbortValidation;
      }
    }
    if (failure >= 0) {
      release((DYNAMIC ? urgent_ : URGENT) ? pre | visible_ : pre, held);
      visible_ = 0;
      lost_in_line_ = (DYNAMIC ? urgent_ : URGENT);
      abort(failure);
      return false;
    }
    // Locks are held before any value changes (after the fence.sc, already so; the stores wait
    // for the validation's loads, on which they depend; after the one CAS above, an acquire, so
    // too: the 2^20 grid's relaxations 6% faster without this fence).
    if (!sc_fenced && !taken) mem::fence_acq_rel();
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_writes_) view_.store_word(w_region_[s], w_index_[s], w_value_[s]);
    }
    mem::fence_acq_rel();  // values are visible before the versions move
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_locks_) {
        word_t* lock = view_.locks + lock_idx_[s];
        if ((written_ >> s) & 1u) {
          mem::store_relaxed(lock, lock_word::unlocked(lock_ver_[s] + 1));
        } else if (PRE_LOCK_READS || ((DYNAMIC ? urgent_ : URGENT) && ((visible_ >> s) & 1u))) {
          mem::cas(lock, lock_word::pre_locked_by(lock_ver_[s], owner_),
                    lock_word::unlocked(lock_ver_[s]));
        }
      }
    }
    status_ = kDone;
    return true;
  }

  /// Writes the history of a committed transaction; returns reads | writes << 16.
  __device__ __forceinline__ uint32_t record(unsigned long long* reads, unsigned long long* writes) const {
    uint32_t nw = 0;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_locks_) {
        const unsigned long long l = static_cast<unsigned long long>(lock_idx_[s]) << 32;
        reads[s] = l | lock_ver_[s];
        if ((written_ >> s) & 1u) writes[nw++] = l | static_cast<uint32_t>(lock_ver_[s] + 1);
      }
    }
    return static_cast<uint32_t>(n_locks_) | (nw << 16);
  }

  __device__ __forceinline__ bool read_only() const { return written_ == 0; }

  /// Whether this attempt wrote word `index` of `region`, and if so what (`bits`: a 32-bit
  /// word sign-extended, as StoreView::load_word reads it): after a commit, the word's value
  /// without a load.
  __device__ __forceinline__ bool wrote(uint32_t region, uint32_t index, uint64_t& bits) const {
    bool hit = false;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool here = s < n_writes_ && w_region_[s] == region && w_index_[s] == index;
      bits = here ? w_value_[s] : bits;
      hit = hit || here;
    }
    return hit;
  }

 private:
  __device__ __forceinline__ bool validate_reads() {
    bool valid = true;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s < n_locks_) {
        const word_t w = mem::load_relaxed(view_.locks + lock_idx_[s]);
        valid = valid && lock_word::version(w) == lock_ver_[s] && !lock_word::locked(w);
      }
    }
    // An urgent attempt's set is pre-locked: see lost_in_line.
    lost_in_line_ = (DYNAMIC ? urgent_ : URGENT) && !valid;
    return valid && range_unchanged();
  }

  /// True when no range was read, or when none of its locks is locked and their versions add up
  /// to what the reads saw (versions only grow, so an equal sum means none moved).
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

  __device__ __forceinline__ bool commit_read_only() {
    const bool valid = validate_reads();
    release_visible();
    if (!valid) {
      abort(kAbortValidation);
      return false;
    }
    status_ = kDone;
    return true;
  }

  /// An urgent attempt's pre-lock of a lock it meets for the first time: steals a younger
  /// owner's pre-lock, waits while the lock is held or an older owner's pre-lock stands. False
  /// (attempt ended) if the sets are full or the wait outlasts priority::kMaxWaits.
  __device__ __forceinline__ bool take_visible(uint32_t lock) {
    if (in_set(lock)) return true;
    if (n_locks_ == CAPACITY) {
      overflow();
      return false;
    }
    const word_t w = pre_lock_visibly(view_.locks + lock, owner_);
    if (must_wait(w, owner_)) {
      abort(lock_word::locked(w) ? kAbortReadLocked : kAbortPreLockRefused);
      return false;
    }
    // Fill the slot track() gives this lock next, so that an abort before track() releases the
    // right lock word (an unfilled slot would name a stale index).
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s == n_locks_) {
        lock_idx_[s] = lock;
        lock_ver_[s] = lock_word::version(w);
      }
    }
    visible_ |= bit(n_locks_);
    return true;
  }

  /// Held by a commit, or pre-locked by an older owner: an urgent attempt waits.
  __device__ __forceinline__ static bool must_wait(word_t w, uint32_t owner) {
    return lock_word::locked(w) || (lock_word::pre_locked(w) && lock_word::owner(w) < owner);
  }

  /// Pre-locks `word` for `owner` at its current version once must_wait() no longer holds;
  /// returns the word it replaced, or (must_wait() true) the last one seen after
  /// priority::kMaxWaits waits.
  __device__ __forceinline__ static word_t pre_lock_visibly(word_t* word, uint32_t owner) {
    word_t w = mem::load_relaxed(word);
    uint32_t sleep_ns = 32;
    for (uint32_t waits = 0;;) {
      if (must_wait(w, owner)) {
        if (++waits > priority::kMaxWaits) return w;
        __nanosleep(sleep_ns);
        sleep_ns = min(sleep_ns * 2, 1024u);
        w = mem::load_relaxed(word);
        continue;
      }
      const word_t seen = mem::cas(word, w, lock_word::pre_locked_by(lock_word::version(w), owner));
      if (seen == w) return w;
      w = seen;
    }
  }

  __device__ __forceinline__ bool in_set(uint32_t lock) const {
    bool known = false;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) known = known || (s < n_locks_ && lock_idx_[s] == lock);
    return known;
  }

  /// Adds a lock to the set, or checks the version of one already there.
  __device__ __forceinline__ void track(uint32_t lock, uint32_t version, bool written) {
    bool known = false;
    bool consistent = true;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_locks_ && lock_idx_[s] == lock;
      consistent = consistent && !(hit && lock_ver_[s] != version);
      written_ |= (hit && written) ? bit(s) : static_cast<mask_t>(0);
      known = known || hit;
    }
    if (!consistent) {
      lost_in_line_ = (DYNAMIC ? urgent_ : URGENT);
      return abort(kAbortValidation);
    }
    if (known) return;
    if (n_locks_ == CAPACITY) return overflow();
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      if (s == n_locks_) {
        lock_idx_[s] = lock;
        lock_ver_[s] = version;
      }
    }
    if (written) written_ |= bit(n_locks_);
    ++n_locks_;
  }

  /// Puts a lock new to the set in the slot of bit `slot`, the set's `size`-th (fixed slots).
  __device__ __forceinline__ void take_slot(mask_t slot, int size, uint32_t lock,
                                            uint32_t version) {
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool here = (slot >> s) & 1u;
      lock_idx_[s] = here ? lock : lock_idx_[s];
      lock_ver_[s] = here ? version : lock_ver_[s];
    }
    n_locks_ = size;
  }

  /// Marks a lock already in the set as guarding a write; false if it is not in the set.
  __device__ __forceinline__ bool mark_written(uint32_t lock) {
    bool known = false;
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      const bool hit = s < n_locks_ && lock_idx_[s] == lock;
      written_ |= hit ? bit(s) : static_cast<mask_t>(0);
      known = known || hit;
    }
    return known;
  }

  /// Undoes pre-locks (by CAS: they may have been stolen) and locks (by store: nobody steals them).
  __device__ __forceinline__ void release(mask_t pre, mask_t held) {
#pragma unroll
    for (int s = 0; s < CAPACITY; ++s) {
      word_t* lock = view_.locks + lock_idx_[s];
      if ((held >> s) & 1u) {
        mem::store_relaxed(lock, lock_word::unlocked(lock_ver_[s]));
      } else if ((pre >> s) & 1u) {
        mem::cas(lock, lock_word::pre_locked_by(lock_ver_[s], owner_), lock_word::unlocked(lock_ver_[s]));
      }
    }
  }

  // An attempt that ends in its body keeps its visible pre-locks until the kernel ends it
  // (commit() or confirm_semantic(), called after every attempt): released there, one copy of
  // the release loop per kernel instead of one at every abort site.
  __device__ __forceinline__ void abort(int cause) {
    status_ = kAborted;
    cause_ = cause;
  }
  __device__ __forceinline__ void overflow() { status_ = kOverflow; }
  __device__ __forceinline__ void release_visible() {
    if ((DYNAMIC ? urgent_ : URGENT) && visible_ != 0) {  // only urgent attempts have any
      release(visible_, 0);
      visible_ = 0;
    }
  }

  const StoreView& view_;
  const uint32_t owner_;
  uint8_t status_ = kActive;
  uint8_t cause_ = 0;
  bool lost_in_line_ = false;
  bool urgent_;  ///< DYNAMIC only: the owner is a ticket (urgent()); unset otherwise
  int n_locks_ = 0;
  int n_writes_ = 0;
  mask_t written_ = 0;  ///< bit s: lock s guards a word we write
  mask_t visible_ = 0;  ///< bit s: an urgent attempt pre-locked lock s when it met it
  uint32_t range_region_ = 0;  ///< the sum_range read, if any (range_count_ > 0)
  uint32_t range_first_ = 0;
  uint32_t range_count_ = 0;
  uint32_t range_wrap_ = 0;
  unsigned long long range_versions_ = 0;  ///< sum of the versions its reads saw
  uint32_t lock_idx_[CAPACITY];
  uint32_t lock_ver_[CAPACITY];
  uint32_t w_region_[CAPACITY];
  uint32_t w_index_[CAPACITY];
  uint64_t w_value_[CAPACITY];
};

template <int CAPACITY, bool PRE_LOCK_READS, bool DYNAMIC, typename Attempt>
__device__ __forceinline__ void with_attempt(const StoreView& view, uint32_t owner, Attempt&& attempt) {
  if constexpr (DYNAMIC) {
    PrStmTx<CAPACITY, PRE_LOCK_READS, false, true> tx(view, owner);
    attempt(tx);
  } else if (owner < priority::kOrdinary) {
    PrStmTx<CAPACITY, PRE_LOCK_READS, true> tx(view, owner);
    attempt(tx);
  } else {
    PrStmTx<CAPACITY, PRE_LOCK_READS, false> tx(view, owner);
    attempt(tx);
  }
}

}  // namespace gstm
