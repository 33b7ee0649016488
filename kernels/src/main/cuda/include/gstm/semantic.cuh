/// @file semantic.cuh
/// @brief The semantic contention manager of the JPDC PR-STM paper (Algorithm 3) over a generic
///        global transaction table. Twin of io.gstm.core.jvm.JvmExecutor; keep the two in step.
///
/// Thread `self` owns transactions self, self + T, self + 2T, ... of the table (T threads), in
/// chunks of 32 (one pending bit each). A concurrency conflict retries the same transaction under
/// PR-STM's priority rule. A semantic conflict (the application cannot proceed yet) either
/// postpones it, and the thread takes its next pending transaction, or retries it in place (the
/// GPU-STM comparator); after `semantic_limit` of them it is abandoned. The thread moves on to its
/// next chunk with pending transactions, wrapping around its whole share, when its chunk is done
/// or when a whole pass over the chunk committed nothing: so, as in Algorithm 3, a postponed
/// transaction waits while every other pending transaction of its thread gets a turn. A pass that
/// commits nothing also sleeps a little (doubling, capped), so the transactions it waits for get
/// the memory system. Waits that can never come true end as quiescence.cuh says. The outcome array, zeroed (kPending) before the launch, says which
/// transactions outside the current chunk are still pending.
#pragma once
#include <cstdint>

#include "gstm/batch.cuh"
#include "gstm/prstm.cuh"
#include "gstm/quiescence.cuh"
#include "gstm/store_view.cuh"

namespace gstm {

enum SemanticPolicy : uint32_t { kPostpone = 0, kRetryInPlace = 1 };

/// Longest backoff after repeated concurrency aborts under PR-STM: 32 ns << 8, about 8 us.
constexpr uint32_t kMaxBackoffShift = 8;

/// A generic transaction table: a type per transaction and int32 argument columns; column c of
/// transaction t is cols[c * tx_count + t]. Host packer: io.gstm.core.cuda.KernelStructs.
struct TxTable {
  const uint32_t* type;
  const int32_t* cols;
  long long* results;  ///< [tx_count] what committed read-only transactions return
  uint32_t tx_count;
  uint32_t ncols;
  int32_t params[6];

