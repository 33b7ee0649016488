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

/// This lane's inclusive prefix sum of v over the warp. Every lane of the warp calls this.
__device__ __forceinline__ uint32_t warp_inclusive_sum(uint32_t v) {
  const uint32_t lane = threadIdx.x & 31u;
  for (uint32_t d = 1; d < 32u; d <<= 1) {
    const uint32_t below = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += below;
  }
  return v;
}

/// Takes n slots for each lane from *counter with one atomic for the whole warp (a counter
/// bumped by every lane of a large round serialises it) and returns this lane's first; the
/// lanes' slots follow one another in lane order. Every lane of the warp calls this.
__device__ __forceinline__ uint32_t warp_reserve(uint32_t* counter, uint32_t n) {
  const uint32_t upto = warp_inclusive_sum(n);
  const uint32_t total = __shfl_sync(0xffffffffu, upto, 31);
  uint32_t base = 0;
  if ((threadIdx.x & 31u) == 31u && total != 0) base = atomicAdd(counter, total);
  return __shfl_sync(0xffffffffu, base, 31) + upto - n;
}

}  // namespace gstm
