/// @file memory.cuh
/// @brief The few memory-model primitives the STMs need, in PTX terms (sm_70 and later).
#pragma once
#include <cstdint>

namespace gstm::mem {

/// Load with acquire semantics at GPU scope: later loads cannot be satisfied before it.
__device__ __forceinline__ unsigned long long load_acquire(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

/// Load that always observes L2 (no stale L1 line), with no ordering of its own.
__device__ __forceinline__ unsigned long long load_relaxed(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint32_t load_relaxed(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ void store_relaxed(unsigned long long* p, unsigned long long v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void store_relaxed(uint32_t* p, uint32_t v) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Compare-and-swap at GPU scope on global memory (atomicCAS's atom.cas, relaxed), whatever
/// the compiler knows of the pointer: code that reaches the lock table through a pointer it
/// cannot trace to a kernel parameter (compiled programs, jit/program_jit.cu) would otherwise
/// get a generic atomic. A compiler barrier as well, as every access here is.
__device__ __forceinline__ unsigned long long cas(unsigned long long* p, unsigned long long expected,
                                                  unsigned long long desired) {
  unsigned long long seen;
  asm volatile("atom.relaxed.gpu.global.cas.b64 %0, [%1], %2, %3;"
               : "=l"(seen) : "l"(p), "l"(expected), "l"(desired) : "memory");
  return seen;
}

/// The same CAS with acquire semantics: this thread's later accesses happen after it (a lock
/// taken this way needs no fence before the stores it guards).
__device__ __forceinline__ unsigned long long cas_acquire(unsigned long long* p,
                                                          unsigned long long expected,
                                                          unsigned long long desired) {
  unsigned long long seen;
  asm volatile("atom.acquire.gpu.global.cas.b64 %0, [%1], %2, %3;"
               : "=l"(seen) : "l"(p), "l"(expected), "l"(desired) : "memory");
  return seen;
}

/// Orders every earlier access of this thread before every later one, as seen at GPU scope by
/// threads that synchronise through a later access (message passing). Cheaper than fence.sc.
__device__ __forceinline__ void fence_acq_rel() { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }

/// Sequentially consistent fence at GPU scope: also orders an earlier RMW before a later load of
/// another address (the store-buffering pattern), which fence.acq_rel does not.
__device__ __forceinline__ void fence_sc() { asm volatile("fence.sc.gpu;" ::: "memory"); }

}  // namespace gstm::mem
