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
/// transaction with what it read and whether it is still active (`Value`, `Step`). The body
/// takes the attempt's owner, not its bytes, and begins it itself (gstm_jit_new): nvcc passes a
/// by-value argument of the kernel's through a copy in local memory, the body's result not.
#include <cooperative_groups.h>
#include <cstring>

#include "gstm/drain.cuh"
#include "gstm/program_semantic.cuh"
#include "gstm/warp.cuh"

/// The store's view, copied into shared memory by each block (share_view). A transaction keeps
/// a reference to its view; the operations, compiled apart from the kernel, would reach it (and
/// every region's base, length and locks) through a generic pointer, one load at a time. Pointed
/// at this symbol instead, they read shared memory, as fast as the kernel's own parameter.
__shared__ gstm::StoreView gstm_jit_view;

/// Where the batch's first columns begin in the column buffer (the image's column table, word
/// offsets), copied into shared memory by each block (share_view): a body reads them as it
/// begins, and from the image each was a round trip to the L2 (its L1 line dropped by the last
/// transaction's fences). io.gstm.core.cuda.ptx.PtxWriter reads column c below kSharedColumns
/// here.
constexpr uint32_t kSharedColumns = 32;
__shared__ uint32_t gstm_jit_columns[kSharedColumns];

namespace gstm::program::jit {

/// Copies the kernel's view into gstm_jit_view and the image's first column offsets into
/// gstm_jit_columns; the whole block waits for them.
__device__ __forceinline__ void share_view(const StoreView& view, const Table& tab) {
  const uint32_t* src = reinterpret_cast<const uint32_t*>(&view);
  uint32_t* dst = reinterpret_cast<uint32_t*>(&gstm_jit_view);
  for (uint32_t i = threadIdx.x; i < sizeof(StoreView) / 4; i += blockDim.x) dst[i] = src[i];
  const uint32_t columns = min(tab.image[kHColumns], kSharedColumns);
  for (uint32_t c = threadIdx.x; c < columns; c += blockDim.x) {
    gstm_jit_columns[c] = tab.image[kHeaderWords + 2 * c];
  }
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
/// `tx` is an attempt with_attempt has just begun: the body begins its own of the same owner
/// (gstm_jit_new), and `tx` takes the body's at the end.
struct Ops {
  template <class Tx>
  __device__ __forceinline__ static long long run(Tx& tx, const Table& tab, uint32_t t,
                                                  uint32_t type) {
    const Body<Tx> b = BodyOf<Tx>::call(tx.owner(), tab, t, type);
    memcpy(static_cast<void*>(&tx), &b.tx, sizeof(Tx));  // Tx has reference members: no operator=
    reseat_view(&tx);
    return b.result;
  }
};

/// A word a committed attempt may have written (run_one_in_place): found, and its bits.
struct WrittenWord {
  uint32_t region;
  uint32_t index;
  uint64_t bits = 0;
  bool found = false;
};

/// Runs transaction t (when `mine`) of program `type` until it ends: retried in place, in
/// warp-wide rounds, as the hand-written PR-STM bank kernel (prstm_bank.cu) runs; no pending
/// bits, no postponing. Returns its outcome (kCommitted for a lane without one). Counters,
/// results and history as run_semantic writes them. Every lane of `warp` calls it together.
/// PRE_LOCK_READS as PrStmTx's: a relaxation, whose transactions of one work item all read
/// their source, leaves the read-only locks out of the pre-lock step (with them, each item's
/// edges refused one another at its source's lock).
/// DYNAMIC: one attempt type for ordinary and urgent attempts (PrStmTx's), the body inlined once.
/// `first_output`, when given, gets the committed attempt's first output: the copy in
/// tab.outputs may be another run's of the same transaction by then (a relaxation's hops).
/// `written`, when given, gets whether the committed attempt wrote its word, and what.
/// `counters`: a ThreadCounters or SharedCounters of PrStmPolicy::kCounters.
template <int CAPACITY, bool PRE_LOCK_READS = true, bool DYNAMIC = false, class Counters>
__device__ __forceinline__ uint8_t run_one_in_place(const StoreView& view, const Table& tab,
                                                    const SemanticOut& out, Counters& counters,
                                                    unsigned warp, uint32_t self, uint32_t t,
                                                    uint32_t type, bool mine,
                                                    long long* first_output = nullptr,
                                                    WrittenWord* written = nullptr) {
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
          if (first_output != nullptr) *first_output = result;
          if (written != nullptr) {
            written->found = tx.wrote(written->region, written->index, written->bits);
          }
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
/// (reseat_view). Its reads go to L2 (no stale L1 line) without the ordering of the store's
/// relaxed loads, so that ptxas may issue a look's independent reads together (the look only
/// decides whether a transaction runs: a value changed after it is the changer's to queue).
class ProbeTx {
 public:
  /// A look has no owner (it takes no lock); the parameter makes it begun as an attempt is.
  __device__ __forceinline__ ProbeTx(const StoreView& view, uint32_t) : view_(view) {}
  __device__ __forceinline__ bool active() const { return status_ == 0; }
  __device__ __forceinline__ bool quiet() const { return status_ == 0; }
  __device__ __forceinline__ uint64_t read(uint32_t region, uint32_t index) {
    return active() ? peek(region, index) : 0;
  }
  __device__ __forceinline__ uint64_t read_shared(uint32_t region, uint32_t index) const {
    return active() ? peek(region, index) : 0;
  }
  __device__ __forceinline__ long long sum_range(uint32_t region, uint32_t first, uint32_t count,
                                                 uint32_t wrap) {
    long long sum = 0;
    uint32_t index = first;
    for (uint32_t j = 0; j < count && active(); ++j) {
      sum += static_cast<long long>(static_cast<int64_t>(peek(region, index)));
      index = index + 1 == wrap ? 0 : index + 1;
    }
    return sum;
  }
  __device__ __forceinline__ void write(uint32_t, uint32_t, uint64_t) { status_ = 1; }
  __device__ __forceinline__ void semantic_conflict() { status_ = 1; }
  __device__ __forceinline__ void end(uint8_t) { status_ = 1; }

 private:
  __device__ __forceinline__ uint64_t peek(uint32_t region, uint32_t index) const {
    const RegionView& r = view_.regions[region];
    if (r.word_bytes == 4) {
      return static_cast<uint64_t>(static_cast<int64_t>(
          __ldcg(static_cast<const int*>(r.base) + index)));
    }
    return static_cast<uint64_t>(__ldcg(static_cast<const long long*>(r.base) + index));
  }

  const StoreView& view_;
  uint32_t status_ = 0;  ///< 0 while the look may still run to the end
  uint32_t pad_ = 0;     ///< the generated body passes whole 8-byte words
};

/// Out-edges of one vertex per work item of a relaxation (CudaProgramRelax.CHUNK_EDGES).
constexpr uint32_t kRelaxChunk = 256;

/// Slots of RelaxArgs::stats: [0, 10) transactions by outcome code, then these.
enum RelaxStat : int { kRelaxSkipped = 10, kRelaxChanges = 11, kRelaxStats = 12 };

/// A relaxation's run launches blocks of this many threads (CudaProgramRelax.THREADS).
constexpr uint32_t kRelaxThreads = 256;
/// Its counts, in shared memory: with them in registers (22 words), its transaction spilled.
using RelaxCounters = SharedCounters<PrStmPolicy::kCounters>;
using RelaxStats = SharedCounters<kRelaxStats>;

/// Slots of RelaxArgs::words. A round's next-queue length and its count of items taken rotate
/// over three slots each, so that a round needs one grid sync: the slot a round clears was read
/// by all before a sync that all have passed.
enum RelaxWord : int {
  kQueueLength = 0,   ///< [0, 3): the queue of round s in slot s % 3
  kTaken = 3,         ///< [3, 6): the items round s handed out, in slot 3 + s % 3
  kFarLength = 6,     ///< [6, 8): the deferred items of each far pile
  kTooLarge = 8,      ///< the lowest edge whose transaction ended TOO_LARGE (NO_EDGE: none)
  kRounds = 9,        ///< out: rounds run
  kLeft = 10,         ///< out: items still queued or deferred when the loop stopped
  kDrainHead = 11,    ///< a drained bucket (relax_drain): the ring's next position handed out,
  kDrainTaken = 12,   ///< the items taken,
  kDrainBusy = 13,    ///< the warps busy with items they took,
  kDrainState = 14,   ///< and its drain::State
  kPileTaken = 15,    ///< a far pile's items a drained bucket starts from (drain_loop)
  kRelaxWords = 16
};
constexpr uint32_t kNoEdge = 0xffffffffu;
constexpr uint32_t kNoOrder = 0xffffffffu;

/// A program relaxation's whole run (io.gstm.core.cuda.CudaProgramRelax): its rounds in one
/// cooperative launch, the grid synchronised between them; in a round each queued edge is looked
/// at and, where the look would write, its transaction runs. The batch's columns are the graph's
/// edges (transaction t is edge t: its src, dst and weight); a work item is a run of at most
/// kRelaxChunk consecutive out-edges of one vertex.
/// With an order (order_region), the items whose source's value is past the round's bound wait
/// in a far pile, near-far buckets of `width`: the pile is taken when the queue runs dry, the
/// bound moved past its lowest value.
struct RelaxArgs {
  uint2* queues[2];              ///< work items (first edge, edges); queue 0 holds the first
  uint2* far[2];                 ///< the far piles' items
  unsigned long long* far_min;   ///< [2] each pile's lowest deferred value (ordered_key)
  uint32_t* words;               ///< [kRelaxWords], see RelaxWord
  const int32_t* offsets;        ///< [vertices + 1] the CSR's offsets
  const int32_t* src;            ///< [edges] each edge's source (the src column)
  const int32_t* dst;            ///< [edges] each edge's target (the dst column)
  uint32_t* stamps;              ///< [vertices] the last round that queued each vertex
  uint32_t* far_stamps;          ///< [vertices] the last pile each vertex was deferred to
  unsigned long long* stats;     ///< [kRelaxStats]
  double width;                  ///< a near-far bucket's width in the order's values
  uint32_t item_count;           ///< queue 0's length
  uint32_t max_rounds;
  uint32_t changed_output;       ///< the output slot of 'changed'
  uint32_t type;                 ///< the program's type in the image
  uint32_t order_region;         ///< the store region that orders the vertices, or kNoOrder
  uint32_t order_type;           ///< its RegionType code (int32, int64, float32, float64)
  uint32_t descending;           ///< nonzero: larger values first
  uint32_t chain;                ///< hops a warp follows within a round (0: none; only when
                                 ///< 'changed' is the first output)
  uint32_t drain_capacity;       ///< gstm_jit_relax_drain: the ring's items (every vertex with
                                 ///< edges, each in one item); 0 in rounds
  uint32_t pad;
};
static_assert(sizeof(RelaxArgs) == 144, "CudaProgramRelax packs 144 bytes");

/// A double as an unsigned key of the same order (for atomicMin), and back.
__device__ __forceinline__ unsigned long long ordered_key(double v) {
  const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(v));
  return (b >> 63) != 0 ? ~b : b | (1ull << 63);
}
__device__ __forceinline__ double from_ordered_key(unsigned long long k) {
  return __longlong_as_double(static_cast<long long>((k >> 63) != 0 ? k & ~(1ull << 63) : ~k));
}

/// A vertex's place in the order given its word `w` of the order's region: the word as a
/// number, negated when larger values go first.
__device__ __forceinline__ double priority_of(const RelaxArgs& a, uint64_t w) {
  double p;
  switch (a.order_type) {
    case 0: p = static_cast<double>(static_cast<int32_t>(w)); break;
    case 1: p = static_cast<double>(static_cast<int64_t>(w)); break;
    case 2: p = static_cast<double>(__int_as_float(static_cast<int>(w))); break;
    default: p = __longlong_as_double(static_cast<long long>(w)); break;
  }
  return a.descending != 0 ? -p : p;
}

/// Vertex v's place in the order, read: a plain read, it only decides when v's edges run.
__device__ __forceinline__ double priority(const StoreView& view, const RelaxArgs& a,
                                           uint32_t v) {
  return priority_of(a, view.load_word(a.order_region, v));
}

/// Writes the work items of a vertex whose out-edges are [first, first + degree) at items[at..].
__device__ __forceinline__ void write_items(uint2* items, uint32_t at, uint32_t first,
                                            uint32_t degree) {
  const uint32_t chunks = (degree + kRelaxChunk - 1) / kRelaxChunk;
  for (uint32_t c = 0; c < chunks; ++c) {
    items[at + c] =
        make_uint2(first + c * kRelaxChunk, min(kRelaxChunk, degree - c * kRelaxChunk));
  }
}

/// Appends vertex v's out-edges to `items` (length at *length) as work items.
__device__ __forceinline__ void append_vertex(const RelaxArgs& a, uint2* items, uint32_t* length,
                                              uint32_t v) {
  const uint32_t first = static_cast<uint32_t>(a.offsets[v]);
  const uint32_t degree = static_cast<uint32_t>(a.offsets[v + 1]) - first;
  if (degree == 0) return;
  write_items(items, atomicAdd(length, (degree + kRelaxChunk - 1) / kRelaxChunk), first, degree);
}

/// What a relaxation's look loads before it decides, loaded apart from the decision so that a
/// lane may have two edges' loads in flight (relax_pass): the program's columns and its early
/// reads (io.gstm.core.cuda.ptx.RelaxationPtx lays them out; the look loads what does not fit).
constexpr int kLookPreWords = 8;  // RelaxationPtx.LOOK_PRE_WORDS
struct LookPre {
  unsigned long long v[kLookPreWords];
};

/// A relaxation's edge as the kernel hands it to the generated code: its columns (CudaProgramRelax
/// binds src, dst and weight, in that order), the source from its work item and the others loaded
/// once, for its look. Its transaction gets the source and the target (RelaxEnds) and loads the
/// weight itself, beside its first lock's load: the target is the round trip before that load
/// (it decides the flush's order), the source the lock's index.
struct RelaxEdge {
  uint32_t src;
  uint32_t dst;
  unsigned long long weight;  ///< the float64's bits (0 without a weight column)
};
struct RelaxEnds {
  uint32_t src;
  uint32_t dst;
};

}  // namespace gstm::program::jit

/// Each thread's edge for the transaction it runs (flush_survivors): a relaxation's body reads
/// its source and target here (io.gstm.core.cuda.ptx.ProgramPtx: gstm_jit_edges, 8 bytes a
/// thread).
__shared__ gstm::program::jit::RelaxEnds gstm_jit_edges[gstm::program::jit::kRelaxThreads];
/// Each thread's vertex to follow in the warp's next pass: its edges (first, count).
__shared__ uint2 gstm_jit_held[gstm::program::jit::kRelaxThreads];
static_assert(sizeof(gstm::program::jit::RelaxEnds) == 8, "ProgramPtx reads 8 bytes a thread");

/// Generated from the relaxation's program (ProgramPtx): its look's loads for transaction t
/// (edge t, whose columns are given), and its look given them (the program run by a ProbeTx;
/// the result as a body's).
extern "C" __device__ gstm::program::jit::LookPre gstm_jit_pre_p(
    const uint32_t* image, const uint32_t* cols, uint32_t tx_count, uint32_t t, uint32_t src,
    uint32_t dst, unsigned long long weight);
extern "C" __device__ gstm::program::jit::Body<gstm::program::jit::ProbeTx> gstm_jit_look_p(
    gstm::program::jit::LookPre pre, const uint32_t* image, const uint32_t* cols,
    long long* outputs, int32_t* abort_codes, uint32_t tx_count, uint32_t t, uint32_t type);

namespace gstm::program::jit {

/// Transaction t's look loads (gstm_jit_pre_p), given its edge's columns `e`.
__device__ __forceinline__ LookPre look_loads(const Table& tab, uint32_t t, const RelaxEdge& e) {
  return gstm_jit_pre_p(tab.image, tab.cols, tab.tx_count, t, e.src, e.dst, e.weight);
}

/// The weight column (CudaProgramRelax's third), as the generated code finds a column of 8-byte
/// words: at its word offset in the column buffer; null without one.
__device__ __forceinline__ const unsigned long long* weight_column(const Table& tab) {
  return tab.image[kHColumns] > 2
             ? reinterpret_cast<const unsigned long long*>(tab.cols + gstm_jit_columns[2])
             : nullptr;
}

/// Edge t's columns, its source `source` (its work item's vertex): streamed (evict first), as
/// a look loads them (an edge is read once a round, the values again and again).
__device__ __forceinline__ RelaxEdge edge_columns(const RelaxArgs& a,
                                                  const unsigned long long* weights, uint32_t t,
                                                  uint32_t source) {
  return {source, static_cast<uint32_t>(__ldcs(a.dst + t)),
          weights != nullptr ? __ldcs(weights + t) : 0ull};
}

/// The ends `e` from lane `from` of the warp (every lane calls this).
__device__ __forceinline__ RelaxEnds shfl_ends(const RelaxEnds& e, uint32_t from) {
  return {__shfl_sync(0xffffffffu, e.src, from), __shfl_sync(0xffffffffu, e.dst, from)};
}

/// Transaction t's look loads, given its ends only (its weight loaded: a look again in a flush).
__device__ __forceinline__ LookPre look_loads(const Table& tab, uint32_t t, const RelaxEnds& e) {
  const unsigned long long* weights = weight_column(tab);
  return look_loads(tab, t, RelaxEdge{e.src, e.dst, weights != nullptr ? weights[t] : 0ull});
}

/// Whether transaction t's look, given its loads `pre`, got as far as a write, an abort or a
/// retry: whether its transaction must run.
__device__ __forceinline__ bool look_writes(const Table& tab, const LookPre& pre, uint32_t t,
                                            uint32_t type) {
  const Body<ProbeTx> look = gstm_jit_look_p(pre, tab.image, tab.cols, tab.outputs,
                                             tab.abort_codes, tab.tx_count, t, type);
  Local<ProbeTx> after(look.tx);
  return !after.tx().quiet();
}

/// Where one round stands: its items, where it queues and defers, and its bound.
struct RelaxRound {
  const uint2* items;
  uint32_t item_count;
  uint2* next;               ///< the next round's queue
  uint32_t* next_length;
  uint32_t* taken;           ///< items handed out so far (a warp takes its next 32 when free)
  uint32_t far;              ///< the pile it defers to
  uint32_t round;            ///< the run's round number, from 1 (queue stamps)
  uint32_t pile;             ///< the far pile's number, from 1 (far stamps)
  double bound;              ///< items whose source's priority is above it wait
  uint32_t* ring_seq;        ///< a drained bucket: next is a ring of ring_cap items, each slot's
                             ///< sequence here (relax_drain); null in a round
  uint32_t ring_cap;
};

/// No vertex held for a lane's next pass (relax_round).
constexpr uint32_t kNoVertex = 0xffffffffu;

/// A drained bucket's ring (drain.cuh): r.next, its tail *r.next_length, its counters a.words'.
__device__ __forceinline__ drain::Ring<uint2> ring_of(const RelaxArgs& a, const RelaxRound& r,
                                                      uint32_t budget = 0xffffffffu) {
  return {r.next,
          r.ring_seq,
          r.ring_cap,
          r.next_length,
          a.words + kDrainHead,
          a.words + kDrainTaken,
          a.words + kDrainBusy,
          a.words + kDrainState,
          budget};
}

/// Queues vertex v's out-edges for the next round, once a round; in a drained bucket, in its
/// ring, once until a warp takes it (the taker clears the stamp).
__device__ __forceinline__ void queue_vertex(const RelaxArgs& a, const RelaxRound& r, uint32_t v) {
  if (atomicExch(a.stamps + v, r.round) == r.round) return;
  if (r.ring_seq != nullptr) {
    const uint32_t first = static_cast<uint32_t>(a.offsets[v]);
    const uint32_t degree = static_cast<uint32_t>(a.offsets[v + 1]) - first;
    if (degree != 0) drain::push(ring_of(a, r), make_uint2(first, degree));
  } else {
    append_vertex(a, r.next, r.next_length, v);
  }
}

/// Lanes of a flush whose changed targets the warp queues together: each with its own atomic on
/// the queue's one length, a large round's million commits serialised (the paths program on
/// R-MAT 2^22: 10.7 -> 8.4 ms, H200); a grid's hop of a few lanes queues its own, unwaited.
constexpr int kGatherLanes = 16;

/// Queues each lane's vertex v (kNoVertex: none) as queue_vertex does, with one atomic on the
/// queue's length a warp (warp_reserve). Every lane of the warp calls this.
__device__ __forceinline__ void queue_vertices_warp(const RelaxArgs& a, const RelaxRound& r,
                                                    uint32_t v) {
  if (r.ring_seq != nullptr) {  // a ring's positions are waited for one by one
    if (v != kNoVertex) queue_vertex(a, r, v);
    return;
  }
  uint32_t first = 0;
  uint32_t degree = 0;
  if (v != kNoVertex && atomicExch(a.stamps + v, r.round) != r.round) {
    first = static_cast<uint32_t>(a.offsets[v]);
    degree = static_cast<uint32_t>(a.offsets[v + 1]) - first;
  }
  const uint32_t chunks = (degree + kRelaxChunk - 1) / kRelaxChunk;
  write_items(r.next, warp_reserve(r.next_length, chunks), first, degree);
}

/// Defers vertex v (whose priority p is past the bound) to the far pile, once a pile: the
/// first of its items to wait puts all of them there (so a pile holds at most a queue's items,
/// and an order the values do not keep costs time, not edges).
__device__ __forceinline__ void defer_vertex(const RelaxArgs& a, const RelaxRound& r, uint32_t v,
                                             double p) {
  if (atomicExch(a.far_stamps + v, r.pile) == r.pile) return;
  append_vertex(a, a.far[r.far], a.words + kFarLength + r.far, v);
  atomicMin(a.far_min + r.far, ordered_key(p));
}

/// Whether vertex v is past the bound; if so, deferred by this thread when `defer` (a vertex
/// just changed, not queued: the next round would only defer it, a round more for each bucket;
/// a work item's source, by one lane of the warp). `known`, when found, is v's word of the
/// order's region as this thread's commit wrote it (no load: on a grid's chain of hops, one
/// round trip of about ten a hop).
__device__ __forceinline__ bool past_bound(const StoreView& view, const RelaxArgs& a,
                                           const RelaxRound& r, uint32_t v, bool defer,
                                           const WrittenWord* known = nullptr) {
  if (a.order_region == kNoOrder) return false;
  const double p = known != nullptr && known->found ? priority_of(a, known->bits)
                                                    : priority(view, a, v);
  if (!(p > r.bound)) return false;
  if (defer) defer_vertex(a, r, v, p);
  return true;
}

/// What a relaxation's transaction t ended with, as the round acts on it: a commit whose
/// 'changed' output (`first`, the committed attempt's first output, when it is that one) is
/// nonzero changed dst; an abandoned one queues its source (its edge runs again); one that
/// ended TOO_LARGE is noted. Returns whether dst changed.
__device__ __forceinline__ bool settle(const Table& tab, const RelaxArgs& a, const RelaxRound& r,
                                       RelaxStats& stats, uint32_t t,
                                       uint8_t outcome, long long first) {
  stats.add(outcome);
  if (outcome == kCommitted) {
    const long long changed =
        a.changed_output == 0
            ? first
            : tab.outputs[static_cast<size_t>(a.changed_output) * tab.tx_count + t];
    if (changed != 0) {
      ++stats.c[kRelaxChanges];
      return true;
    }
  } else if (outcome == kAbandoned || outcome == kAbandonedSemantic) {
    queue_vertex(a, r, static_cast<uint32_t>(a.src[t]));
  } else if (outcome == kTooLarge) {
    atomicMin(a.words + kTooLarge, t);
  }
  return false;
}


// ---- a round's transactions, and the hops a warp follows after them ----------------------

/// Whether a warp may follow vertex v within the round: its edges fit one work item and no
/// commit of this round queued it already. If so, its edges are kept in this thread's
/// gstm_jit_held for the warp's next pass: loaded again there, they were a round trip to the L2
/// on each hop of a chain (the transactions' fences since drop the L1's lines).
__device__ __forceinline__ bool may_follow(const RelaxArgs& a, const RelaxRound& r, uint32_t v) {
  const int32_t begin = __ldg(a.offsets + v);
  const int32_t end = __ldg(a.offsets + v + 1);
  const uint32_t stamp = mem::load_relaxed(a.stamps + v);
  const bool follow = end - begin <= static_cast<int32_t>(kRelaxChunk) && stamp != r.round;
  if (follow) {
    gstm_jit_held[threadIdx.x] =
        make_uint2(static_cast<uint32_t>(begin), static_cast<uint32_t>(end - begin));
  }
  return follow;
}

/// Runs the transactions of the warp's survivors (lane's edge t, when `has`: its look would
/// write) and acts on what each changed: a target past the bound is deferred; otherwise a lane
/// keeps one (`held`, not stamped: a commit that changes it again in this round still queues
/// it) for the warp's next pass, while passes remain (hop < chain) and may_follow allows, and
/// queues the others. Survivors of one target would lock it at once and all but one be refused
/// (on grids and road networks, whose neighbouring vertices a warp takes together, most aborts
/// were such refusals): the lowest lane's runs, the others look again after it, and run only if
/// their look still writes. Every lane of the warp calls this; all leave it with `has` false.
template <int CAPACITY>
__device__ __forceinline__ void flush_survivors(const StoreView& view, const Table& tab,
                                                const SemanticOut& out, const RelaxArgs& a,
                                                const RelaxRound& r, uint32_t t,
                                                const RelaxEnds& edge, bool& has,
                                                uint32_t hop, uint32_t chain, uint32_t& held,
                                                RelaxCounters& counters,
                                                RelaxStats& stats) {
  const unsigned warp = 0xffffffffu;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  while (__any_sync(warp, has)) {
    const uint32_t target = has ? edge.dst : kNoVertex;
    const uint32_t same = __match_any_sync(warp, target);
    const bool go = has && static_cast<uint32_t>(__ffs(same) - 1) == lane;
    long long first_output = 0;
    // The target's new place, if it moved (none found without an order: no region kNoOrder).
    WrittenWord order_word{a.order_region, target};
    if (go) gstm_jit_edges[threadIdx.x] = edge;  // the body's columns
    const uint8_t outcome = run_one_in_place<CAPACITY, false>(
        view, tab, out, counters, warp, self, t, a.type, go, &first_output, &order_word);
    bool queue = false;
    if (go) {
      has = false;
      if (settle(tab, a, r, stats, t, outcome, first_output)) {
        if (past_bound(view, a, r, target, true, &order_word)) {
          // deferred
        } else if (hop < chain && held == kNoVertex && may_follow(a, r, target)) {
          held = target;
        } else {
          queue = true;
        }
      }
    }
    // Queued by the warp when many lanes changed their targets together (a large round's
    // flush); a few (a grid's hop) queue their own, without waiting for the warp.
    if (__popc(__ballot_sync(warp, queue)) >= kGatherLanes) {
      queue_vertices_warp(a, r, queue ? target : kNoVertex);
    } else if (queue) {
      queue_vertex(a, r, target);
    }
    if (has && !look_writes(tab, look_loads(tab, t, edge), t, a.type)) {
      has = false;
      ++stats.c[kRelaxSkipped];
    }
  }
}

/// An edge of a pass's list (relax_pass) and its source vertex.
struct ListEdge {
  uint32_t t;
  uint32_t source;
};

/// The edge at place k of a pass's list (relax_pass): in the item of the last lane whose first
/// place (`start`) is at most k (a lane of no edges never is), whose vertex is that lane's
/// `source`. Every lane of the warp calls this.
__device__ __forceinline__ ListEdge edge_at(uint32_t start, uint32_t begin, uint32_t source,
                                            uint32_t k) {
  uint32_t lo = 0;
  for (uint32_t step = 16; step != 0; step >>= 1) {
    if (__shfl_sync(0xffffffffu, start, lo + step) <= k) lo += step;
  }
  return {__shfl_sync(0xffffffffu, begin, lo) + (k - __shfl_sync(0xffffffffu, start, lo)),
          __shfl_sync(0xffffffffu, source, lo)};
}

/// One pass of a round: each lane's edges [begin, begin + count) (a work item's, a vertex's, or
/// none) packed into one list, a lane an edge, as the built-in relaxations push (an item of a
/// few edges, most of R-MAT's and all of a road network's, no longer leaves most lanes idle).
/// Each edge is looked at; the few whose look would write wait in the warp's lanes, one each,
/// and run their transactions together when the lanes are full or the list ends
/// (flush_survivors): run as soon as its edge passed, a transaction held the warp's other lanes
/// for its whole latency, in most passes of 32 edges for one or two transactions.
template <int CAPACITY>
__device__ __forceinline__ void relax_pass(const StoreView& view, const Table& tab,
                                           const SemanticOut& out, const RelaxArgs& a,
                                           const RelaxRound& r, uint32_t begin, uint32_t count,
                                           uint32_t source, uint32_t hop, uint32_t chain,
                                           uint32_t& held,
                                           RelaxCounters& counters,
                                           RelaxStats& stats) {
  const unsigned warp = 0xffffffffu;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t upto = warp_inclusive_sum(count);
  const uint32_t total = __shfl_sync(warp, upto, 31);
  const uint32_t start = upto - count;  // this lane's first edge in the list
  uint32_t survivor = 0;  // this lane's waiting edge, when `has`, and its columns
  RelaxEnds survivor_edge{};
  bool has = false;
  const uint32_t last_edge = tab.tx_count - 1;
  const unsigned long long* weights = weight_column(tab);
  for (uint32_t base = 0;; base += 64u) {
    // Two slices of 32 edges where the list has them (warp-uniform), both looks' loads issued
    // before either look decides: a lane then waits for two edges' loads at once, as the
    // built-in relaxations' lanes do; a short list (a hop's few edges) looks at one, as before.
    // A lane past the list's end loads an edge that exists and ignores its look.
    const bool end = base >= total;
    const bool two = base + 32u < total;
    uint32_t t0 = 0;
    uint32_t t1 = 0;
    RelaxEdge c0{};
    RelaxEdge c1{};
    bool writes0 = false;
    bool writes1 = false;
    if (!end) {
      const ListEdge e0 = edge_at(start, begin, source, base + lane);
      t0 = e0.t;
      LookPre pre0;
      LookPre pre1;
      if (two) {
        const ListEdge e1 = edge_at(start, begin, source, base + 32u + lane);
        t1 = e1.t;
        c0 = edge_columns(a, weights, min(t0, last_edge), e0.source);
        c1 = edge_columns(a, weights, min(t1, last_edge), e1.source);
        pre0 = look_loads(tab, min(t0, last_edge), c0);
        pre1 = look_loads(tab, min(t1, last_edge), c1);
      } else {
        c0 = edge_columns(a, weights, min(t0, last_edge), e0.source);
        pre0 = look_loads(tab, min(t0, last_edge), c0);
      }
      const bool in0 = base + lane < total;
      const bool in1 = base + 32u + lane < total;  // never without `two`
      writes0 = in0 && look_writes(tab, pre0, t0, a.type);
      writes1 = in1 && look_writes(tab, pre1, t1, a.type);
      stats.c[kRelaxSkipped] += (in0 && !writes0 ? 1u : 0u) + (in1 && !writes1 ? 1u : 0u);
    }
    // Each slice's edges that would write, in turn; one call site of flush_survivors, so that
    // the transaction's code is inlined once.
#pragma unroll 1
    for (uint32_t j = 0; j < 2u; ++j) {
      const uint32_t fresh = __ballot_sync(warp, j == 0 ? writes0 : writes1);
      uint32_t open = __ballot_sync(warp, !has);
      if (end || __popc(fresh) > __popc(open)) {
        flush_survivors<CAPACITY>(view, tab, out, a, r, survivor, survivor_edge, has, hop, chain,
                                  held, counters, stats);
        open = warp;
      }
      if (end) break;
      if (fresh == 0) continue;
      // The r-th open lane takes the r-th edge that passed, with its columns.
      const uint32_t rank = __popc(open & ((1u << lane) - 1u));
      const bool take = !has && rank < static_cast<uint32_t>(__popc(fresh));
      const uint32_t from = take ? nth_set_lane(fresh, rank) : lane;
      const uint32_t edge = __shfl_sync(warp, j == 0 ? t0 : t1, from);
      // Field by field: a choice between the structs themselves put them in local memory.
      const RelaxEnds columns =
          shfl_ends({j == 0 ? c0.src : c1.src, j == 0 ? c0.dst : c1.dst}, from);
      if (take) {
        survivor = edge;
        survivor_edge = columns;
        has = true;
      }
    }
    if (end) break;
  }
}

/// The first of the next `per` work items of the round, taken by the calling warp (every lane
/// calls this). Warps take items as they free up, not in a fixed stride: an R-MAT round's items
/// differ by up to 256 times in their edges, and the round ends with its last warp (R-MAT 2^22
/// 11.1 ms against 12.2 with a fixed stride, H200).
__device__ __forceinline__ uint32_t take_items(const RelaxRound& r, uint32_t per) {
  uint32_t first = 0;
  if ((threadIdx.x & 31u) == 0) first = atomicAdd(r.taken, per);
  return __shfl_sync(0xffffffffu, first, 0);
}

/// Work item `it` of a lane as relax_hops takes it: its source, and its edges [begin, begin +
/// count), none when the source is past the bound (then it waits in the far pile).
__device__ __forceinline__ uint32_t open_item(const StoreView& view, const RelaxArgs& a,
                                              const RelaxRound& r, uint2 it, uint32_t& begin,
                                              uint32_t& count) {
  const uint32_t source = static_cast<uint32_t>(a.src[it.x]);
  if (!past_bound(view, a, r, source, true)) {
    begin = it.x;
    count = it.y;
  }
  return source;
}

/// Relaxes each lane's edges [begin, begin + count) of vertex `source` (none: count 0) as one
/// list; then follows the vertices its lanes changed in up to a.chain more passes, a lane one
/// each, as the built-in relaxations do (on a graph of high diameter a round then moves the
/// frontier several hops instead of one). Every lane of the warp calls this.
template <int CAPACITY>
__device__ __forceinline__ void relax_hops(const StoreView& view, const Table& tab,
                                           const SemanticOut& out, const RelaxArgs& a,
                                           const RelaxRound& r, uint32_t begin, uint32_t count,
                                           uint32_t source, RelaxCounters& counters,
                                           RelaxStats& stats) {
  uint32_t held = kNoVertex;
  for (uint32_t hop = 0;; ++hop) {
    relax_pass<CAPACITY>(view, tab, out, a, r, begin, count, source, hop, a.chain, held,
                         counters, stats);
    if (hop == a.chain || !__any_sync(0xffffffffu, held != kNoVertex)) break;
    begin = 0;
    count = 0;
    if (held != kNoVertex) {
      const uint2 edges = gstm_jit_held[threadIdx.x];  // may_follow's
      begin = edges.x;
      count = edges.y;
      source = held;
    }
    held = kNoVertex;
  }
}

/// A round's transactions: a warp takes up to 32 work items, a lane each (a short queue gives
/// each warp fewer, so that every warp has one), and relaxes them with their hops (relax_hops).
template <int CAPACITY>
__device__ __forceinline__ void relax_round(const StoreView& view, const Table& tab,
                                            const SemanticOut& out, const RelaxArgs& a,
                                            const RelaxRound& r,
                                            RelaxCounters& counters,
                                            RelaxStats& stats) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warps = gridDim.x * blockDim.x / 32u;
  const uint32_t per = max(1u, min(32u, (r.item_count + warps - 1) / warps));
  for (uint32_t group = take_items(r, per); group < r.item_count; group = take_items(r, per)) {
    uint32_t begin = 0;  // this lane's edges: [begin, begin + count), from vertex `source`
    uint32_t count = 0;
    uint32_t source = 0;
    const uint32_t i = group + lane;
    if (lane < per && i < r.item_count) source = open_item(view, a, r, r.items[i], begin, count);
    relax_hops<CAPACITY>(view, tab, out, a, r, begin, count, source, counters, stats);
  }
}

/// A whole bucket without rounds (gstm_jit_relax_drain, drain.cuh): warps take the ring's items
/// (r.next) as they come, relax them with their hops as a round does and queue what changes
/// back into the ring, until every item queued was taken and no warp is busy. Stops once more
/// than `budget` items were taken (the run's round limit, in rounds of a full ring). Only for
/// graphs whose vertices' edges fit one item.
template <int CAPACITY>
__device__ __forceinline__ void relax_drain(const StoreView& view, const Table& tab,
                                            const SemanticOut& out, const RelaxArgs& a,
                                            const RelaxRound& r, uint32_t budget,
                                            RelaxCounters& counters, RelaxStats& stats) {
  const drain::Ring<uint2> ring = ring_of(a, r, budget);
  drain::Taker taker;
  uint2 it{};
  bool ready = false;
  while (drain::take(ring, taker, it, ready)) {
    uint32_t begin = 0;
    uint32_t count = 0;
    uint32_t source = 0;
    if (ready) {
      // No longer queued: a commit that changes its source from now on queues it again.
      // Cleared before the look reads the source, so that either the look reads the new value
      // or the commit that wrote it finds the stamp cleared. 0 is no round's stamp.
      atomicExch(a.stamps + a.src[it.x], 0u);
      __threadfence();
      source = open_item(view, a, r, it, begin, count);
    }
    relax_hops<CAPACITY>(view, tab, out, a, r, begin, count, source, counters, stats);
    drain::done(ring);
  }
}

/// The run's rounds until a round queues nothing and no far pile is left, the round limit is
/// reached, or a transaction ended TOO_LARGE. Every thread keeps the loop's state; what decides
/// it (queue and pile lengths, a pile's lowest value, TOO_LARGE) is read by all after a grid
/// sync and written by none before the next, so all take the same path: one grid sync a round,
/// and one more when a far pile is taken.
template <int CAPACITY>
__device__ __forceinline__ void relax_loop(const StoreView& view, const Table& tab,
                                           const SemanticOut& out, const RelaxArgs& a) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
  static_assert(kRelaxThreads <= 1024, "a block's counter slots");
  __shared__ uint32_t counter_slots[RelaxCounters::kSlots(kRelaxThreads)];
  __shared__ uint32_t stat_slots[RelaxStats::kSlots(kRelaxThreads)];
  RelaxCounters counters(counter_slots);
  RelaxStats stats(stat_slots);
  const bool ordered = a.order_region != kNoOrder;
  uint32_t in = 0;           // the queue the next round reads
  uint32_t far = 0;          // the pile rounds defer to
  uint32_t pile = 1;
  uint32_t rounds = 0;
  uint32_t n = a.item_count;
  // Unordered, nothing waits; ordered, the first round defers every item and so finds the
  // lowest value to start the bound from.
  double bound = ordered ? -INFINITY : INFINITY;
  while (true) {
    RelaxRound r;
    r.ring_seq = nullptr;
    r.ring_cap = 0;
    if (n == 0) {
      const uint32_t far_n = mem::load_relaxed(a.words + kFarLength + far);
      if (far_n == 0) break;
      const double lowest = from_ordered_key(mem::load_relaxed(a.far_min + far));
      bound = max(bound, lowest) + a.width;
      r.items = a.far[far];
      r.item_count = far_n;
      r.next = a.queues[in];  // the empty queue
      far = 1 - far;
      ++pile;
      // The pile rounds defer to now was taken before and its items read in that round:
      // emptied here, before any thread defers to it.
      if (leader) {
        a.words[kFarLength + far] = 0;
        a.far_min[far] = ~0ull;
      }
      grid.sync();
    } else {
      r.items = a.queues[in];
      r.item_count = n;
      r.next = a.queues[1 - in];
      in = 1 - in;
    }
    if (rounds == a.max_rounds || mem::load_relaxed(a.words + kTooLarge) != kNoEdge) {
      n = r.item_count;  // still queued
      break;
    }
    r.next_length = a.words + kQueueLength + (rounds + 1) % 3;
    r.taken = a.words + kTaken + rounds % 3;
    r.far = far;
    r.round = rounds + 1;
    r.pile = pile;
    r.bound = bound;
    if (leader) {
      // Read in the round before at the latest: the next round's slots, cleared.
      a.words[kQueueLength + (rounds + 2) % 3] = 0;
      a.words[kTaken + (rounds + 1) % 3] = 0;
    }
    relax_round<CAPACITY>(view, tab, out, a, r, counters, stats);
    grid.sync();
    ++rounds;
    n = mem::load_relaxed(r.next_length);
  }
  counters.flush_to(out.counters);
  stats.flush_to(a.stats);
  if (leader) {
    a.words[kRounds] = rounds;
    a.words[kLeft] = n + mem::load_relaxed(a.words + kFarLength + far);
  }
}

