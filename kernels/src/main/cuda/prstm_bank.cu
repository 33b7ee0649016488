/// @file prstm_bank.cu
/// @brief PR-STM bank batch kernels, one per set capacity.
#include "gstm/batch.cuh"
#include "gstm/prstm.cuh"
#include "gstm/workloads/bank.cuh"

namespace gstm {

/// Thread t runs transactions t, t + T, t + 2T, ... (T threads in the grid), each retried in place
/// until it commits, overflows its sets, or reaches out.max_retries attempts. Its priority is t.
template <int CAPACITY>
__device__ __forceinline__ void prstm_bank(const StoreView& view, const bank::Batch& b,
                                           const BatchOut& out) {
  ThreadCounters counters;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t threads = gridDim.x * blockDim.x;
  for (uint32_t t = self; t < b.tx_count; t += threads) {
    const uint32_t type = b.type[t];
    const int32_t amount = b.amount[t];
    uint32_t acct[CAPACITY];
#pragma unroll
    for (int j = 0; j < CAPACITY; ++j) acct[j] = j < static_cast<int>(b.k) ? b.accounts[j * b.tx_count + t] : 0;

    uint8_t outcome = kAbandoned;
    for (uint32_t attempt = 0; attempt < out.max_retries; ++attempt) {
      PrStmTx<CAPACITY> tx(view, self);
      const long long sum = bank::run<PrStmTx<CAPACITY>, CAPACITY>(tx, b, t, type, acct, amount);
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
        break;
      }
      if (tx.overflowed()) {
        outcome = kTooLarge;
        break;
      }
      counters.add(tx.abort_cause());
    }
    if (outcome == kAbandoned) ++counters.c[kAbandonedCount];
    if (outcome == kTooLarge) ++counters.c[kTooLargeCount];
    out.outcome[t] = outcome;
  }
  counters.flush_to(out.counters);
}

}  // namespace gstm

#define GSTM_PRSTM_BANK(CAP)                                                                     \
  extern "C" __global__ void __launch_bounds__(256) gstm_prstm_bank_s##CAP(                      \
      const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::bank::Batch b, \
      const __grid_constant__ gstm::BatchOut out) {                                              \
    gstm::prstm_bank<CAP>(view, b, out);                                                         \
  }

/// @brief PR-STM bank batch with sets of at most 2, 4, 8 or 16 entries.
/// @param view the store (regions and lock table)
/// @param b    the transaction table
/// @param out  outcomes, counters and optional history
GSTM_PRSTM_BANK(2)
GSTM_PRSTM_BANK(4)
GSTM_PRSTM_BANK(8)
GSTM_PRSTM_BANK(16)
