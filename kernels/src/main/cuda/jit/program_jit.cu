/// @file jit/program_jit.cu
/// @brief The device half of compiled transaction programs: compiled to PTX with -rdc (not to a
///        fatbin), it declares the program body `gstm_jit_body_<tx>` that the host generates at
///        run time from a program set's bytecode (io.gstm.core.cuda.ptx.ProgramPtx) and defines
///        what that body calls: the transaction's operations, the arithmetic (alu() of
///        program.cuh, the interpreter's own) and the column and conversion helpers. The host
///        inlines every call (io.gstm.core.cuda.ptx.PtxInliner), so the kernel keeps the
///        transaction's sets in registers as the hand-written kernels do, and loads the result
///        with the driver's JIT.
///
/// Calling convention: the transaction goes in and out of every call by value (its bytes), so
/// that once inlined nothing of it is addressed in memory; each operation returns the
/// transaction with what it read and whether it is still active (`Value`, `Step`).
#include <cstring>

#include "gstm/program_semantic.cuh"

/// The store's view, copied into shared memory by each block (share_view). A transaction keeps
/// a reference to its view; the operations, compiled apart from the kernel, would reach it (and
/// every region's base, length and locks) through a generic pointer, one load at a time. Pointed
/// at this symbol instead, they read shared memory, as fast as the kernel's own parameter.
__shared__ gstm::StoreView gstm_jit_view;

namespace gstm::program::jit {

/// Copies the kernel's view into gstm_jit_view; the whole block waits for it.
__device__ __forceinline__ void share_view(const StoreView& view) {
  const uint32_t* src = reinterpret_cast<const uint32_t*>(&view);
  uint32_t* dst = reinterpret_cast<uint32_t*>(&gstm_jit_view);
  for (uint32_t i = threadIdx.x; i < sizeof(StoreView) / 4; i += blockDim.x) dst[i] = src[i];
  __syncthreads();
}

/// Points a transaction's view reference (its first member, PrStmTx::view_) at gstm_jit_view.
__device__ __forceinline__ void reseat_view(void* tx) {
  const StoreView* shared = &gstm_jit_view;
  memcpy(tx, &shared, sizeof shared);
}

/// A transaction's bytes as the calls pass them. Passed as the transaction type itself, nvcc
/// would copy a modified one to local memory (from 4 set entries up); as words that the callee
/// copies into a local transaction, it keeps it in registers.
template <class Tx>
struct alignas(8) Words {
  uint32_t w[sizeof(Tx) / 4];
};
template <class Tx>
struct Value {
  Words<Tx> tx;
  unsigned long long v;
  uint32_t active;
};
template <class Tx>
struct Step {
  Words<Tx> tx;
  uint32_t active;
};
template <class Tx>
struct Body {
  Words<Tx> tx;
  long long result;
};
struct Alu {
  unsigned long long v;
  uint32_t fault;  ///< 0, or the outcome that ends the transaction
};

/// A transaction rebuilt from its words (the copy is what keeps it out of memory, see Words).
template <class Tx>
struct Local {
  alignas(Tx) unsigned char bytes[sizeof(Tx)];
  __device__ __forceinline__ explicit Local(const Words<Tx>& in) {
    memcpy(bytes, &in, sizeof(Tx));
    reseat_view(bytes);
  }
  __device__ __forceinline__ Tx& tx() { return *reinterpret_cast<Tx*>(bytes); }
  __device__ __forceinline__ Words<Tx> words() const {
    Words<Tx> out;
    memcpy(&out, bytes, sizeof(Tx));
    return out;
  }
};

template <class Tx>
__device__ __forceinline__ Words<Tx> words_of(const Tx& tx) {
  Words<Tx> out;
  memcpy(&out, static_cast<const void*>(&tx), sizeof(Tx));
  return out;
}

/// The generated body of a transaction type (specialised by GSTM_JIT_TX).
template <class Tx>
struct BodyOf;

/// Runs the generated body in place of the interpreter (run_semantic's and run_in_place's Ops).
struct Ops {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const Table& tab, uint32_t t,
                                                  uint32_t type) {
    const Body<Tx> b = BodyOf<Tx>::call(words_of(tx), tab, t, type);
    memcpy(static_cast<void*>(&tx), &b.tx, sizeof(Tx));  // Tx has reference members: no operator=
    reseat_view(&tx);
    return b.result;
  }
};

