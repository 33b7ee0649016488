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

/// Runs transaction t (when `mine`) of program `type` until it ends: retried in place, in
/// warp-wide rounds, as the hand-written PR-STM bank kernel (prstm_bank.cu) runs; no pending
/// bits, no postponing. Returns its outcome (kCommitted for a lane without one). Counters,
/// results and history as run_semantic writes them. Every lane of `warp` calls it together.
/// PRE_LOCK_READS as PrStmTx's: a relaxation, whose transactions of one work item all read
/// their source, leaves the read-only locks out of the pre-lock step (with them, each item's
/// edges refused one another at its source's lock).
/// DYNAMIC: one attempt type for ordinary and urgent attempts (PrStmTx's), the body inlined once.
template <int CAPACITY, bool PRE_LOCK_READS = true, bool DYNAMIC = false>
__device__ __forceinline__ uint8_t run_one_in_place(const StoreView& view, const Table& tab,
                                                    const SemanticOut& out,
                                                    ThreadCounters<PrStmPolicy::kCounters>& counters,
                                                    unsigned warp, uint32_t self, uint32_t t,
                                                    uint32_t type, bool mine) {
  uint8_t outcome = mine ? kPending : kCommitted;
  uint32_t attempts = 0;
  uint32_t owner = priority::ordinary(self);
  while (__any_sync(warp, outcome == kPending)) {
    if (outcome == kPending) {
      with_attempt<CAPACITY, PRE_LOCK_READS, DYNAMIC>(view, owner, [&](auto& tx) __attribute__((always_inline)) {
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
            if (tab.results != nullptr) tab.results[t] = result;  // a relaxation keeps none
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
  return outcome;
}

/// Programs that never retry: each transaction retried in place until it ends
/// (run_one_in_place). Outcomes, counters and history as run_semantic writes them.
template <int CAPACITY, bool DYNAMIC = false>
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
    const uint8_t outcome =
        run_one_in_place<CAPACITY, true, DYNAMIC>(view, tab, out, counters, warp, self, t, type, mine);
    if (mine) out.outcome[t] = outcome;
  }
  counters.flush_to(out.counters);
}

/// A relaxation's look before its transaction: the program run over plain reads of the store,
/// stopped at its first write, abort or retry. A look that runs to the end without any
/// (quiet()) shows that the edge cannot improve its target: a relaxation only ever improves
/// values, so what a later read would see could only make that truer, and a source improved
/// after the look is in the next round (its commit marks it). Anything else runs the
/// transaction. Same interface as PrStmTx for the generated body; the view reference first
/// (reseat_view).
class ProbeTx {
 public:
  __device__ __forceinline__ explicit ProbeTx(const StoreView& view) : view_(view) {}
  __device__ __forceinline__ bool active() const { return status_ == 0; }
  __device__ __forceinline__ bool quiet() const { return status_ == 0; }
  __device__ __forceinline__ uint64_t read(uint32_t region, uint32_t index) {
    return active() ? view_.load_word(region, index) : 0;
  }
  __device__ __forceinline__ uint64_t read_shared(uint32_t region, uint32_t index) const {
    return active() ? view_.load_word(region, index) : 0;
  }
  __device__ __forceinline__ long long sum_range(uint32_t region, uint32_t first, uint32_t count,
                                                 uint32_t wrap) {
    long long sum = 0;
    uint32_t index = first;
    for (uint32_t j = 0; j < count && active(); ++j) {
      sum += static_cast<long long>(static_cast<int64_t>(view_.load_word(region, index)));
      index = index + 1 == wrap ? 0 : index + 1;
    }
    return sum;
  }
  __device__ __forceinline__ void write(uint32_t, uint32_t, uint64_t) { status_ = 1; }
  __device__ __forceinline__ void semantic_conflict() { status_ = 1; }
  __device__ __forceinline__ void end(uint8_t) { status_ = 1; }

 private:
  const StoreView& view_;
  uint32_t status_ = 0;  ///< 0 while the look may still run to the end
  uint32_t pad_ = 0;     ///< the generated body passes whole 8-byte words
};

/// Out-edges of one vertex per work item of a relaxation round (CudaProgramRelax.CHUNK_EDGES).
constexpr uint32_t kRelaxChunk = 256;

/// Slots of RelaxArgs::stats: [0, 10) transactions by outcome code, then these.
enum RelaxStat : int { kRelaxSkipped = 10, kRelaxChanges = 11, kRelaxStats = 12 };

/// One round of a program relaxation (io.gstm.core.cuda.CudaProgramRelax), in two launches: the
/// look (relax_look) lists the edges that would write, the transactions (relax_run) run them.
/// The batch's columns are the graph's edges (transaction t is edge t: its src, dst and weight);
/// a work item is a run of at most kRelaxChunk consecutive out-edges of one vertex.
struct RelaxArgs {
  const uint2* items;        ///< [item_count] (first edge, edges)
  uint2* next_items;         ///< the next round's items, appended
  uint32_t* words;           ///< [0] next_items' length, [1] lowest edge that ended TOO_LARGE,
                             ///< [2] run's length
  const int32_t* offsets;    ///< [vertices + 1] the CSR's offsets
  const int32_t* src;        ///< [edges] each edge's source (the src column)
  const int32_t* dst;        ///< [edges] each edge's target (the dst column)
  uint32_t* stamps;          ///< [vertices] the last round that queued each vertex
  unsigned long long* stats; ///< [kRelaxStats]
  uint32_t* run;             ///< the edges whose look would write, appended by relax_look
  uint32_t item_count;
  uint32_t round;            ///< this round's number, from 1
  uint32_t changed_output;   ///< the output slot of 'changed'
  uint32_t type;             ///< the program's type in the image
};
static_assert(sizeof(RelaxArgs) == 88, "CudaProgramRelax packs 88 bytes");

/// Queues vertex v's out-edges for the next round, once per round.
__device__ __forceinline__ void queue_vertex(const RelaxArgs& a, uint32_t v) {
  if (atomicExch(a.stamps + v, a.round) == a.round) return;
  const uint32_t first = static_cast<uint32_t>(a.offsets[v]);
  const uint32_t degree = static_cast<uint32_t>(a.offsets[v + 1]) - first;
  if (degree == 0) return;
  const uint32_t chunks = (degree + kRelaxChunk - 1) / kRelaxChunk;
  const uint32_t at = atomicAdd(a.words, chunks);
  for (uint32_t c = 0; c < chunks; ++c) {
    a.next_items[at + c] = make_uint2(first + c * kRelaxChunk, min(kRelaxChunk, degree - c * kRelaxChunk));
  }
}

/// Whether transaction t's look (its program run by a Probe, a ProbeTx) got as far as a
/// write, an abort or a retry: whether its transaction must run.
template <class Probe>
__device__ __forceinline__ bool look_writes(const StoreView& view, const Table& tab, uint32_t t,
                                            uint32_t type) {
  Probe probe(view);
  const Body<Probe> look = BodyOf<Probe>::call(words_of(probe), tab, t, type);
  Local<Probe> after(look.tx);
  return !after.tx().quiet();
}

/// The look: a warp per work item, a lane per edge; each edge's program runs over plain reads
/// (ProbeTx), and an edge whose look would write, abort or retry is listed in a.run (a warp's
/// edges appended with one atomic). Kept apart from the transactions so that it runs with the
/// few registers a look needs, at full occupancy: it reads every queued edge, the
/// transactions only those listed. (Probe is ProbeTx, a parameter so that its body's
/// declaration, which follows, is looked up at instantiation.)
template <class Probe = ProbeTx>
__device__ __forceinline__ void relax_look(const StoreView& view, const Table& tab,
                                           const RelaxArgs& a) {
  ThreadCounters<kRelaxStats> stats;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warps = gridDim.x * blockDim.x / 32u;
  for (uint32_t item = self / 32u; item < a.item_count; item += warps) {
    const uint2 it = a.items[item];
    for (uint32_t base = 0; base < it.y; base += 32u) {
      const uint32_t t = it.x + base + lane;
      bool run = false;
      if (base + lane < it.y) {
        run = look_writes<Probe>(view, tab, t, a.type);
        if (!run) ++stats.c[kRelaxSkipped];
      }
      const unsigned listed = __ballot_sync(__activemask(), run);
      if (listed == 0) continue;
      const uint32_t leader = __ffs(listed) - 1;
      uint32_t at = 0;
      if (lane == leader) at = atomicAdd(a.words + 2, __popc(listed));
      at = __shfl_sync(__activemask(), at, leader);
      if (run) a.run[at + __popc(listed & ((1u << lane) - 1u))] = t;
    }
  }
  stats.flush_to(a.stats);
}

/// The transactions of the edges relax_look listed, each run in place (run_one_in_place) in
/// warp-wide rounds, after a second look: the first saw the values the round started from, and
/// the round's commits so far may already have made the edge's write moot (on R-MAT 2^22 three
/// of four listed edges then committed without writing). A commit whose 'changed' output is
/// nonzero queues the target; an abandoned one queues the source (its edge runs again); one
/// that ended TOO_LARGE is noted in words[1].
template <int CAPACITY, class Probe = ProbeTx>
__device__ __forceinline__ void relax_run(const StoreView& view, const Table& tab,
                                          const SemanticOut& out, const RelaxArgs& a) {
  const unsigned warp = __activemask();
  ThreadCounters<PrStmPolicy::kCounters> counters;
  ThreadCounters<kRelaxStats> stats;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t threads = gridDim.x * blockDim.x;
  const uint32_t listed = *reinterpret_cast<volatile uint32_t*>(a.words + 2);
  const uint32_t rounds = (listed + threads - 1) / threads;
  for (uint32_t r = 0; r < rounds; ++r) {
    const uint32_t i = self + r * threads;
    const uint32_t t = i < listed ? a.run[i] : 0;
    bool mine = i < listed;
    if (mine) {
      mine = look_writes<Probe>(view, tab, t, a.type);
      if (!mine) ++stats.c[kRelaxSkipped];
    }
    const uint8_t outcome = run_one_in_place<CAPACITY, false>(view, tab, out, counters, warp,
                                                               self, t, a.type, mine);
    if (!mine) continue;
    stats.add(outcome);
    if (outcome == kCommitted) {
      if (tab.outputs[static_cast<size_t>(a.changed_output) * tab.tx_count + t] != 0) {
        ++stats.c[kRelaxChanges];
        queue_vertex(a, static_cast<uint32_t>(a.dst[t]));
      }
    } else if (outcome == kAbandoned || outcome == kAbandonedSemantic) {
      queue_vertex(a, static_cast<uint32_t>(a.src[t]));
    } else if (outcome == kTooLarge) {
      atomicMin(a.words + 1, t);
    }
  }
  counters.flush_to(out.counters);
  stats.flush_to(a.stats);
}

}  // namespace gstm::program::jit

using gstm::program::jit::Alu;
using gstm::program::jit::Body;
using gstm::program::jit::Local;
using gstm::program::jit::Step;
using gstm::program::jit::Value;
using gstm::program::jit::Words;

/// The body's declaration and the operations it may call, for transaction type TX (SUFFIX names
/// them: o2 is an ordinary PR-STM attempt with sets of 2, u2 an urgent one, d2 either).
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

/// The relaxation's look (suffix p, one for every capacity) and its kernel.
GSTM_JIT_TX(p, gstm::program::jit::ProbeTx)

/// @brief The look of a program relaxation's round (relax_look): lists the edges to run.
extern "C" __global__ void __launch_bounds__(256) gstm_jit_relax_look(
    const __grid_constant__ gstm::StoreView view, const __grid_constant__ gstm::program::Table tab,
    const __grid_constant__ gstm::program::jit::RelaxArgs args) {
  gstm::program::jit::share_view(view);
  gstm::program::jit::relax_look(view, tab, args);
}

/// The kernels of one set capacity: run_semantic (programs that may retry), run_in_place and a
/// round of a program relaxation (relax_round), whose attempts (r: ordinary, v: urgent) leave
/// the read-only locks out of the pre-lock step. The `one` kernels run both kinds of attempt
/// as one type (d: PrStmTx's DYNAMIC), so that ptxas compiles the program's body once.
#define GSTM_JIT_CAPACITY(CAP, SEMANTIC_BLOCKS, IN_PLACE_BLOCKS)                                  \
  using TxO##CAP = gstm::PrStmTx<CAP, true, false>;                                               \
  using TxU##CAP = gstm::PrStmTx<CAP, true, true>;                                                \
  using TxR##CAP = gstm::PrStmTx<CAP, false, false>;                                              \
  using TxV##CAP = gstm::PrStmTx<CAP, false, true>;                                               \
  using TxD##CAP = gstm::PrStmTx<CAP, true, false, true>;                                         \
  GSTM_JIT_TX(o##CAP, TxO##CAP)                                                                    \
  GSTM_JIT_TX(u##CAP, TxU##CAP)                                                                    \
  GSTM_JIT_TX(r##CAP, TxR##CAP)                                                                    \
  GSTM_JIT_TX(v##CAP, TxV##CAP)                                                                    \
  GSTM_JIT_TX(d##CAP, TxD##CAP)                                                                    \
  extern "C" __global__ void __launch_bounds__(256, SEMANTIC_BLOCKS) gstm_jit_prstm_one_s##CAP(   \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out) {                                             \
    gstm::program::jit::share_view(view);                                                          \
    gstm::run_semantic<gstm::program::jit::Ops, CAP, gstm::program::Table,                         \
                       gstm::PrStmDynamicPolicy>(view, tab, out);                                  \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, IN_PLACE_BLOCKS)                               \
      gstm_jit_prstm_in_place_one_s##CAP(const __grid_constant__ gstm::StoreView view,             \
                                         const __grid_constant__ gstm::program::Table tab,         \
                                         const __grid_constant__ gstm::SemanticOut out) {          \
    gstm::program::jit::share_view(view);                                                          \
    gstm::program::jit::run_in_place<CAP, true>(view, tab, out);                                   \
  }                                                                                                \
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
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, IN_PLACE_BLOCKS) gstm_jit_relax_s##CAP(        \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out,                                               \
      const __grid_constant__ gstm::program::jit::RelaxArgs args) {                                \
    gstm::program::jit::share_view(view);                                                          \
    gstm::program::jit::relax_run<CAP>(view, tab, out, args);                                      \
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