/// The stamp of a vertex waiting in a drained bucket's ring (its taker sets 0, no round's).
constexpr uint32_t kRingStamp = 1;

/// relax_loop with each bucket drained without rounds (relax_drain), for graphs whose vertices'
/// edges fit one work item: the ring is queues[0] (the run's first items already there, words'
/// queue length its tail), its slots' sequences queues[1]. When a bucket is drained the next far
/// pile's items within the new bound go to the ring, the others to the pile after it. A drained
/// bucket counts as a round; the round limit bounds the work (relax_drain's budget).
template <int CAPACITY>
__device__ __forceinline__ void drain_loop(const StoreView& view, const Table& tab,
                                           const SemanticOut& out, const RelaxArgs& a) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
  const uint32_t threads = gridDim.x * blockDim.x;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ uint32_t counter_slots[RelaxCounters::kSlots(kRelaxThreads)];
  __shared__ uint32_t stat_slots[RelaxStats::kSlots(kRelaxThreads)];
  RelaxCounters counters(counter_slots);
  RelaxStats stats(stat_slots);
  const uint32_t cap = a.drain_capacity;
  RelaxRound r;
  r.items = nullptr;
  r.item_count = 0;
  r.next = a.queues[0];
  r.next_length = a.words + kQueueLength;
  r.taken = nullptr;
  r.far = 0;                // the pile drains defer to
  r.round = kRingStamp;
  r.pile = 1;
  // Unordered, nothing waits; ordered, the first drain defers every item and so finds the
  // lowest value to start the bound from.
  r.bound = a.order_region != kNoOrder ? -INFINITY : INFINITY;
  r.ring_seq = reinterpret_cast<uint32_t*>(a.queues[1]);
  r.ring_cap = cap;
  uint32_t rounds = 0;
  uint32_t n = a.item_count;
  uint32_t ring_used = cap;  // the slots whose sequences the next drain sets again
  // The run's first items (distinct vertices), stamped as waiting in the ring.
  for (uint32_t i = self; i < n; i += threads) {
    atomicExch(a.stamps + a.src[r.next[i].x], kRingStamp);
  }
  while (true) {
    if (n == 0) {
      const uint32_t far_n = mem::load_relaxed(a.words + kFarLength + r.far);
      if (far_n == 0) break;
      r.bound = max(r.bound, from_ordered_key(mem::load_relaxed(a.far_min + r.far))) + a.width;
      const uint2* pile = a.far[r.far];
      r.far = 1 - r.far;
      ++r.pile;
      // The pile drains now defer to was taken before: emptied before any thread defers to it.
      // (Each word the leader writes was last read before the sync before last.)
      if (leader) {
        a.words[kFarLength + r.far] = 0;
        a.far_min[r.far] = ~0ull;
        a.words[kPileTaken] = 0;
      }
      grid.sync();
      for (uint32_t i = self; i < far_n; i += threads) {
        const uint2 it = pile[i];
        const uint32_t v = static_cast<uint32_t>(a.src[it.x]);
        if (!past_bound(view, a, r, v, true) &&
            atomicExch(a.stamps + v, kRingStamp) != kRingStamp) {
          r.next[atomicAdd(a.words + kPileTaken, 1u)] = it;
        }
      }
      grid.sync();
      n = mem::load_relaxed(a.words + kPileTaken);
      continue;
    }
    if (rounds == a.max_rounds || mem::load_relaxed(a.words + kTooLarge) != kNoEdge) break;
    // The items at [0, n), the rest of the ring's slots ready for their first lap.
    const uint32_t upto = min(cap, max(ring_used, n));
    for (uint32_t i = self; i < upto; i += threads) r.ring_seq[i] = i < n ? i + 1 : i;
    if (leader) {
      *r.next_length = n;  // the ring's tail (ring_used read it before the sync before last)
      a.words[kDrainHead] = 0;
      a.words[kDrainTaken] = 0;
      a.words[kDrainBusy] = 0;
      a.words[kDrainState] = drain::kDraining;
    }
    grid.sync();
    // The round limit as work: what the rounds left could take, a full ring each.
    const unsigned long long budget = static_cast<unsigned long long>(a.max_rounds - rounds) * cap;
    relax_drain<CAPACITY>(view, tab, out, a, r, static_cast<uint32_t>(min(budget, 0xffffffffull)),
                          counters, stats);
    grid.sync();
    ++rounds;
    ring_used = mem::load_relaxed(r.next_length);
    // Stopped at the limit: what was queued and not taken is left.
    n = mem::load_relaxed(a.words + kDrainState) == drain::kStopped
            ? ring_used - mem::load_relaxed(a.words + kDrainTaken)
            : 0;
    if (n != 0) break;
  }
  counters.flush_to(out.counters);
  stats.flush_to(a.stats);
  if (leader) {
    a.words[kRounds] = rounds;
    a.words[kLeft] = n + mem::load_relaxed(a.words + kFarLength + r.far);
  }
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
  extern "C" __device__ __noinline__ Words<TX> gstm_jit_new_##SUFFIX(uint32_t owner) {            \
    const TX tx(gstm_jit_view, owner);                                                             \
    return gstm::program::jit::words_of(tx);                                                       \
  }                                                                                                \
  extern "C" __device__ Body<TX> gstm_jit_body_##SUFFIX(                                           \
      uint32_t owner, const uint32_t* image, const uint32_t* cols, long long* outputs,             \
      int32_t* abort_codes, uint32_t tx_count, uint32_t t, uint32_t type);                         \
  template <>                                                                                      \
  struct gstm::program::jit::BodyOf<TX> {                                                          \
    __device__ __forceinline__ static Body<TX> call(uint32_t owner,                                \
                                                    const gstm::program::Table& tab, uint32_t t,   \
                                                    uint32_t type) {                               \
      return gstm_jit_body_##SUFFIX(owner, tab.image, tab.cols, tab.outputs, tab.abort_codes,      \
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

/// The operations of fixed slots (PrStmTx::read_new_lock, buffered, write_at, commit_fixed), for
/// the ordinary attempt types: the generated body calls them where io.gstm.core.cuda.ptx.StaticSets
/// laid the program's sets out, and reads a word whose lock the set holds through read_shared
/// (rds).
#define GSTM_JIT_FIXED_OPS(SUFFIX, TX)                                                             \
  extern "C" __device__ __noinline__ Value<TX> gstm_jit_rdn_##SUFFIX(                              \
      Words<TX> in, uint32_t region, uint32_t index, uint32_t slot, uint32_t size) {               \
    Local<TX> l(in);                                                                               \
    const unsigned long long v =                                                                   \
        l.tx().read_new_lock(region, index, slot, static_cast<int>(size));                         \
    return {l.words(), v, l.tx().active()};                                                        \
  }                                                                                                \
  extern "C" __device__ __noinline__ Value<TX> gstm_jit_rdb_##SUFFIX(Words<TX> in, uint32_t slot) { \
    Local<TX> l(in);                                                                               \
    const unsigned long long v = l.tx().buffered(slot);                                            \
    return {l.words(), v, 1};                                                                      \
  }                                                                                                \
  extern "C" __device__ __noinline__ Step<TX> gstm_jit_wrk_##SUFFIX(                               \
      Words<TX> in, uint32_t region, uint32_t index, unsigned long long bits, uint32_t lock_slot,  \
      uint32_t lock_size, uint32_t write_slot, uint32_t write_size) {                              \
    Local<TX> l(in);                                                                               \
    l.tx().write_at(region, index, bits, lock_slot, static_cast<int>(lock_size), write_slot,      \
                    static_cast<int>(write_size));                                                 \
    return {l.words(), l.tx().active()};                                                           \
  }                                                                                                \
  extern "C" __device__ __noinline__ Step<TX> gstm_jit_cmt_##SUFFIX(                               \
      Words<TX> in, uint32_t locks, uint32_t written, uint32_t writes, uint32_t inputs) {          \
    Local<TX> l(in);                                                                               \
    l.tx().commit_fixed(static_cast<int>(locks), written, static_cast<int>(writes), inputs);       \
    return {l.words(), 0};                                                                         \
  }