/// Programs that never retry: each transaction retried in place until it ends, in warp-wide
/// rounds, as the hand-written PR-STM bank kernel (prstm_bank.cu) runs; no pending bits, no
/// postponing. Outcomes, counters and history as run_semantic writes them.
template <int CAPACITY>
__device__ __forceinline__ void run_in_place(const StoreView& view, const Table& tab,
                                             const SemanticOut& out) {
  const unsigned warp = __activemask();
  ThreadCounters<PrStmPolicy::kCounters> counters;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t threads = gridDim.x * blockDim.x;
  const uint32_t rounds = (tab.tx_count + threads - 1) / threads;
  for (uint32_t round = 0; round < rounds; ++round) {
    const uint32_t t = self + round * threads;
    const bool mine = t < tab.tx_count;
    const uint32_t type = mine ? tab.type[t] : 0;
    uint8_t outcome = mine ? kPending : kCommitted;
    uint32_t attempts = 0;
    uint32_t owner = priority::ordinary(self);
    while (__any_sync(warp, outcome == kPending)) {
      if (outcome == kPending) {
        with_attempt<CAPACITY>(view, owner, [&](auto& tx) __attribute__((always_inline)) {
          const long long result = Ops::run(tx, tab, t, type);
          bool concurrency_abort = false;
          if (tx.ended() || tx.semantic()) {
            // A program's abort or fault stands only if what it read was consistent; a retry
            // (the host sends none here) abandons the transaction.
            const uint8_t ended = tx.ended() ? tx.end_outcome() : kAbandonedSemantic;
            if (tx.confirm_semantic()) {
              outcome = ended;
              if (ended == kAbandonedSemantic) ++counters.c[kAbandonedSemanticCount];
            } else {
              concurrency_abort = true;
            }
          } else if (tx.commit()) {
            outcome = kCommitted;
            ++counters.c[kCommits];
            if (tx.read_only()) {
              ++counters.c[kReadOnlyCommits];
              tab.results[t] = result;
            }
            if (out.hist_counts != nullptr) {
              const size_t at = static_cast<size_t>(t) * CAPACITY;
              out.hist_counts[t] = tx.record(out.hist_reads + at, out.hist_writes + at);
            }
          } else if (tx.overflowed()) {
            outcome = kTooLarge;
            ++counters.c[kTooLargeCount];
          } else {
            concurrency_abort = true;
          }
          if (concurrency_abort) {
            counters.add(tx.abort_cause());
            if (!tx.lost_in_line()) ++attempts;
            if (attempts >= out.max_retries) {
              outcome = kAbandoned;
              ++counters.c[kAbandonedCount];
            } else {
              if (attempts == out.urgent_after && !tx.urgent()) {
                owner = priority::urgent(out.counters);
              }
              const uint32_t pause = PrStmPolicy().backoff_ns(attempts);
              if (pause != 0) __nanosleep(pause);
            }
          }
        });
      }
      __syncwarp(warp);
    }
    if (mine) out.outcome[t] = outcome;
  }
  counters.flush_to(out.counters);
}

}  // namespace gstm::program::jit

using gstm::program::jit::Alu;
using gstm::program::jit::Body;
using gstm::program::jit::Local;
using gstm::program::jit::Step;
using gstm::program::jit::Value;
using gstm::program::jit::Words;

