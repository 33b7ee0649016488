/// @file backoff.cuh
/// @brief Cederman's backoff after an abort: none, linear or exponential up to a cap. Twin of
///        io.gstm.core.store.Backoff (same kinds, same waits).
#pragma once
#include <cstdint>

namespace gstm {

struct Backoff {
  uint32_t kind;     ///< 0 none, 1 linear, 2 exponential (io.gstm.core.store.Backoff.Kind)
  uint32_t unit_ns;  ///< the first wait
  uint32_t max_ns;   ///< the longest wait (__nanosleep sleeps up to about a millisecond)
  uint32_t pad;

  /// The wait after the `aborts`-th abort in a row of one transaction (from 1).
  __device__ __forceinline__ uint32_t delay_ns(uint32_t aborts) const {
    if (aborts == 0 || kind == 0) return 0;
    const unsigned long long d = kind == 1
        ? static_cast<unsigned long long>(unit_ns) * aborts
        : static_cast<unsigned long long>(unit_ns) << min(aborts - 1, 30u);
    return static_cast<uint32_t>(min(d, static_cast<unsigned long long>(max_ns)));
  }
};
static_assert(sizeof(Backoff) == 16, "host packer assumes 16 bytes");

}  // namespace gstm
