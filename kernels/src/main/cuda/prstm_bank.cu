/// @file prstm_bank.cu
/// @brief PR-STM bank batch kernels, one per set capacity.
#include "gstm/batch.cuh"
#include "gstm/prstm.cuh"
#include "gstm/workloads/bank.cuh"

namespace gstm {

/// Thread t runs transactions t, t + T, t + 2T, ... (T threads in the grid), each retried in place
/// until it commits, overflows its sets, or reaches out.max_retries attempts. Its priority is t
/// (priority::ordinary), until it has lost out.urgent_after attempts in a row: then it turns urgent.
///
/// Retries go in warp-wide rounds: every lane with work makes one whole attempt (which releases
/// all its locks whether it commits or aborts), then the warp reconverges. Without that, a lane
/// spinning on a lock held by a diverged lane of its own warp can starve the holder: the warp
/// scheduler need not switch paths, and the spinner burns its whole retry budget.
template <int CAPACITY>
__device__ __forceinline__ void prstm_bank(const StoreView& view, const bank::Batch& b,
                                           const BatchOut& out) {
  const unsigned warp = __activemask();  // lanes that exist; all present and converged here
  ThreadCounters<kSemanticConflicts> counters;  // no semantic conflicts here
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t threads = gridDim.x * blockDim.x;
  const uint32_t rounds = (b.tx_count + threads - 1) / threads;
  for (uint32_t round = 0; round < rounds; ++round) {
    const uint32_t t = self + round * threads;
    const bool mine = t < b.tx_count;
    uint32_t type = 0;
    int32_t amount = 0;
    uint32_t acct[CAPACITY];
#pragma unroll
    for (int j = 0; j < CAPACITY; ++j) {
      acct[j] = (mine && j < static_cast<int>(b.k)) ? b.accounts[j * b.tx_count + t] : 0;
    }
    if (mine) {
      type = b.type[t];
      amount = b.amount[t];
    }
    // A transaction of more accounts than the sets hold cannot run at all: say so, never run
    // a truncated one (acct[] holds only CAPACITY accounts).
    uint8_t outcome = !mine ? kCommitted : (b.k > CAPACITY ? kTooLarge : kPending);
    if (mine && outcome == kTooLarge) ++counters.c[kTooLargeCount];
    uint32_t attempts = 0;
    uint32_t owner = priority::ordinary(self);
    while (__any_sync(warp, outcome == kPending)) {
      if (outcome == kPending) {
        with_attempt<CAPACITY>(view, owner, [&](auto& tx) {
          const long long sum = bank::run<std::remove_reference_t<decltype(tx)>, CAPACITY>(
              tx, b, t, type, acct, amount);
          if (tx.commit()) {
            outcome = kCommitted;
            ++counters.c[kCommits];
            if (tx.read_only()) {
              ++counters.c[kReadOnlyCommits];
              b.audit_sums[t] = sum;
            }
            if (out.hist_counts != nullptr) {
              const size_t base = static_cast<size_t>(t) * CAPACITY;
              out.hist_counts[t] = tx.record(out.hist_reads + base, out.hist_writes + base);
            }
          } else if (tx.overflowed()) {
            outcome = kTooLarge;
            ++counters.c[kTooLargeCount];
          } else {
            counters.add(tx.abort_cause());
            if (!tx.lost_in_line()) ++attempts;  // losing to an older urgent one is waiting in line
            if (attempts >= out.max_retries) {
              outcome = kAbandoned;
              ++counters.c[kAbandonedCount];
            } else if (attempts == out.urgent_after && !tx.urgent()) {
              owner = priority::urgent(out.counters);
            }
          }
        });
      }
      __syncwarp(warp);
    }
    if (mine) out.outcome[t] = outcome;
  }
  counters.flush_to(out.counters);
}

}  // namespace gstm

#define GSTM_PRSTM_BANK(CAP, MIN_BLOCKS)                                                       \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_prstm_bank_s##CAP(       \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::bank::Batch b, \
      const __grid_constant__ gstm::BatchOut out) {                                              \
    gstm::prstm_bank<CAP>(view, b, out);                                                         \
  }

/// @brief PR-STM bank batch with sets of at most 2, 4, 8 or 16 entries.
/// @param view the store (regions and lock table)
/// @param b    the transaction table
/// @param out  outcomes, counters and optional history
// Blocks per SM the register budget must allow: as many as fit without spilling (ptxas report).
GSTM_PRSTM_BANK(2, 3)
GSTM_PRSTM_BANK(4, 3)
GSTM_PRSTM_BANK(8, 2)
GSTM_PRSTM_BANK(16, 1)