  __device__ __forceinline__ int32_t col(uint32_t c, uint32_t t) const {
    return cols[static_cast<size_t>(c) * tx_count + t];
  }
};

/// Where the semantic kernels write their results.
struct SemanticOut {
  uint8_t* outcome;                ///< [tx_count]
  uint32_t* semantic_conflicts;    ///< [tx_count] semantic conflicts met per transaction
  unsigned long long* counters;    ///< [kCounterCount]
  unsigned long long* hist_reads;  ///< as in BatchOut; null unless history mode
  unsigned long long* hist_writes;
  uint32_t* hist_counts;
  uint32_t max_retries;            ///< concurrency aborts before ABANDONED
  uint32_t semantic_limit;         ///< semantic conflicts before ABANDONED_SEMANTIC
  uint32_t policy;                 ///< SemanticPolicy
  uint32_t urgent_after;           ///< concurrency aborts in a row before urgent (prstm.cuh)
};

static_assert(sizeof(TxTable) == 56, "host packer assumes 56 bytes");
static_assert(sizeof(SemanticOut) == 64, "host packer assumes 64 bytes");

/// PR-STM (prstm.cuh), the default algorithm of run_semantic: the urgent mode on; a lane that
/// lost three attempts in a row sleeps before the next (doubling, capped) so that the winners'
/// CASes are not drowned by ours. The first retries stay immediate; the cap stays short because
/// the whole warp waits for a sleeping lane (1 ms made producer-consumer slower,
/// docs/benchmarks.md). Other algorithms over the lock table: lock_table_policies.cuh.
struct PrStmPolicy {
  static constexpr bool kUrgentMode = true;
  static constexpr int kCounters = kPrStmCounterCount;
  /// Runs `attempt(tx)` on each attempt's transaction (urgent or ordinary: with_attempt);
  /// `self` (the thread) is for algorithms with descriptors.
  template <int C, class Attempt>
  __device__ __forceinline__ void attempt(const StoreView& view, uint32_t owner, uint32_t,
                                          Attempt&& body) const {
    with_attempt<C>(view, owner, body);
  }
  /// The sleep after `conflicts` concurrency aborts in a row (0: none).
  __device__ __forceinline__ uint32_t backoff_ns(uint32_t conflicts) const {
    return conflicts > 2 ? 32u << min(conflicts - 2, kMaxBackoffShift) : 0u;
  }
};

/// PR-STM with one attempt type for ordinary and urgent attempts (PrStmTx's DYNAMIC): the
/// compiled programs' kernels, so that each inlines the program's body once.
struct PrStmDynamicPolicy : PrStmPolicy {
  template <int C, class Attempt>
  __device__ __forceinline__ void attempt(const StoreView& view, uint32_t owner, uint32_t,
                                          Attempt&& body) const {
    with_attempt<C, true, true>(view, owner, body);
  }
};

/// The set capacity a workload needs: `Ops::kMaxSetEntries` when it declares one (smaller sets,
/// fewer registers), else the kernel's CAPACITY.
template <class Ops, int CAPACITY, class = void>
struct SetCapacity {
  static constexpr int value = CAPACITY;
};
template <class Ops, int CAPACITY>
struct SetCapacity<Ops, CAPACITY, decltype(void(Ops::kMaxSetEntries))> {
  static constexpr int value = Ops::kMaxSetEntries < CAPACITY ? Ops::kMaxSetEntries : CAPACITY;
};

/// Runs a table with the transaction bodies of `Ops` (`Ops::run(tx, table, t, type)` returns the
/// result of a read-only transaction and calls tx.semantic_conflict() when it cannot proceed, or
/// tx.end(outcome) for a program's abort or fault). `Table` offers tx_count, type[] and results[]:
/// the generic TxTable, or a program table. `Policy` is the algorithm (PR-STM by default).
/// Concurrency aborts in a row after which a lane of a policy without an urgent mode waits for
/// its warp's other lanes in such a streak (run_semantic).
constexpr uint32_t kLockstepAborts = 8;

template <class Ops, int CAPACITY, class Table = TxTable, class Policy = PrStmPolicy>
__device__ __forceinline__ void run_semantic(const StoreView& view, const Table& tab,
                                             const SemanticOut& out,
                                             const Policy& policy = Policy()) {
  constexpr uint32_t kWindow = 32;
  const unsigned warp = __activemask();  // lanes that exist; all present and converged here
  ThreadCounters<Policy::kCounters> counters;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t threads = gridDim.x * blockDim.x;
  // This thread's transactions: self + i * threads for i < owned; chunk bit b is i = base + b.
  const uint32_t owned = self < tab.tx_count ? (tab.tx_count - self - 1) / threads + 1 : 0;
  uint32_t remaining = owned;  // not finished yet
  uint32_t base = 0;
  uint32_t pending = owned >= kWindow ? ~0u : (1u << owned) - 1u;
  // Moves to the next chunk, wrapping, that holds a pending transaction (the caller knows one does).
  auto next_chunk = [&]() {
    do {
      base = base + kWindow >= owned ? 0 : base + kWindow;
      pending = 0;
      for (uint32_t b = 0; b < kWindow && base + b < owned; ++b) {
        pending |= out.outcome[self + (base + b) * threads] == kPending ? (1u << b) : 0u;
      }
    } while (pending == 0);
  };
  uint32_t cursor = 0;
  uint32_t conflicts = 0;  // concurrency aborts of the current transaction in a row
  uint32_t owner = priority::ordinary(self);
  uint32_t fruitless = 0;
  uint32_t backoff_ns = 64;
  unsigned long long* const control = out.counters + kCounterCount;
  const uint32_t live0 = min(threads, tab.tx_count);
  quiescence::Streak streak;
  const uint32_t lane = threadIdx.x & 31u;
  while (__any_sync(warp, pending != 0)) {
    bool turn = pending != 0;
    if constexpr (!Policy::kUrgentMode) {
      // The lanes of a warp start their attempts together (the __syncwarp below) and run them
      // converged, so two that abort each other (each holds a lock the other validates) can
      // replay the same interleaving at every retry: a livelock no backoff breaks, seen on the
      // H100 under the blocking STM (full-contention skip list) and the obstruction-free one.
      // PR-STM's priority rule and urgent mode settle such pairs; the algorithms without them
      // let the lanes in a streak of aborts take turns, the lowest first, one per warp.
      const unsigned streaking = __ballot_sync(warp, turn && conflicts >= kLockstepAborts);
      if (turn && ((streaking >> lane) & 1u)) turn = __ffs(streaking) - 1 == static_cast<int>(lane);
    }
    if (turn) {
      const uint32_t rotated = __funnelshift_r(pending, pending, cursor);
      const uint32_t b = (__ffs(rotated) - 1 + cursor) % kWindow;
      const uint32_t t = self + (base + b) * threads;
      uint8_t outcome = kPending;
      // The body is inlined by force: called, it would keep the transaction (its read and write
      // sets) in local memory, not registers. The program interpreter is large enough that the
      // compiler stopped inlining it on its own for sets of 8 and more (sm_90, CUDA 13).
      policy.template attempt<SetCapacity<Ops, CAPACITY>::value>(view, owner, self,
          [&](auto& tx) __attribute__((always_inline)) {
        const long long result = Ops::run(tx, tab, t, tab.type[t]);
        bool concurrency_abort = false;
        if (tx.ended()) {
          // A program's abort or fault stands only if what it read was consistent.
          const uint8_t ended = tx.end_outcome();
          if (tx.confirm_semantic()) {
            outcome = ended;
          } else {
            concurrency_abort = true;
          }
        } else if (tx.semantic()) {
          if (tx.confirm_semantic()) {
            ++counters.c[kSemanticConflicts];
            conflicts = 0;
            owner = priority::ordinary(self);
            const uint32_t met = ++out.semantic_conflicts[t];
            const uint32_t pass = out.policy == kPostpone ? 2 * remaining + 2 * kWindow
                                                          : quiescence::kMinStreak;
            if (met >= out.semantic_limit) {
              outcome = kAbandonedSemantic;
            } else if (streak.conflict(control, pass, live0)) {
              outcome = kAbandonedSemantic;  // a wait in vain (quiescence.cuh)
              if (out.policy == kPostpone) {
                // Every pending transaction of this thread was tried: they all end.
                for (uint32_t i = 0; i < owned; ++i) {
                  const uint32_t u = self + i * threads;
                  if (u != t && out.outcome[u] == kPending) {
                    out.outcome[u] = kAbandonedSemantic;
                    ++counters.c[kAbandonedSemanticCount];
                  }
                }
                pending = 1u << b;
                remaining = 1;
              }
            } else if (out.policy == kPostpone) {
              cursor = (b + 1) % kWindow;
              if (++fruitless >= static_cast<uint32_t>(__popc(pending))) {
                __nanosleep(backoff_ns);
                backoff_ns = min(backoff_ns * 2, 8192u);
                fruitless = 0;
                if (remaining > static_cast<uint32_t>(__popc(pending))) {
                  next_chunk();
                  cursor = 0;
                }
              }
            }
          } else {
            concurrency_abort = true;
          }
        } else if (tx.commit()) {
          outcome = kCommitted;
          ++counters.c[kCommits];
          fruitless = 0;
          backoff_ns = 64;
          if (tx.read_only()) {
            ++counters.c[kReadOnlyCommits];
            tab.results[t] = result;
          }
          if (out.hist_counts != nullptr) {
            const size_t at = static_cast<size_t>(t) * CAPACITY;
            out.hist_counts[t] = tx.record(out.hist_reads + at, out.hist_writes + at);
          }
        } else if (tx.overflowed()) {
          outcome = kTooLarge;
        } else {
          concurrency_abort = true;
        }
        if constexpr (Policy::kCounters > kLocksStolen) counters.c[kLocksStolen] += tx.stolen();
        if (concurrency_abort) {
          streak.reset();
          counters.add(tx.abort_cause());
          if (!tx.lost_in_line()) ++conflicts;  // losing to an older urgent one is waiting in line
          if (conflicts >= out.max_retries) {
            outcome = kAbandoned;
          } else {
            if (Policy::kUrgentMode && conflicts == out.urgent_after && !tx.urgent()) {
              owner = priority::urgent(out.counters);  // prstm.cuh
            }
            const uint32_t pause = policy.backoff_ns(conflicts);
            if (pause != 0) __nanosleep(pause);
          }
        }
      });
      if (outcome != kPending) {
        if (outcome == kAbandoned) ++counters.c[kAbandonedCount];
        if (outcome == kTooLarge) ++counters.c[kTooLargeCount];
        if (outcome == kAbandonedSemantic) ++counters.c[kAbandonedSemanticCount];
        out.outcome[t] = outcome;
        pending &= ~(1u << b);
        conflicts = 0;
        owner = priority::ordinary(self);
        streak.finished(control, remaining == 1);
        cursor = (b + 1) % kWindow;
        if (--remaining > 0 && pending == 0) {
          next_chunk();
          cursor = 0;
        }
      }
    }
    __syncwarp(warp);
  }
  counters.flush_to(out.counters);
}

}  // namespace gstm

/// Defines `gstm_semantic_<NAME>_s<CAP>`, the entry point the host (SemanticKernel) launches for a
/// workload's batch under the semantic contention manager: run_semantic over `gstm::NS::Ops<CAP>`
/// with sets of at most CAP entries, 256 threads per block and MIN_BLOCKS blocks per SM.
#define GSTM_SEMANTIC_KERNEL(NAME, NS, CAP, MIN_BLOCKS)                                           \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_semantic_##NAME##_s##CAP(    \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::TxTable tab,    \
      const __grid_constant__ gstm::SemanticOut out) {                                            \
    gstm::run_semantic<gstm::NS::Ops<CAP>, CAP>(view, tab, out);                                  \
  }
