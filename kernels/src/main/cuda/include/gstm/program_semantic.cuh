/// @file program_semantic.cuh
/// @brief Transaction programs inside run_semantic (semantic.cuh), whatever the algorithm over
///        the lock table: the interpreter's bodies and the block's shared memory. The kernels
///        are in program.cu (PR-STM, CSMV) and program_<algorithm>.cu.
#pragma once
#include <cstdint>

#include "gstm/program.cuh"
#include "gstm/semantic.cuh"

namespace gstm::program {

/// Dynamic shared memory of a program block: the image (rounded up to 8 bytes), then the
/// register file, registers x blockDim 64-bit words.
__device__ __forceinline__ unsigned long long* shared_words() {
  extern __shared__ unsigned long long program_smem[];
  return program_smem;
}

/// Program bodies for run_semantic: the interpreter over the algorithm's transaction, its
/// registers in shared memory, its image copied into shared memory by the block before the run.
template <int CAPACITY>
struct LockTableOps {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const Table& tab, uint32_t t,
                                                  uint32_t type) {
    unsigned long long* smem = shared_words();
    const uint32_t* img = reinterpret_cast<const uint32_t*>(smem);
    SharedRegs regs{smem + (tab.image_words + 1) / 2 + threadIdx.x, blockDim.x};
    return interpret(tx, tab, img, regs, type, t);
  }
};

/// Copies the program image into the block's shared memory (the interpreter fetches from there).
__device__ __forceinline__ void load_image(const Table& tab) {
  uint32_t* img = reinterpret_cast<uint32_t*>(shared_words());
  for (uint32_t i = threadIdx.x; i < tab.image_words; i += blockDim.x) img[i] = tab.image[i];
  __syncthreads();
}

}  // namespace gstm::program

/// Defines the program kernel `gstm_program_<NAME>_s<CAP>` of a lock-table algorithm whose
/// policy (lock_table_policies.cuh) MAKE builds from `args` (LockTableArgs).
#define GSTM_PROGRAM_LOCK_TABLE(NAME, CAP, MIN_BLOCKS, MAKE)                                    \
  extern "C" __global__ void __launch_bounds__(256, MIN_BLOCKS) gstm_program_##NAME##_s##CAP(   \
      const __grid_constant__ gstm::StoreView view,                                             \
      const __grid_constant__ gstm::program::Table tab,                                         \
      const __grid_constant__ gstm::SemanticOut out,                                            \
      const __grid_constant__ gstm::LockTableArgs args) {                                       \
    gstm::program::load_image(tab);                                                             \
    const auto policy = MAKE;                                                                   \
    gstm::run_semantic<gstm::program::LockTableOps<CAP>, CAP, gstm::program::Table>(            \
        view, tab, out, policy);                                                                \
  }

/// The kernels of one algorithm for every set capacity the programs use (program.cu's).
#define GSTM_PROGRAM_LOCK_TABLE_ALL(NAME, MAKE)      \
  GSTM_PROGRAM_LOCK_TABLE(NAME, 2, 2, MAKE)          \
  GSTM_PROGRAM_LOCK_TABLE(NAME, 4, 2, MAKE)          \
  GSTM_PROGRAM_LOCK_TABLE(NAME, 8, 1, MAKE)          \
  GSTM_PROGRAM_LOCK_TABLE(NAME, 16, 1, MAKE)         \
  GSTM_PROGRAM_LOCK_TABLE(NAME, 32, 1, MAKE)         \
  GSTM_PROGRAM_LOCK_TABLE(NAME, 64, 1, MAKE)
