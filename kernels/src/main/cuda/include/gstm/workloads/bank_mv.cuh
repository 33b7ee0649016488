/// @file bank_mv.cuh
/// @brief The bank for CSMV: transfers among k accounts, audits of k accounts or of `span`
///        consecutive accounts (wrapping). Columns 0..k-1 accounts, k amount; params
///        {k, region, checked (0), span, accounts}. Twin of BankWorkload.
#pragma once
#include <cstdint>

namespace gstm::bank_mv {

struct Ops {
  template <class Args>
  __device__ __forceinline__ static bool read_only(const Args&, uint32_t type) {
    return type == 1;
  }

  template <class Tx, class Table>
  __device__ __forceinline__ static long long run(Tx& tx, const Table& tab, uint32_t t,
                                                  uint32_t type) {
    const uint32_t k = static_cast<uint32_t>(tab.params[0]);
    const uint32_t region = static_cast<uint32_t>(tab.params[1]);
    const uint32_t span = static_cast<uint32_t>(tab.params[3]);
    const uint32_t accounts = static_cast<uint32_t>(tab.params[4]);
    long long sum = 0;
    if (type == 1 && span > 0) {
      uint32_t a = static_cast<uint32_t>(tab.col(0, t));
      for (uint32_t j = 0; j < span; ++j) {
        sum += static_cast<int32_t>(tx.read(region, a));
        if (!tx.ok()) return 0;
        a = a + 1 == accounts ? 0 : a + 1;
      }
      return sum;
    }
    const int32_t amount = tab.col(k, t);
    const int32_t pays = amount * static_cast<int32_t>(k - 1);
    for (uint32_t j = 0; j < k; ++j) {
      const uint32_t a = static_cast<uint32_t>(tab.col(j, t));
      const int32_t v = static_cast<int32_t>(tx.read(region, a));
      if (!tx.ok()) return 0;
      if (type == 1) {
        sum += v;
      } else {
        tx.write(region, a, static_cast<uint32_t>(v + (j == 0 ? -pays : amount)));
      }
    }
    return sum;
  }
};

}  // namespace gstm::bank_mv
