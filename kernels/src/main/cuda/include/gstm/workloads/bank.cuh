/// @file bank.cuh
/// @brief The bank workload: transfers among k distinct accounts and read-only sums of k accounts.
///        io.gstm.core.workload.bank.BankWorkload is the JVM twin; keep the two in step.
#pragma once
#include <cstdint>

#include "gstm/semantic.cuh"

namespace gstm::bank {

enum Type : uint32_t { kTransfer = 0, kAudit = 1, kDeposit = 2, kWithdraw = 3 };

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

/// The bank's bodies over a generic table for the semantic kernels: columns 0..k-1 accounts,
/// column k the amount; params {k, region, checked}. A withdrawal that would overdraw, and a
/// transfer that would when `checked`, is a semantic conflict.
template <int CAPACITY>
struct Ops {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const TxTable& tab, uint32_t t,
                                                  uint32_t type) {
    const uint32_t k = static_cast<uint32_t>(tab.params[0]);
    const uint32_t region = static_cast<uint32_t>(tab.params[1]);
    const bool checked = tab.params[2] != 0;
    const int32_t amount = tab.col(k, t);
    if (type == kDeposit || type == kWithdraw) {
      const uint32_t a = static_cast<uint32_t>(tab.col(0, t));
      const int32_t v = static_cast<int32_t>(tx.read(region, a));
      if (type == kWithdraw && v < amount) {
        tx.semantic_conflict();
        return 0;
      }
      tx.write(region, a, static_cast<uint32_t>(type == kDeposit ? v + amount : v - amount));
      return 0;
    }
    long long sum = 0;
    const uint32_t span = static_cast<uint32_t>(tab.params[3]);
    if (type == kAudit && span > 0) {
      // Audit of `span` consecutive accounts from its account 0, wrapping at params[4]: one
      // range read, however many accounts (up to all of them).
      return tx.sum_range(region, static_cast<uint32_t>(tab.col(0, t)), span,
                          static_cast<uint32_t>(tab.params[4]));
    }
    const int32_t pays = amount * static_cast<int32_t>(k - 1);
    // Unrolled to the set capacity (a larger k overflows the sets anyway), so that the sets stay
    // in registers.
#pragma unroll
    for (uint32_t j = 0; j < CAPACITY + 1; ++j) {
      if (j < k) {
        const uint32_t a = static_cast<uint32_t>(tab.col(j, t));
        const int32_t v = static_cast<int32_t>(tx.read(region, a));
        if (type == kAudit) {
          sum += v;
        } else if (j == 0 && checked && v < pays) {
          tx.semantic_conflict();
        } else {
          tx.write(region, a, static_cast<uint32_t>(v + (j == 0 ? -pays : amount)));
        }
      }
    }
    return sum;
  }
};

}  // namespace gstm::bank