/// The relaxation's look (suffix p, one for every capacity).
GSTM_JIT_TX(p, gstm::program::jit::ProbeTx)

/// The kernels of one set capacity: run_semantic (programs that may retry), run_in_place and a
/// program relaxation's whole run (relax_loop, one cooperative launch), whose attempts (r:
/// ordinary, v: urgent) leave the read-only locks out of the pre-lock step. The `one` kernels
/// run both kinds of attempt as one type (d: PrStmTx's DYNAMIC), so that ptxas compiles the
/// program's body once. A relaxation's run at two blocks an SM up to sets of 8: at three, the
/// 80 registers left spilled the transaction (widest path at sets of 2, paths at 4).
#define GSTM_JIT_CAPACITY(CAP, SEMANTIC_BLOCKS, IN_PLACE_BLOCKS, RELAX_BLOCKS)                    \
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
  GSTM_JIT_FIXED_OPS(o##CAP, TxO##CAP)                                                             \
  GSTM_JIT_FIXED_OPS(r##CAP, TxR##CAP)                                                             \
  GSTM_JIT_FIXED_OPS(d##CAP, TxD##CAP)                                                             \
  extern "C" __global__ void __launch_bounds__(256, SEMANTIC_BLOCKS) gstm_jit_prstm_one_s##CAP(   \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out) {                                             \
    gstm::program::jit::share_view(view, tab);                                                     \
    gstm::run_semantic<gstm::program::jit::Ops, CAP, gstm::program::Table,                         \
                       gstm::PrStmDynamicPolicy>(view, tab, out);                                  \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, IN_PLACE_BLOCKS)                               \
      gstm_jit_prstm_in_place_one_s##CAP(const __grid_constant__ gstm::StoreView view,             \
                                         const __grid_constant__ gstm::program::Table tab,         \
                                         const __grid_constant__ gstm::SemanticOut out) {          \
    gstm::program::jit::share_view(view, tab);                                                     \
    gstm::program::jit::run_in_place<CAP, true>(view, tab, out);                                   \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, SEMANTIC_BLOCKS) gstm_jit_prstm_s##CAP(       \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out) {                                             \
    gstm::program::jit::share_view(view, tab);                                                     \
    gstm::run_semantic<gstm::program::jit::Ops, CAP, gstm::program::Table>(view, tab, out);        \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, IN_PLACE_BLOCKS) gstm_jit_prstm_in_place_s##CAP( \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out) {                                             \
    gstm::program::jit::share_view(view, tab);                                                     \
    gstm::program::jit::run_in_place<CAP>(view, tab, out);                                         \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, RELAX_BLOCKS) gstm_jit_relax_loop_s##CAP(      \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out,                                               \
      const __grid_constant__ gstm::program::jit::RelaxArgs args) {                                \
    gstm::program::jit::share_view(view, tab);                                                     \
    gstm::program::jit::relax_loop<CAP>(view, tab, out, args);                                     \
  }                                                                                                \
  extern "C" __global__ void __launch_bounds__(256, RELAX_BLOCKS) gstm_jit_relax_drain_s##CAP(     \
      const __grid_constant__ gstm::StoreView view,                                                \
      const __grid_constant__ gstm::program::Table tab,                                            \
      const __grid_constant__ gstm::SemanticOut out,                                               \
      const __grid_constant__ gstm::program::jit::RelaxArgs args) {                                \
    gstm::program::jit::share_view(view, tab);                                                     \
    gstm::program::jit::drain_loop<CAP>(view, tab, out, args);                                     \
  }

/// @brief Compiled program batches under PR-STM with sets of at most 2, 4, 8 or 16 entries
///        (larger sets live in local memory: their programs stay with the interpreter).
/// @param view the store; @param tab the batch (its image holds the column table); @param out
///        outcomes, counters
GSTM_JIT_CAPACITY(2, 2, 3, 2)
GSTM_JIT_CAPACITY(4, 2, 3, 2)
GSTM_JIT_CAPACITY(8, 1, 2, 2)
GSTM_JIT_CAPACITY(16, 1, 1, 1)

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
