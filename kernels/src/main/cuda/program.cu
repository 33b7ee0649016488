/// @file program.cu
/// @brief Transaction programs under PR-STM with the semantic contention manager, one kernel
///        per set capacity, and under CSMV (and its ablations, JVSTM-GPU) in one cooperative
///        kernel. The bytecode comes with the batch; nothing is compiled at run time.
#include "gstm/csmv.cuh"
#include "gstm/program.cuh"
#include "gstm/program_semantic.cuh"

namespace gstm::program {

/// A CSMV transaction seen through the interface the interpreter expects.
struct CsmvTx {
  csmv::Tx& tx;
  __device__ __forceinline__ uint64_t read(uint32_t region, uint32_t index) {
    return i32(static_cast<int32_t>(tx.read(region, index)));
  }
  /// A versioned store has no unversioned data: a snapshot read is always safe.
  __device__ __forceinline__ uint64_t read_shared(uint32_t region, uint32_t index) {
    return read(region, index);
  }
  __device__ __forceinline__ void write(uint32_t region, uint32_t index, uint64_t bits) {
    tx.write(region, index, static_cast<uint32_t>(bits));
  }
  /// Read-only programs only (the host refuses sum() in a CSMV update program).
  __device__ __forceinline__ long long sum_range(uint32_t region, uint32_t first, uint32_t count,
                                                 uint32_t wrap) {
    long long sum = 0;
    uint32_t i = first;
    for (uint32_t j = 0; j < count && tx.ok(); ++j) {
      sum += static_cast<int32_t>(tx.read(region, i));
      i = i + 1 == wrap ? 0 : i + 1;
    }
    return sum;
  }
  /// The host refuses programs with retry on CSMV; should one come, it ends the transaction.
  __device__ __forceinline__ void semantic_conflict() { tx.end(kAbandonedSemantic); }
  __device__ __forceinline__ void end(uint8_t outcome) { tx.end(outcome); }
  __device__ __forceinline__ bool active() const { return tx.ok(); }
};

/// Program bodies for CSMV's clients: the image read from global memory (the block's shared
/// memory belongs to the server's commit record), registers in local memory. `a.ext` is the
/// program table.
struct CsmvOps {
  __device__ __forceinline__ static bool read_only(const csmv::Args& a, uint32_t type) {
    const Table& tab = *static_cast<const Table*>(a.ext);
    return program::read_only(tab.image, type);
  }

  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const csmv::Args& a, uint32_t t,
                                                  uint32_t type) {
    const Table& tab = *static_cast<const Table*>(a.ext);
    CsmvTx view{tx};
    LocalRegs regs;
    return interpret(view, tab, tab.image, regs, type, t);
  }
};

}  // namespace gstm::program

#define GSTM_PROGRAM_PRSTM(CAP, MIN_BLOCKS)                                                     \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_program_prstm_s##CAP(      \
      const __grid_constant__ gstm::StoreView view,                                             \
      const __grid_constant__ gstm::program::Table tab,                                         \
      const __grid_constant__ gstm::SemanticOut out) {                                          \
    gstm::program::load_image(tab);                                                             \
    gstm::run_semantic<gstm::program::LockTableOps<CAP>, CAP>(view, tab, out);                  \
  }

/// @brief A program batch under PR-STM and the semantic contention manager, with sets of at
///        most 2, 4, 8, 16, 32 or 64 entries (32 and 64: programs that walk linked structures,
///        such as a skip list; their sets spill to local memory). Dynamic shared memory: the
///        image, then the registers.
/// @param view the store; @param tab the batch and its programs; @param out outcomes, counters
GSTM_PROGRAM_PRSTM(2, 2)
GSTM_PROGRAM_PRSTM(4, 2)
GSTM_PROGRAM_PRSTM(8, 1)
GSTM_PROGRAM_PRSTM(16, 1)
GSTM_PROGRAM_PRSTM(32, 1)
GSTM_PROGRAM_PRSTM(64, 1)

/// @brief A program batch under CSMV (flags choose the variant); `a.ext` is the program table.
/// @param a store, table, outputs, flags (gstm::csmv::Args)
extern "C" __global__ void __launch_bounds__(256) gstm_csmv_program(const __grid_constant__ gstm::csmv::Args a) {
  gstm::csmv::run<gstm::program::CsmvOps>(a);
}
