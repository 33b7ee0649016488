/// @file warp.cuh
/// @brief Warp-wide helpers shared by the relaxation kernels (graph_relax.cu, jit/program_jit.cu).
#pragma once

#include <cstdint>

namespace gstm {

/// The lane of the n-th (from 0) set bit of mask (which has more than n): a binary search over
/// population counts, cheaper than __fns's emulation.
__device__ __forceinline__ uint32_t nth_set_lane(uint32_t mask, uint32_t n) {
  uint32_t p = 0;
  for (uint32_t step = 16; step > 0; step >>= 1) {
    const uint32_t q = p + step - 1;
    const uint32_t upto = q >= 31 ? mask : mask & ((2u << q) - 1u);
    if (static_cast<uint32_t>(__popc(upto)) <= n) p += step;
  }
  return p;
}

}  // namespace gstm