/// The body's declaration and the operations it may call, for transaction type TX (SUFFIX names
/// them: o2 is an ordinary PR-STM attempt with sets of 2, u2 an urgent one).
#define GSTM_JIT_TX(SUFFIX, TX)                                                                    \
  extern "C" __device__ Body<TX> gstm_jit_body_##SUFFIX(                                           \
      Words<TX> tx, const uint32_t* image, const uint32_t* cols, long long* outputs,               \
      int32_t* abort_codes, uint32_t tx_count, uint32_t t, uint32_t type);                          \
  template <>                                                                                      \
  struct gstm::program::jit::BodyOf<TX> {                                                          \
    __device__ __forceinline__ static Body<TX> call(const Words<TX>& tx,                           \
                                                    const gstm::program::Table& tab, uint32_t t,   \
                                                    uint32_t type) {                               \
      return gstm_jit_body_##SUFFIX(tx, tab.image, tab.cols, tab.outputs, tab.abort_codes,         \
                                    tab.tx_count, t, type);                                        \
    }                                                                                              \
  };                                                                                               \
  static_assert(sizeof(Value<TX>) == sizeof(TX) + 16 && sizeof(Step<TX>) == sizeof(TX) + 8 &&     \
                sizeof(Body<TX>) == sizeof(TX) + 8 && sizeof(TX) % 8 == 0,                         \
                "ProgramPtx assumes each result right after the transaction's bytes");             \
  extern "C" __device__ __noinline__ Value<TX> gstm_jit_rd_##SUFFIX(Words<TX> in, uint32_t region, \
                                                                   uint32_t index) {              \
    Local<TX> l(in);                                                                               \
    const unsigned long long v = l.tx().read(region, index);                                       \
    return {l.words(), v, l.tx().active()};                                                        \
  }                                                                                                \
  extern "C" __device__ __noinline__ Value<TX> gstm_jit_rds_##SUFFIX(Words<TX> in, uint32_t region, \
                                                                    uint32_t index) {             \
    Local<TX> l(in);                                                                               \
    const unsigned long long v = l.tx().read_shared(region, index);                                \
    return {l.words(), v, l.tx().active()};                                                        \
  }                                                                                                \
  extern "C" __device__ __noinline__ Step<TX> gstm_jit_wr_##SUFFIX(                                \
      Words<TX> in, uint32_t region, uint32_t index, unsigned long long bits) {                    \
    Local<TX> l(in);                                                                               \
    l.tx().write(region, index, bits);                                                             \
    return {l.words(), l.tx().active()};                                                           \
  }                                                                                                \
  extern "C" __device__ __noinline__ Value<TX> gstm_jit_sum_##SUFFIX(                              \
      Words<TX> in, uint32_t region, uint32_t first, uint32_t count, uint32_t wrap) {              \
    Local<TX> l(in);                                                                               \
    const long long v = l.tx().sum_range(region, first, count, wrap);                              \
    return {l.words(), static_cast<unsigned long long>(v), l.tx().active()};                       \
  }                                                                                                \
  extern "C" __device__ __noinline__ Step<TX> gstm_jit_retry_##SUFFIX(Words<TX> in) {             \
    Local<TX> l(in);                                                                               \
    l.tx().semantic_conflict();                                                                    \
    return {l.words(), 0};                                                                         \
  }                                                                                                \
  extern "C" __device__ __noinline__ Step<TX> gstm_jit_end_##SUFFIX(Words<TX> in,                 \
                                                                   uint32_t outcome) {             \
    Local<TX> l(in);                                                                               \
    l.tx().end(static_cast<uint8_t>(outcome));                                                     \
    return {l.words(), 0};                                                                         \
  }

/// The kernels of one set capacity: run_semantic (programs that may retry) and run_in_place.
#define GSTM_JIT_CAPACITY(CAP, SEMANTIC_BLOCKS, IN_PLACE_BLOCKS)                                  \
  using TxO##CAP = gstm::PrStmTx<CAP, true, false>;                                               \
  using TxU##CAP = gstm::PrStmTx<CAP, true, true>;                                                \
  GSTM_JIT_TX(o##CAP, TxO##CAP)                                                                    \
  GSTM_JIT_TX(u##CAP, TxU##CAP)                                                                    \
  extern "C" __global__ void __launch_bounds__(256, SEMANTIC_BLOCKS) gstm_jit_prstm_s##CAP(       \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out) {                                             \
    gstm::program::jit::share_view(view);                                                          \
    gstm::run_semantic<gstm::program::jit::Ops, CAP, gstm::program::Table>(view, tab, out);        \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, IN_PLACE_BLOCKS) gstm_jit_prstm_in_place_s##CAP( \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out) {                                             \
    gstm::program::jit::share_view(view);                                                          \
    gstm::program::jit::run_in_place<CAP>(view, tab, out);                                         \
  }

/// @brief Compiled program batches under PR-STM with sets of at most 2, 4, 8 or 16 entries
///        (larger sets live in local memory: their programs stay with the interpreter).
/// @param view the store; @param tab the batch (its image holds the column table); @param out
///        outcomes, counters
GSTM_JIT_CAPACITY(2, 2, 3)
GSTM_JIT_CAPACITY(4, 2, 3)
GSTM_JIT_CAPACITY(8, 1, 2)
GSTM_JIT_CAPACITY(16, 1, 1)

