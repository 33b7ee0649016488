/// @file batch.cuh
/// @brief What every batch kernel reports: per-transaction outcomes, per-batch counters and, in
///        history mode, the lock versions each committed transaction read and produced.
#pragma once
#include <cstdint>

namespace gstm {

/// Per-transaction outcome codes; io.gstm.core.batch.Outcome uses the same numbers.
enum Outcome : uint8_t {
  kPending = 0,
  kCommitted = 1,
  kAbandoned = 2,
  kTooLarge = 3,
  kAbandonedSemantic = 4
};

/// Batch counters; io.gstm.core.batch.Counter reads them in this order.
enum Counter : int {
  kCommits = 0,          ///< committed transactions (update and read-only)
  kReadOnlyCommits,      ///< of which read-only
  kAbortReadLocked,      ///< a read or write found the lock held by a committing writer
  kAbortValidation,      ///< a version changed since it was read
  kAbortPreLockRefused,  ///< pre-lock refused: held by a higher priority or already locked
  kAbortStolen,          ///< a pre-lock was stolen by a higher-priority thread before commit
  kAbandonedCount,       ///< transactions that hit the retry limit
  kTooLargeCount,        ///< transactions whose sets overflowed the capacity
  kSemanticConflicts,    ///< attempts that met a semantic conflict (postponed or retried)
  kAbandonedSemanticCount,  ///< transactions that hit the semantic retry limit
  kAbortDataAge,         ///< CSMV: the snapshot's version has left the ring
  kAbortRecordAge,       ///< CSMV: the commit record no longer reaches back to the snapshot
  kAbortRwConflict,      ///< CSMV: a later commit wrote what the transaction read or writes
  kAbortPreValidation,   ///< CSMV: an earlier lane of the warp batch writes what it touches
  kUrgentCount,          ///< PR-STM: transactions that turned urgent (prstm.cuh); also their tickets
  kAbortLockBusy,        ///< at commit, a lock to take stayed held by another (GPU-STM, Cederman)
  kAbortKilled,          ///< obstruction-free: aborted by another while acquiring its locks
  kLocksStolen,          ///< obstruction-free: locks taken from a committed transaction (not an abort)
  kCounterCount
};

/// The counters PR-STM kernels keep per thread (the CSMV ones stay zero there; kUrgentCount is
/// taken by one atomic each, as a ticket).
constexpr int kPrStmCounterCount = kAbortDataAge;
/// The counters CSMV kernels keep per thread.
constexpr int kCsmvCounterCount = kAbortPreValidation + 1;

/// Where a batch kernel writes its results. History pointers are null unless history mode is on.
struct BatchOut {
  uint8_t* outcome;                  ///< [tx_count]
  unsigned long long* counters;      ///< [kCounterCount], accumulated with one atomic per block
  unsigned long long* hist_reads;    ///< [tx_count * capacity] (lock << 32 | version)
  unsigned long long* hist_writes;   ///< [tx_count * capacity] (lock << 32 | version produced)
  uint32_t* hist_counts;             ///< [tx_count] reads in the low 16 bits, writes in the high
  uint32_t max_retries;              ///< attempts per transaction before it is abandoned
  uint32_t urgent_after;             ///< losses in a row before it turns urgent (prstm.cuh)
};

/// Per-thread counters, summed per block in shared memory and then once per block in global.
/// A kernel that never touches the last counters keeps only the first N (fewer registers).
template <int N = kPrStmCounterCount>
struct ThreadCounters {
  static_assert(N <= kCounterCount, "at most kCounterCount counters");
  uint32_t c[N] = {};

  /// Adds one to counter i; predicated so that a runtime index keeps the array in registers.
  __device__ __forceinline__ void add(int i) {
#pragma unroll
    for (int j = 0; j < N; ++j) c[j] += (j == i) ? 1u : 0u;
  }

  __device__ void flush_to(unsigned long long* global) {
    __shared__ unsigned long long block[N];
    // Strided: a block may have fewer threads than counters (one thread per block, as
    // Cederman's STMs run).
    for (int i = threadIdx.x; i < N; i += blockDim.x) block[i] = 0;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if (c[i] != 0) atomicAdd(&block[i], static_cast<unsigned long long>(c[i]));
    }
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
      if (block[i] != 0) atomicAdd(&global[i], block[i]);
    }
  }
};

/// ThreadCounters kept in shared memory rather than registers, for a kernel whose registers are
/// short (a program relaxation's run: its transaction in registers, its looks' loads of two
/// slices of edges): a count changes seldom against what the registers hold meanwhile. `slots`
/// is the block's shared array of at least kSlots(blockDim.x) words.
template <int N>
struct SharedCounters {
  /// Each thread's counters kStride words apart: odd, so that a warp's lanes hit 32 banks.
  static constexpr int kStride = N | 1;
  __host__ __device__ static constexpr int kSlots(int threads) { return threads * kStride; }
  uint32_t* c;  ///< this thread's N counters

  __device__ __forceinline__ explicit SharedCounters(uint32_t* slots)
      : c(slots + threadIdx.x * kStride) {
#pragma unroll
    for (int i = 0; i < N; ++i) c[i] = 0;
  }

  __device__ __forceinline__ void add(int i) { ++c[i]; }

  /// Adds the block's counts to `global`, one atomic a counter. Every thread of the block calls it.
  __device__ void flush_to(unsigned long long* global) {
    __syncthreads();
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
      unsigned long long sum = 0;
      for (uint32_t t = 0; t < blockDim.x; ++t) sum += (c - threadIdx.x * kStride)[t * kStride + i];
      if (sum != 0) atomicAdd(&global[i], sum);
    }
    __syncthreads();
  }
};

}  // namespace gstm
