/// @file limits.cu
/// @brief Probes of the device's random-access rates on an array of 32-bit words, so that every
///        STM benchmark can print its bound from the same run on the same device.
#include <cstdint>

namespace {

__device__ __forceinline__ uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// Maps a 32-bit hash onto [0, n) without a division.
__device__ __forceinline__ uint32_t bounded(uint32_t h, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(h) * n) >> 32);
}

}  // namespace

/// @brief Each op reads a random word and CASes it to value + 1 (what a lock acquisition costs).
extern "C" __global__ void __launch_bounds__(256)
    gstm_probe_read_cas(uint32_t* data, uint32_t n, uint32_t ops_per_thread, uint32_t seed,
                        unsigned long long* sink) {
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (uint32_t i = 0; i < ops_per_thread; ++i) {
    const uint32_t idx = bounded(mix(self * 0x9E3779B9U + i * 0x85EBCA6BU + seed), n);
    const uint32_t v = *reinterpret_cast<volatile uint32_t*>(data + idx);
    acc += atomicCAS(data + idx, v, v + 1);
  }
  if (acc == 0xFFFFFFFFu) atomicAdd(sink, 1ull);  // keeps the loop alive
}

/// @brief Each op is one atomicAdd on a random word.
extern "C" __global__ void __launch_bounds__(256)
    gstm_probe_atomic_add(uint32_t* data, uint32_t n, uint32_t ops_per_thread, uint32_t seed,
                          unsigned long long* sink) {
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t i = 0; i < ops_per_thread; ++i) {
    atomicAdd(data + bounded(mix(self * 0x9E3779B9U + i * 0x85EBCA6BU + seed), n), 1u);
  }
}

/// @brief Each op is a load whose address depends on the previous load's value.
extern "C" __global__ void __launch_bounds__(256)
    gstm_probe_dependent_load(uint32_t* data, uint32_t n, uint32_t ops_per_thread, uint32_t seed,
                              unsigned long long* sink) {
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t idx = bounded(mix(self ^ seed), n);
  for (uint32_t i = 0; i < ops_per_thread; ++i) {
    idx = bounded(mix(reinterpret_cast<volatile uint32_t*>(data)[idx] + i), n);
  }
  if (idx == 0xFFFFFFFFu) atomicAdd(sink, 1ull);
}

/// @brief Writes far outside `data`: an illegal address, the sticky error the fatal-error test
///        needs (io.gstm.core.cuda.CudaFatalErrorTest). Never launched otherwise.
extern "C" __global__ void __launch_bounds__(256)
    gstm_probe_fault(uint32_t* data, uint32_t n, uint32_t ops_per_thread, uint32_t seed,
                     unsigned long long* sink) {
  reinterpret_cast<volatile uint32_t*>(data)[-(1ll << 40)] = n + ops_per_thread + seed;
  if (sink == nullptr) atomicAdd(sink, 1ull);
}