/// The arithmetic of opcode OP (alu() of program.cuh, OP a constant it folds).
#define GSTM_JIT_ALU(OP)                                                                           \
  extern "C" __device__ __noinline__ Alu gstm_jit_alu_##OP(unsigned long long x,                   \
                                                          unsigned long long y) {                 \
    uint8_t fault = 0;                                                                             \
    const unsigned long long v = gstm::program::alu(OP, x, y, fault);                              \
    return {v, fault};                                                                             \
  }
GSTM_JIT_ALU(20)
GSTM_JIT_ALU(21)
GSTM_JIT_ALU(22)
GSTM_JIT_ALU(23)
GSTM_JIT_ALU(24)
GSTM_JIT_ALU(25)
GSTM_JIT_ALU(26)
GSTM_JIT_ALU(27)
GSTM_JIT_ALU(28)
GSTM_JIT_ALU(29)
GSTM_JIT_ALU(30)
GSTM_JIT_ALU(31)
GSTM_JIT_ALU(32)
GSTM_JIT_ALU(33)
GSTM_JIT_ALU(34)
GSTM_JIT_ALU(35)
GSTM_JIT_ALU(36)
GSTM_JIT_ALU(37)
GSTM_JIT_ALU(38)
GSTM_JIT_ALU(39)
GSTM_JIT_ALU(40)
GSTM_JIT_ALU(41)
GSTM_JIT_ALU(42)
GSTM_JIT_ALU(43)
GSTM_JIT_ALU(44)
GSTM_JIT_ALU(45)
GSTM_JIT_ALU(46)
GSTM_JIT_ALU(47)
GSTM_JIT_ALU(48)
GSTM_JIT_ALU(49)
GSTM_JIT_ALU(50)
GSTM_JIT_ALU(51)
GSTM_JIT_ALU(52)
GSTM_JIT_ALU(53)
GSTM_JIT_ALU(54)
GSTM_JIT_ALU(55)
GSTM_JIT_ALU(56)
GSTM_JIT_ALU(57)
GSTM_JIT_ALU(58)
GSTM_JIT_ALU(59)
GSTM_JIT_ALU(60)
GSTM_JIT_ALU(61)
GSTM_JIT_ALU(62)
GSTM_JIT_ALU(63)
GSTM_JIT_ALU(64)
GSTM_JIT_ALU(65)
GSTM_JIT_ALU(66)
GSTM_JIT_ALU(67)
GSTM_JIT_ALU(68)
GSTM_JIT_ALU(69)
GSTM_JIT_ALU(70)
GSTM_JIT_ALU(71)
GSTM_JIT_ALU(72)
GSTM_JIT_ALU(73)
GSTM_JIT_ALU(74)
GSTM_JIT_ALU(75)
GSTM_JIT_ALU(76)
GSTM_JIT_ALU(77)
GSTM_JIT_ALU(78)
GSTM_JIT_ALU(79)
GSTM_JIT_ALU(80)
GSTM_JIT_ALU(81)
GSTM_JIT_ALU(82)
GSTM_JIT_ALU(83)
GSTM_JIT_ALU(84)
GSTM_JIT_ALU(85)
GSTM_JIT_ALU(86)
GSTM_JIT_ALU(87)
GSTM_JIT_ALU(88)
GSTM_JIT_ALU(89)
GSTM_JIT_ALU(90)
GSTM_JIT_ALU(91)
GSTM_JIT_ALU(92)
GSTM_JIT_ALU(93)

/// CVT: x converted between the type codes of `code` (from << 4 | to).
extern "C" __device__ __noinline__ unsigned long long gstm_jit_cvt(unsigned long long x,
                                                                   uint32_t code) {
  return gstm::program::convert(x, code >> 4, code & 15u);
}

/// LDPA: column slot `slot` of transaction t, through the program's slot table at word `slots`
/// of the image (an array parameter's element is chosen at run time).
extern "C" __device__ __noinline__ unsigned long long gstm_jit_column(
    const uint32_t* image, const uint32_t* cols, uint32_t tx_count, uint32_t slots, uint32_t slot,
    uint32_t t) {
  gstm::program::Table tab{};
  tab.cols = cols;
  tab.tx_count = tx_count;
  return gstm::program::column(tab, image, slots, slot, t);
}
