/// @file lock_table_policies.cuh
/// @brief The algorithms besides PR-STM that run over its lock table inside run_semantic
///        (semantic.cuh): GPU-STM, Cederman's blocking and obstruction-free STMs. A policy runs
///        each attempt on its transaction and says how long a lane waits after an abort; the kernels
///        get their settings in one LockTableArgs. Host packer: io.gstm.core.cuda.LockTableKernel.
#pragma once
#include <cstdint>

#include "gstm/backoff.cuh"
#include "gstm/blocking.cuh"
#include "gstm/gpustm.cuh"
#include "gstm/obstruction_free.cuh"
#include "gstm/semantic.cuh"

namespace gstm {

/// What the lock-table kernels take besides the store, the table and the outputs.
struct LockTableArgs {
  Backoff backoff;            ///< blocking, obstruction-free: the wait after an abort
  OfDescriptors descriptors;  ///< obstruction-free: the public descriptors
};
static_assert(sizeof(LockTableArgs) == 104, "host packer assumes 104 bytes");

/// What the algorithms whose transactions take only the store and the owner share: no urgent
/// mode, the whole counter set (lock busy lies past PR-STM's counters), an attempt on a new Tx<C>.
template <template <int> class Tx>
struct OwnerOnlyPolicy {
  static constexpr bool kUrgentMode = false;
  static constexpr int kCounters = kCounterCount;
  template <int C, class Attempt>
  __device__ __forceinline__ void attempt(const StoreView& view, uint32_t owner, uint32_t,
                                          Attempt&& body) const {
    Tx<C> tx(view, owner);
    body(tx);
  }
};

/// GPU-STM: after repeated losses the same short sleep as PR-STM's lanes.
struct GpuStmPolicy : OwnerOnlyPolicy<GpuStmTx> {
  __device__ __forceinline__ uint32_t backoff_ns(uint32_t conflicts) const {
    return PrStmPolicy().backoff_ns(conflicts);
  }
};

/// Cederman's blocking STM with its backoff.
struct BlockingPolicy : OwnerOnlyPolicy<BlockingTx> {
  Backoff backoff;
  __device__ __forceinline__ explicit BlockingPolicy(const Backoff& b) : backoff(b) {}
  __device__ __forceinline__ uint32_t backoff_ns(uint32_t conflicts) const {
    return backoff.delay_ns(conflicts);
  }
};

/// Cederman's obstruction-free STM with its backoff; thread `self` owns descriptor `self`.
struct ObstructionFreePolicy {
  static constexpr bool kUrgentMode = false;
  static constexpr int kCounters = kCounterCount;
  Backoff backoff;
  OfDescriptors descriptors;
  template <int C, class Attempt>
  __device__ __forceinline__ void attempt(const StoreView& view, uint32_t owner, uint32_t self,
                                          Attempt&& body) const {
    ObstructionFreeTx<C> tx(view, owner, self, descriptors);
    body(tx);
  }
  __device__ __forceinline__ uint32_t backoff_ns(uint32_t conflicts) const {
    return backoff.delay_ns(conflicts);
  }
};

}  // namespace gstm
