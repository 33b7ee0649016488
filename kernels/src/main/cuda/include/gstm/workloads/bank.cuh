/// @file bank.cuh
/// @brief The bank workload: transfers among k distinct accounts and read-only sums of k accounts.
///        io.gstm.core.workload.bank.BankTransactions is the JVM twin; keep the two in step.
#pragma once
#include <cstdint>

namespace gstm::bank {

enum Type : uint32_t { kTransfer = 0, kAudit = 1 };

/// The transaction table, struct of arrays: account j of transaction t is accounts[j * tx_count + t].
struct Batch {
  const uint32_t* type;
  const uint32_t* accounts;
  const int32_t* amount;
  long long* audit_sums;  ///< [tx_count] what each committed audit saw
  uint32_t tx_count;
  uint32_t k;
  uint32_t region;
  uint32_t pad;
};

/// Runs transaction t inside `tx`. A transfer moves `amount` from account 0 to each other account
/// (account 0 pays (k-1) * amount), so the total is conserved; an audit sums the k accounts.
template <class Tx, int CAPACITY>
__device__ __forceinline__ long long run(Tx& tx, const Batch& b, uint32_t t, uint32_t type,
                                         const uint32_t (&acct)[CAPACITY], int32_t amount) {
  long long sum = 0;
#pragma unroll
  for (int j = 0; j < CAPACITY; ++j) {
    if (j < static_cast<int>(b.k)) {
      const int32_t v = static_cast<int32_t>(tx.read(b.region, acct[j]));
      if (type == kAudit) {
        sum += v;
      } else {
        const int32_t delta = j == 0 ? -amount * static_cast<int32_t>(b.k - 1) : amount;
        tx.write(b.region, acct[j], static_cast<uint32_t>(v + delta));
      }
    }
  }
  return sum;
}

}  // namespace gstm::bank
