/// @file graph_relax.cu
/// @brief Device-resident frontier rounds of graph relaxation (shortest paths, components) with
///        PR-STM transactions. Host twin: io.gstm.core.cuda.CudaGraphRelax.
///
/// One round is one launch over a queue of work items, each a chunk of at most kChunkEdges
/// out-edges of one vertex (a hub's edges spread over many warps). A warp takes up to 32 items
/// and relaxes their edges as one list, a lane an edge (consecutive edges of an item on
/// consecutive lanes: coalesced loads of targets and weights). A lane first filters its edge
/// with plain loads: values only ever decrease, so an edge whose candidate is not below the
/// target's current value can never improve it, and most edges stop there; those that pass wait
/// in the warp's lanes and run their transactions together, one per target: the lowest
/// candidate's (push_items, flush_survivor). An edge that may
/// improve runs one PR-STM transaction: it reads value(v) and writes the candidate, value(u)
/// as the filter read it plus the weight, if that is still lower. value(u) is an input, not a
/// read of the transaction: it is a committed value, so the candidate is the length of a real
/// path (or a real label), and if u drops later, whoever lowered it queues it and its edges run
/// again; the fixpoint is the same. An edge whose u has dropped by the time its transaction
/// runs is dropped. A transaction of one word takes its lock with one CAS and no fence.sc (a
/// read of u inside it cost a load, a fence.sc and a validating load: the grids' kernels 12%
/// faster without, benchmark-log.md). A lane that aborts drops its edge if u has
/// dropped since it read it (whoever lowered u queued it again) or if the edge can no longer
/// improve v, else retries, and after the retry limit queues u for the next round. A vertex
/// lowered in a round is stamped once and its chunks are queued for the next (in the host's
/// rounds by the warp, with one atomic on the queue's length for all its lanes); in the device's
/// loop a warp may instead take it as its own next item in the same round, up to `chain` hops
/// (relax_round), so that a grid's frontier moves more than one hop a round.
///
/// Near-far buckets (Davidson et al.'s near-far delta-stepping): the rounds relax only values
/// below the bucket's end, `bound`; a vertex lowered to the bound or above goes on the far list.
/// The rounds and the split note the lowest value they list far; when a bucket's rounds run dry
/// the host ends the next bucket a width above it, and a split moves the far vertices below
/// that into work items (dropping those a commit already lowered into an earlier bucket).
/// Label-correcting rounds over the whole frontier relaxed each edge of a weighted grid about 50
/// times; buckets keep the work near Dijkstra's. Components (and a bound of +infinity) take one
/// bucket. The first frontier is seeded by a split too, so the host never builds work items.
///
/// Pull (components on a symmetric graph, a round over every vertex): instead of each vertex
/// pushing its label along every edge (a transaction per edge that may improve, and a hub
/// written by many lanes at once), a warp finds the lowest label among one chunk of v's
/// neighbours with plain loads and runs one transaction on that edge. Over every vertex this
/// covers every edge, as a push round from every vertex would; a vertex it lowers is queued to
/// push, so the later rounds run as usual.
/// CSR offsets, targets and weights are read-only regions of the store: plain loads, no locks.
#include <cooperative_groups.h>
#include <cstdint>

#include "gstm/batch.cuh"
#include "gstm/drain.cuh"
#include "gstm/prstm.cuh"
#include "gstm/store_view.cuh"
#include "gstm/warp.cuh"

namespace gstm::graph_relax {

enum Stat : int { kTransactions = 0, kRelaxations = 1, kImproved = 2, kStatCount = 3 };

/// Reads and writes of one relaxation: the target's value (the source's is an input).
constexpr int kCapacity = 1;

/// Out-edges of one vertex per work item: 8 rounds of a warp's lanes.
constexpr int kChunkEdges = 256;

/// The launch arguments of one round; the host packs this byte for byte.
struct RelaxArgs {
  const int2* in;            ///< [in_count] this round's work items (vertex, first edge)
  int2* out;                 ///< next round's work items (room for every vertex's chunks)
  uint32_t* out_count;       ///< next round's length (zeroed by the host)
  uint32_t* stamps;          ///< [vertices] the last stamp that queued each vertex
  unsigned long long* counters;  ///< [kCounterCount]
  unsigned long long* stats;     ///< [kStatCount]
  uint32_t* changed;         ///< [ceil(vertices / 32)] bit v set when a commit lowers v
  uint32_t* far;             ///< vertices lowered to the bound or above, for a later bucket
  uint32_t* far_count;       ///< their number
  uint32_t* far_stamps;      ///< [vertices] the last far epoch that listed each vertex
  unsigned long long* far_min;  ///< the lowest value deferred, as bits (the next bucket's start)
  double bound;              ///< this bucket's end: a lower value is relaxed in this bucket
  uint32_t in_count;
  uint32_t stamp;            ///< this round's stamp, unique across rounds and calls
  uint32_t values_region;
  uint32_t targets_region;
  uint32_t weights_region;
  uint32_t offsets_region;
  uint32_t components;       ///< 1: label propagation, 0: shortest paths
  uint32_t weighted;         ///< shortest paths with stored weights (else weight 1)
  uint32_t max_retries;      ///< concurrency aborts before the vertex is queued again
  uint32_t far_epoch;        ///< the far list's epoch (it changes at every split)
  uint32_t pull;             ///< 1: each item's vertex pulls from its chunk (see the file doc)
  uint32_t chain;            ///< hops a warp follows within the round (see relax_round)
  uint32_t* ring_seq;        ///< draining a bucket (relax_drain): out is a ring of ring_cap
                             ///< items, each slot's sequence here; null in rounds
  uint32_t ring_cap;
  uint32_t pad;
};
static_assert(sizeof(RelaxArgs) == 160, "host packer assumes 160 bytes");

/// The arguments of a split: the far list against a new bound, before a bucket's rounds.
struct SplitArgs {
  const uint32_t* far_in;    ///< [far_in_count] the far list so far (a vertex the first
                             ///< frontier lists twice is taken once: stamps, far stamps);
                             ///< null: entry i is vertex i (a first frontier of every vertex)
  uint32_t* far_out;         ///< the vertices still at or above the bound
  uint32_t* far_out_count;   ///< their number (zeroed by the host)
  uint32_t* far_stamps;      ///< [vertices] as RelaxArgs
  int2* out;                 ///< the bucket's first work items
  uint32_t* out_count;       ///< their number (zeroed by the host)
  uint32_t* stamps;          ///< [vertices] as RelaxArgs
  unsigned long long* far_min;  ///< the lowest value kept far, as bits (+infinity's by the host)
  const int32_t* offsets;    ///< [vertices + 1] CSR offsets
  const unsigned long long* values;  ///< [vertices] value bits
  double bound;              ///< the new bucket's end
  double prev_bound;         ///< the last bucket's end (-infinity before the first bucket)
  uint32_t far_in_count;
  uint32_t far_epoch;        ///< the new epoch of far_out
  uint32_t stamp;            ///< the stamp of the bucket's first items
  uint32_t pad;
  uint32_t* taken;           ///< vertices with edges this split queued (zeroed by the host)
};
static_assert(sizeof(SplitArgs) == 120, "host packer assumes 120 bytes");

__device__ __forceinline__ double as_double(uint64_t bits) {
  return __longlong_as_double(static_cast<long long>(bits));
}
__device__ __forceinline__ uint64_t as_bits(double v) {
  return static_cast<uint64_t>(__double_as_longlong(v));
}

/// Queues every chunk of v once per stamp; true if this call queued it.
__device__ __forceinline__ bool enqueue(int2* out, uint32_t* out_count, uint32_t* stamps,
                                        uint32_t stamp, const int32_t* offsets, uint32_t v) {
  if (atomicExch(stamps + v, stamp) == stamp) return false;
  const int32_t begin = __ldg(offsets + v);
  const int32_t end = __ldg(offsets + v + 1);
  const uint32_t chunks = static_cast<uint32_t>(end - begin + kChunkEdges - 1) / kChunkEdges;
  if (chunks == 0) return true;
  const uint32_t at = atomicAdd(out_count, chunks);
  for (uint32_t j = 0; j < chunks; ++j) {
    out[at + j] = make_int2(static_cast<int>(v), begin + static_cast<int>(j) * kChunkEdges);
  }
  return true;
}

/// The counters of a drained bucket (relax_drain), zeroed before each: the ring's next position
/// handed to a taker, the items taken, the warps busy with items they took, its drain::State.
__device__ uint32_t drain_head;
__device__ uint32_t drain_taken;
__device__ uint32_t drain_busy;
__device__ uint32_t drain_state;

/// The ring of a drained bucket: a.out, its tail *a.out_count (drain.cuh).
__device__ __forceinline__ drain::Ring<int2> ring_of(const RelaxArgs& a) {
  return {a.out,        a.ring_seq,  a.ring_cap,   a.out_count, &drain_head,
          &drain_taken, &drain_busy, &drain_state, 0xffffffffu};
}

/// Queues v's one item (its edges fit one: relax_drain's graphs) in the bucket's ring, once
/// until a warp takes it (the taker clears v's stamp).
__device__ __forceinline__ bool enqueue_ring(const RelaxArgs& a, const int32_t* offsets,
                                             uint32_t v) {
  if (atomicExch(a.stamps + v, a.stamp) == a.stamp) return false;
  const int32_t begin = __ldg(offsets + v);
  if (__ldg(offsets + v + 1) == begin) return true;
  drain::push(ring_of(a), make_int2(static_cast<int>(v), begin));
  return true;
}

__device__ __forceinline__ bool enqueue(const RelaxArgs& a, const int32_t* offsets, uint32_t v) {
  if (a.ring_seq != nullptr) return enqueue_ring(a, offsets, v);
  return enqueue(a.out, a.out_count, a.stamps, a.stamp, offsets, v);
}

/// Lists v for a later bucket once per far epoch.
__device__ __forceinline__ void defer(uint32_t* far, uint32_t* far_count, uint32_t* far_stamps,
                                      uint32_t epoch, uint32_t v) {
  if (atomicExch(far_stamps + v, epoch) != epoch) far[atomicAdd(far_count, 1u)] = v;
}

/// No vertex (a lane with nothing to queue, list or hold).
constexpr uint32_t kNoVertex = 0xffffffffu;

/// Writes each lane's `chunks` work items of vertex v (edges from `begin`) to out, their slots
/// taken with one atomic on *out_count for the whole warp (warp_reserve): a counter bumped by
/// every vertex of a large round or a first frontier serialises the launch.
/// Every lane of the warp calls this (a lane with nothing to queue with no chunks).
__device__ __forceinline__ void queue_chunks_warp(int2* out, uint32_t* out_count, uint32_t v,
                                                  int32_t begin, uint32_t chunks) {
  for (uint32_t j = 0, at = warp_reserve(out_count, chunks); j < chunks; ++j) {
    out[at + j] = make_int2(static_cast<int>(v), begin + static_cast<int>(j) * kChunkEdges);
  }
}

/// Queues each lane's vertex q (kNoVertex: none) as enqueue does, with one atomic on the queue's
/// length a warp (queue_chunks_warp): R-MAT's large rounds queue a million vertices or more.
/// True on the lanes whose q this call queued. Every lane of the warp calls this.
__device__ __forceinline__ bool enqueue_warp(const RelaxArgs& a, const int32_t* offsets,
                                             uint32_t q) {
  if (!__any_sync(0xffffffffu, q != kNoVertex)) return false;
  bool queued = false;
  int32_t begin = 0;
  uint32_t chunks = 0;
  if (q != kNoVertex && atomicExch(a.stamps + q, a.stamp) != a.stamp) {
    queued = true;
    begin = __ldg(offsets + q);
    chunks = static_cast<uint32_t>(__ldg(offsets + q + 1) - begin + kChunkEdges - 1) / kChunkEdges;
  }
  queue_chunks_warp(a.out, a.out_count, q, begin, chunks);
  return queued;
}

/// Lists each lane's vertex v (kNoVertex: none) for a later bucket as defer does, with one
/// atomic on the list's length a warp. Every lane of the warp calls this.
__device__ __forceinline__ void defer_warp(const RelaxArgs& a, uint32_t v) {
  if (!__any_sync(0xffffffffu, v != kNoVertex)) return;
  const uint32_t lane = threadIdx.x & 31u;
  const bool listed = v != kNoVertex && atomicExch(a.far_stamps + v, a.far_epoch) != a.far_epoch;
  const uint32_t mask = __ballot_sync(0xffffffffu, listed);
  if (mask == 0) return;
  const uint32_t leader = __ffs(mask) - 1;
  uint32_t base = 0;
  if (lane == leader) base = atomicAdd(a.far_count, static_cast<uint32_t>(__popc(mask)));
  base = __shfl_sync(0xffffffffu, base, leader);
  if (listed) a.far[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

/// What a lane's commit leaves to queue (this bucket's next round) or to list far, done for the
/// whole warp at once (enqueue_warp, defer_warp) in the host's rounds, whose flushes commit many
/// lanes together (R-MAT's large rounds: 7.8 -> 4.0 ms, H200). The device's loop (a grid's, a
/// road network's hops, a few lanes a flush) queues from each lane as it commits: its hops wait
/// on that latency, and queued by the warp the 2^20 grid ran 6% slower.
struct Next {
  bool gather = false;  ///< left to the warp (else done by the lane)
  uint32_t queue = kNoVertex;
  uint32_t far = kNoVertex;
};

/// Tally::counters' words: the run's counters [0, kAbandonedCount], then these statistics.
enum TallyWord : int {
  kTallyTransactions = kAbandonedCount + 1,
  kTallyRelaxations,
  kTallyImproved,
  kTallyWords
};

/// The most threads a block of the relaxation kernels (their launch bounds).
constexpr int kMaxBlockThreads = 256;

/// What a lane of a round tallies, reduced per warp at the end of the round. The counts live in
/// shared memory (SharedCounters): in registers they took 10 of the round kernel's 80 a thread.
struct Tally {
  SharedCounters<kTallyWords> counters;
  unsigned long long deferred_min = ~0ull;  // values are nonnegative: bits order them
  __device__ __forceinline__ explicit Tally(uint32_t* slots) : counters(slots) {}
};

/// Whether a warp may take v as its next hop: its edges fit one item and no commit of this
/// round queued it already (the three loads issued together: a hop's latency is the round's).
__device__ __forceinline__ bool may_hold(const RelaxArgs& a, const int32_t* offsets, uint32_t v) {
  const int32_t begin = __ldg(offsets + v);
  const int32_t end = __ldg(offsets + v + 1);
  const uint32_t stamp = mem::load_relaxed(a.stamps + v);
  return end - begin <= kChunkEdges && stamp != a.stamp;
}

/// Relaxes edge u -> v (weight w) in one PR-STM transaction of v's value, retried on conflicts;
/// du0 is u's value as the caller's filter saw it, the candidate's base. A v lowered within the
/// bucket is left in next.queue for the next round, or, if *held is free and v's edges fit one
/// item, held there for the warp's next hop in this round; one lowered past it, in next.far.
__device__ __forceinline__ void relax_edge(const StoreView& view, const RelaxArgs& a,
                                           const int32_t* offsets,
                                           const unsigned long long* values, uint32_t self,
                                           uint32_t u, uint32_t v, double w, uint64_t du0,
                                           Tally& t, uint32_t* held, Next& next) {
  ++t.counters.c[kTallyTransactions];
  const double candidate = as_double(du0) + w;
  for (uint32_t conflicts = 0;;) {
    // u's value now, loaded beside the transaction's first load and checked before its commit:
    // a u lowered since the filter read it was queued again by whoever lowered it, so the edge
    // is dropped rather than committing a stale candidate, which the rounds would carry and
    // redo (without this check the 2^20 grid ran 28% more transactions).
    const uint64_t du_now = mem::load_relaxed(values + u);
    PrStmTx<kCapacity, false> tx(view, priority::ordinary(self));
    const double dv = as_double(tx.read(a.values_region, v));
    if (du_now != du0) return;  // nothing taken yet: an ordinary attempt holds no lock
    bool wrote = false;
    if (candidate < dv) {
      tx.write(a.values_region, v, as_bits(candidate));
      wrote = true;
    }
    if (tx.commit()) {
      ++t.counters.c[kCommits];
      if (tx.read_only()) ++t.counters.c[kReadOnlyCommits];
      if (wrote) {
        atomicOr(a.changed + (v >> 5), 1u << (v & 31u));
        // Near-far: a value lowered below the bucket's end is relaxed in this bucket,
        // one at or above it waits for its own (values are nonnegative: bits order them).
        if (!(candidate < a.bound)) {
          if (next.gather) {
            next.far = v;
          } else {
            defer(a.far, a.far_count, a.far_stamps, a.far_epoch, v);
          }
          t.deferred_min = min(t.deferred_min, static_cast<unsigned long long>(as_bits(candidate)));
          ++t.counters.c[kTallyImproved];
        } else if (*held == kNoVertex && a.chain != 0 && may_hold(a, offsets, v)) {
          // Not stamped: a commit that lowers v again in this round still queues it.
          *held = v;
          ++t.counters.c[kTallyImproved];
        } else if (next.gather) {
          next.queue = v;  // counted as improved if this round had not queued it yet
        } else if (enqueue(a, offsets, v)) {
          ++t.counters.c[kTallyImproved];
        }
      }
      return;
    }
    t.counters.add(tx.abort_cause());
    if (++conflicts >= a.max_retries) {
      // Left for the next round: u's edges run again there.
      ++t.counters.c[kAbandonedCount];
      enqueue(a, offsets, u);
      return;
    }
    // Values only decrease: if v is at or below the candidate, the edge is done (and if u
    // dropped, the next attempt's check drops it).
    if (!(candidate < as_double(mem::load_relaxed(values + v)))) return;
    // Randomised exponential backoff from the second abort in a row, capped at 1 us: a
    // round ends with its slowest lane, and the conflicts here are short (one word).
    if (conflicts > 1) {
      const uint32_t cap = 64u << min(conflicts, 4u);
      __nanosleep(cap / 2 + (((self + conflicts) * 2654435761u) >> 16) % (cap / 2));
    }
  }
}

/// An edge that passed the filter, waiting in a lane for its transaction (push_items).
struct Survivor {
  uint32_t u = 0;
  uint32_t v = 0;
  double w = 0.0;
  uint64_t du0 = 0;  ///< u's value as the filter saw it
  bool has = false;
};

/// Runs the transaction of this lane's survivor, if it has one. Every lane of the warp calls
/// this (the lanes without one wait for those with one).
///
/// Survivors of one warp with the same target would pre-lock it at once and all but one abort
/// (on grids and road networks, whose neighbouring vertices a warp takes together, most of the
/// aborts were such refusals): only the lowest candidate runs, the others are dropped as the
/// filter drops an edge, since v ends at or below that candidate whether its transaction
/// commits, finds v already lower, or gives up and queues its u again.
template <bool HOST>
__device__ __forceinline__ void flush_survivor(const StoreView& view, const RelaxArgs& a,
                                               const int32_t* offsets,
                                               const unsigned long long* values, uint32_t self,
                                               Survivor& s, Tally& t, uint32_t* held) {
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t same = __match_any_sync(0xffffffffu, s.has ? s.v : kNoVertex);
  if (__any_sync(0xffffffffu, s.has && same != (1u << lane))) {
    const double mine = as_double(s.du0) + s.w;
    bool beaten = false;
    for (uint32_t j = 0; j < 32; ++j) {
      const double other = __shfl_sync(0xffffffffu, mine, j);
      beaten = beaten || (((same >> j) & 1u) && (other < mine || (other == mine && j < lane)));
    }
    if (beaten) s.has = false;
  }
  Next next;
  next.gather = HOST;
  if (s.has) relax_edge(view, a, offsets, values, self, s.u, s.v, s.w, s.du0, t, held, next);
  s.has = false;
  if (HOST) {
    if (enqueue_warp(a, offsets, next.queue)) ++t.counters.c[kTallyImproved];
    defer_warp(a, next.far);
  }
}

/// An edge of a warp's list as a lane looked at it (push_items): its ends, weight, u's value as
/// read and whether its candidate was below v's value.
struct Looked {
  uint32_t u = 0;
  uint32_t v = 0;
  double w = 0.0;
  uint64_t du0 = 0;
  bool passed = false;
};

/// Slices of 32 edges a warp looks at together in push_items, their loads in flight at once:
/// R-MAT 2^22's rounds 4.9 -> 4.0 ms at 2 (H200); 4 was no faster, and spills in the loop.
constexpr uint32_t kSlices = 2;

/// Push of the warp's items (this lane's: vertex `mine`, edges [begin, end)) as one list of
/// edges, a lane an edge: an item of a few edges (a road network's vertices have about four,
/// most of R-MAT's fewer than 32) no longer leaves most lanes idle while the warp walks the
/// items one by one. Each edge first passes a plain-load filter (values only decrease, so an
/// edge whose candidate is not below the target's value can never improve it); the few that
/// pass wait in the warp's lanes, one each, and run their transactions together when the lanes
/// are full or the list ends: a transaction run as soon as its edge passed held the warp's 31
/// other lanes for its whole latency, and in R-MAT's large rounds most passes of 32 edges have
/// one. A long list is looked at kSlices slices of 32 edges at a time, each phase's loads of
/// every slice issued before the first is used: the filter is two dependent round trips (the
/// edge, then its target's value), and a lane with one edge in flight left the large rounds
/// waiting on them. HOST: a launch of the host's rounds (R-MAT's few large ones), whose items
/// are first moved to the first lanes so that an edge's item is found from one mask of the
/// slice's starts instead of a binary search of five dependent shuffles; the device's loop (the
/// grids' hops, a push of one or a few items) keeps the search (compacting first cost the
/// grid 6%). Every lane of the warp calls this.
template <bool HOST>
__device__ __forceinline__ void push_items(const StoreView& view, const RelaxArgs& a,
                                           const int32_t* offsets, const int32_t* targets,
                                           const double* weights,
                                           const unsigned long long* values, uint32_t self,
                                           uint32_t lane, uint32_t mine, int32_t begin,
                                           int32_t end, Tally& t, uint32_t* held) {
  uint32_t items = 32;
  if (HOST) {
    // The items with edges moved to the first lanes.
    const uint32_t nonempty = __ballot_sync(0xffffffffu, end > begin);
    items = __popc(nonempty);
    const uint32_t from_lane = lane < items ? nth_set_lane(nonempty, lane) : lane;
    mine = __shfl_sync(0xffffffffu, mine, from_lane);
    begin = __shfl_sync(0xffffffffu, begin, from_lane);
    end = __shfl_sync(0xffffffffu, end, from_lane);
    if (lane >= items) end = begin;
  }
  const uint32_t count = static_cast<uint32_t>(end - begin);
  const uint32_t upto = warp_inclusive_sum(count);
  const uint32_t total = __shfl_sync(0xffffffffu, upto, 31);
  const uint32_t start = upto - count;  // this lane's first edge in the list
  Survivor s;
  for (uint32_t base = 0; base < total; base += 32 * kSlices) {
    // Slices with edges (warp-uniform): a short list looks at one, as before.
    const uint32_t slices = min(kSlices, (total - base + 31) / 32);
    Looked e[kSlices];
    int32_t edge[kSlices];
#pragma unroll
    for (uint32_t j = 0; j < kSlices; ++j) {
      if (j >= slices) break;
      const uint32_t slice = base + 32 * j;
      const uint32_t at = slice + lane;
      uint32_t k = 0;
      if (HOST) {
        // Compacted items start at strictly increasing edges: edge `at`'s item is the number
        // of items starting before the slice, plus those starting in it at or before `at`,
        // less one.
        const uint32_t starts = __reduce_or_sync(
            0xffffffffu, lane < items && start - slice < 32u ? 1u << (start - slice) : 0u);
        const uint32_t before = __popc(__ballot_sync(0xffffffffu, lane < items && start < slice));
        k = before + __popc(lane == 31 ? starts : starts & ((2u << lane) - 1u)) - 1u;
      } else {
        // The last lane whose first edge is at or before `at` (starts never decrease; an empty
        // item shares its start with the next, and the last such lane is the one with edges).
        for (uint32_t step = 16; step > 0; step >>= 1) {
          if (__shfl_sync(0xffffffffu, start, k + step) <= at) k += step;
        }
      }
      e[j].u = __shfl_sync(0xffffffffu, mine, k);
      const int32_t first = __shfl_sync(0xffffffffu, begin, k);
      const uint32_t from = __shfl_sync(0xffffffffu, start, k);
      edge[j] = at < total ? first + static_cast<int32_t>(at - from) : -1;
    }
    // The edges' targets and weights and their sources' values, every slice's at once.
#pragma unroll
    for (uint32_t j = 0; j < kSlices; ++j) {
      if (j >= slices) break;
      if (edge[j] >= 0) {
        // Streamed (evict first): an edge is read once a round, the values again and again, and
        // R-MAT 2^22's edges (780 MB) pushed its values (34 MB) out of the L2.
        e[j].v = static_cast<uint32_t>(__ldcs(targets + edge[j]));
        e[j].w = a.components ? 0.0 : (a.weighted ? __ldcs(weights + edge[j]) : 1.0);
        e[j].du0 = mem::load_relaxed(values + e[j].u);
      }
    }
    // Then their targets' values, likewise.
    uint64_t dv[kSlices];
#pragma unroll
    for (uint32_t j = 0; j < kSlices; ++j) {
      if (j >= slices) break;
      if (edge[j] >= 0) dv[j] = mem::load_relaxed(values + e[j].v);
    }
#pragma unroll
    for (uint32_t j = 0; j < kSlices; ++j) {
      if (j >= slices) break;
      e[j].passed = edge[j] >= 0 && as_double(e[j].du0) + e[j].w < as_double(dv[j]);
      const uint32_t fresh = __ballot_sync(0xffffffffu, e[j].passed);
      if (fresh == 0) continue;
      uint32_t open = __ballot_sync(0xffffffffu, !s.has);
      if (__popc(fresh) > __popc(open)) {
        flush_survivor<HOST>(view, a, offsets, values, self, s, t, held);
        open = 0xffffffffu;
      }
      // The r-th open lane takes the r-th edge that passed.
      const uint32_t rank = __popc(open & ((1u << lane) - 1u));
      const bool take = !s.has && rank < static_cast<uint32_t>(__popc(fresh));
      const uint32_t src = take ? nth_set_lane(fresh, rank) : lane;
      const uint32_t su = __shfl_sync(0xffffffffu, e[j].u, src);
      const uint32_t sv = __shfl_sync(0xffffffffu, e[j].v, src);
      const double sw = __shfl_sync(0xffffffffu, e[j].w, src);
      const uint64_t sd = __shfl_sync(0xffffffffu, e[j].du0, src);
      if (take) {
        s.u = su;
        s.v = sv;
        s.w = sw;
        s.du0 = sd;
        s.has = true;
      }
    }
  }
  flush_survivor<HOST>(view, a, offsets, values, self, s, t, held);
}

/// The lowest value among some targets (a pull), and whose it is (~0: none seen).
struct Lowest {
  unsigned long long bits = ~0ull;
  uint32_t from = 0;
};

/// Lowers l to the lowest value among the targets of this lane's edges (every 32nd from first,
/// below end; plain loads; values are nonnegative, so bits order them).
__device__ __forceinline__ void lowest_of(const int32_t* targets,
                                          const unsigned long long* values, int32_t first,
                                          int32_t end, Lowest& l) {
  for (int32_t e = first; e < end; e += 32) {
    const uint32_t u = static_cast<uint32_t>(__ldg(targets + e));
    const unsigned long long bits = mem::load_relaxed(values + u);
    if (bits < l.bits) {
      l.bits = bits;
      l.from = u;
    }
  }
}

/// The warp's lowest (ties to the lower vertex id). Every lane of the warp calls this.
__device__ __forceinline__ Lowest warp_lowest(Lowest l) {
  for (int off = 16; off > 0; off >>= 1) {
    const unsigned long long bits = __shfl_xor_sync(0xffffffffu, l.bits, off);
    const uint32_t from = __shfl_xor_sync(0xffffffffu, l.from, off);
    if (bits < l.bits || (bits == l.bits && from < l.from)) {
      l.bits = bits;
      l.from = from;
    }
  }
  return l;
}

/// Publishes the lowest value the warp's lanes deferred (the next bucket starts there) and
/// clears it. Every lane of the warp calls this.
__device__ __forceinline__ void publish_deferred(const RelaxArgs& a, Tally& t) {
  unsigned long long lowest = t.deferred_min;
  for (int off = 16; off > 0; off >>= 1) {
    lowest = min(lowest, __shfl_down_sync(0xffffffffu, lowest, off));
  }
  if ((threadIdx.x & 31u) == 0 && lowest != ~0ull) atomicMin(a.far_min, lowest);
  t.deferred_min = ~0ull;
}

/// Adds what the lanes tallied to the run's counters and statistics (a warp reduction, then
/// one atomic per warp and word), clears it, and publishes the lowest deferred value. Every
/// thread of the block calls this. HOST: the end of a host's round (the loop's, once at its end).
template <bool HOST>
__device__ __forceinline__ void flush_tally(const RelaxArgs& a, Tally& t) {
  const bool leader = (threadIdx.x & 31u) == 0;
#pragma unroll 1
  for (int i = 0; i < kTallyWords; ++i) {
    const uint32_t sum = __reduce_add_sync(0xffffffffu, t.counters.c[i]);
    t.counters.c[i] = 0;
    if (leader && sum != 0) {
      unsigned long long* to = i < kTallyTransactions ? a.counters + i
                               : i == kTallyTransactions ? a.stats + kTransactions
                               : i == kTallyRelaxations  ? a.stats + kRelaxations
                                                         : a.stats + kImproved;
      atomicAdd(to, static_cast<unsigned long long>(sum));
    }
  }
  publish_deferred(a, t);
}

/// Pushes each lane's item (vertex mine, edges [begin, end)), then follows hops: a vertex a lane
/// lowered within the bucket becomes its item for the warp's next pass, up to a.chain passes,
/// instead of waiting in the queue (on a grid or a road network a pass moves the frontier one
/// hop: a queue trip costs more than the relaxations); what a lane still holds is queued.
/// Every lane of the warp calls this.
template <bool HOST>
__device__ __forceinline__ void push_with_hops(const StoreView& view, const RelaxArgs& a,
                                               const int32_t* offsets, const int32_t* targets,
                                               const double* weights,
                                               const unsigned long long* values, uint32_t self,
                                               uint32_t lane, uint32_t mine, int32_t begin,
                                               int32_t end, Tally& t) {
  uint32_t held = kNoVertex;
  for (uint32_t hop = 0;; ++hop) {
    push_items<HOST>(view, a, offsets, targets, weights, values, self, lane, mine, begin, end, t,
                     &held);
    if (hop == a.chain || !__any_sync(0xffffffffu, held != kNoVertex)) break;
    mine = held;
    held = kNoVertex;
    begin = 0;
    end = 0;
    if (mine != kNoVertex) {
      begin = __ldg(offsets + mine);
      end = __ldg(offsets + mine + 1);
      t.counters.c[kTallyRelaxations] += static_cast<uint32_t>(end - begin);
    }
  }
  if (held != kNoVertex) enqueue(a, offsets, held);
}

/// The graph and the values a round or a drained bucket relaxes, from the store's regions.
struct Graph {
  const int32_t* offsets;
  const int32_t* targets;
  const double* weights;
  const unsigned long long* values;
};
__device__ __forceinline__ Graph graph_of(const StoreView& view, const RelaxArgs& a) {
  return {static_cast<const int32_t*>(view.regions[a.offsets_region].base),
          static_cast<const int32_t*>(view.regions[a.targets_region].base),
          static_cast<const double*>(view.regions[a.weights_region].base),
          static_cast<const unsigned long long*>(view.regions[a.values_region].base)};
}

/// One round over a.in into t (the caller flushes it: after the round, or once at the end of
/// the device's loop, which publishes only the lowest deferred value after each round).
template <bool HOST>
__device__ __forceinline__ void relax_round(const StoreView& view, const RelaxArgs& a, Tally& t) {
  const Graph g = graph_of(view, a);
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warp = self >> 5;
  const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
  // A warp takes up to 32 items at a time, a lane each: a push relaxes their edges as one list,
  // a pull walks the items one after the other (coalesced loads of each item's targets) and runs
  // its one transaction per item on the item's lane, the group's transactions at once rather
  // than one lane at a time. A short queue (shortest paths' first rounds) gives each warp fewer
  // items, so that every warp has one.
  const uint32_t per = max(1u, min(32u, (a.in_count + warps - 1) / warps));
  for (uint32_t group = warp * per; group < a.in_count; group += warps * per) {
    const uint32_t i = group + lane;
    uint32_t mine = 0;
    int32_t begin = 0;
    int32_t end = 0;
    if (lane < per && i < a.in_count) {
      const int2 item = a.in[i];
      mine = static_cast<uint32_t>(item.x);
      begin = item.y;
      end = min(__ldg(g.offsets + mine + 1), begin + kChunkEdges);
      t.counters.c[kTallyRelaxations] += static_cast<uint32_t>(end - begin);
    }
    if (!a.pull) {
      // Hops within the round rather than a round (a launch or grid sync, and a queue trip)
      // a hop.
      push_with_hops<HOST>(view, a, g.offsets, g.targets, g.weights, g.values, self, lane, mine,
                           begin, end, t);
      continue;
    }
    Lowest pulled;  // a pull: the lowest neighbour of this lane's item
    Next next;
    next.gather = true;  // a pull runs over every vertex
    for (uint32_t todo = __ballot_sync(0xffffffffu, end > begin); todo != 0; todo &= todo - 1) {
      const int k = __ffs(todo) - 1;
      const int32_t b = __shfl_sync(0xffffffffu, begin, k);
      const int32_t e = __shfl_sync(0xffffffffu, end, k);
      Lowest l;
      lowest_of(g.targets, g.values, b + static_cast<int32_t>(lane), e, l);
      l = warp_lowest(l);
      if (lane == static_cast<uint32_t>(k)) pulled = l;
    }
    // A pull's one transaction per item, on the item's lane.
    if (pulled.bits != ~0ull &&
        as_double(pulled.bits) < as_double(mem::load_relaxed(g.values + mine))) {
      uint32_t none = kNoVertex;  // a pull round queues what it lowers (chain is 0)
      relax_edge(view, a, g.offsets, g.values, self, pulled.from, mine, 0.0, pulled.bits, t,
                 &none, next);
    }
    if (enqueue_warp(a, g.offsets, next.queue)) ++t.counters.c[kTallyImproved];
    defer_warp(a, next.far);
  }
}

/// A whole bucket without rounds (drain.cuh): warps take the ring's items as they come, relax
/// them with their hops as a round does and queue what they lower back into the ring, until
/// every item queued was taken and no warp is busy. Only for graphs whose vertices' edges fit
/// one item.
__device__ __forceinline__ void relax_drain(const StoreView& view, const RelaxArgs& a, Tally& t) {
  const Graph g = graph_of(view, a);
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x & 31u;
  const drain::Ring<int2> ring = ring_of(a);
  drain::Taker taker;
  int2 item{};
  bool ready = false;
  while (drain::take(ring, taker, item, ready)) {
    uint32_t mine = 0;
    int32_t begin = 0;
    int32_t end = 0;
    if (ready) {
      mine = static_cast<uint32_t>(item.x);
      // No longer queued: a commit that lowers it from now on queues it again. Cleared before
      // its value is read (push_items), so that either this warp reads the lower value or the
      // commit that wrote it finds the stamp cleared.
      atomicExch(a.stamps + mine, a.stamp - 1u);
      __threadfence();
      begin = item.y;
      end = __ldg(g.offsets + mine + 1);
      t.counters.c[kTallyRelaxations] += static_cast<uint32_t>(end - begin);
    }
    push_with_hops<false>(view, a, g.offsets, g.targets, g.weights, g.values, self, lane, mine,
                          begin, end, t);
    drain::done(ring);
  }
}

/// Moves the far list's vertices now in [prev_bound, bound) into the bucket's first work items,
/// drops those below prev_bound (relaxed in an earlier bucket) and keeps the others with finite
/// values (distinct, under a new epoch), noting the lowest kept.
/// Far vertex i of the list (i past its end: a lane with nothing to move); every lane of the
/// warp calls this with the same warp-aligned base.
__device__ __forceinline__ void split_item(const SplitArgs& a, uint32_t i) {
  const uint32_t lane = threadIdx.x & 31u;
  unsigned long long kept = ~0ull;
  uint32_t v = 0;
  int32_t begin = 0;
  uint32_t chunks = 0;
  if (i < a.far_in_count) {
    v = a.far_in != nullptr ? a.far_in[i] : i;
    const unsigned long long bits = mem::load_relaxed(a.values + v);
    if (as_double(bits) < a.prev_bound) {
      // Lowered into an earlier bucket after it was listed: the commit that lowered it queued
      // it there, so its edges already ran from this value.
    } else if (as_double(bits) < a.bound) {
      if (atomicExch(a.stamps + v, a.stamp) != a.stamp) {
        begin = __ldg(a.offsets + v);
        chunks = static_cast<uint32_t>(__ldg(a.offsets + v + 1) - begin + kChunkEdges - 1) /
                 kChunkEdges;
      }
    } else if (!isinf(as_double(bits))) {
      defer(a.far_out, a.far_out_count, a.far_stamps, a.far_epoch, v);
      kept = bits;
    }  // +infinity: nothing to relax from it (and no bound would ever pass it); a commit that
       // lowers it later lists it again
  }
  // The vertices queued, one atomic a warp: the host pulls a round only when the split queued
  // every vertex that has edges.
  const uint32_t vertices = __popc(__ballot_sync(0xffffffffu, chunks != 0));
  if (lane == 31 && vertices != 0) atomicAdd(a.taken, vertices);
  queue_chunks_warp(a.out, a.out_count, v, begin, chunks);
  for (int off = 16; off > 0; off >>= 1) kept = min(kept, __shfl_down_sync(0xffffffffu, kept, off));
  if (lane == 0 && kept != ~0ull) atomicMin(a.far_min, kept);
}

/// The arguments of a whole relaxation in one launch (gstm_graph_relax_loop); the host packs
/// this byte for byte.
struct LoopArgs {
  int2* queues[2];           ///< work items, alternately a round's input and output
  uint32_t* far[2];          ///< far lists, alternately split's input and output
  uint32_t* far_count;       ///< [2] their lengths (far[0]'s holds the first frontier's)
  uint32_t* words;           ///< [3] queue lengths by step % 3, [3] taken, then the results:
                             ///< [4] rounds, [5] the far list in use, [6] the queue's length,
                             ///< [7] the last stamp, [8] the last far epoch
  uint32_t* stamps;
  uint32_t* far_stamps;
  unsigned long long* counters;
  unsigned long long* stats;
  uint32_t* changed;
  unsigned long long* far_min;
  double bound;              ///< the bucket's end (before the first bucket: the frontier's
                             ///< lowest value plus a width)
  double prev_bound;         ///< the last bucket's end (-infinity before the first)
  double width;              ///< a bucket's width (+infinity: one bucket)
  uint32_t max_rounds;       ///< rounds at most, those run before the launch included
  uint32_t stamp;            ///< the last stamp used: the loop's are above it (the host keeps room)
  uint32_t far_epoch;        ///< the last far epoch used, likewise
  uint32_t rounds;           ///< rounds the host ran before handing the run over
  uint32_t in;               ///< the queue holding the next round's items (words[0] of them)
  uint32_t fin;              ///< the far list the rounds add to
  uint32_t first;            ///< 1: no bucket yet (the far list holds the first frontier)
  uint32_t chain;            ///< RelaxArgs.chain
  uint32_t values_region;
  uint32_t targets_region;
  uint32_t weights_region;
  uint32_t offsets_region;
  uint32_t components;
  uint32_t weighted;
  uint32_t max_retries;
  uint32_t symmetric;        ///< components on a graph holding each edge both ways: may pull
  uint32_t vertices_with_edges;
  uint32_t drain_capacity;   ///< 0: rounds; else each bucket drained (relax_drain), queues[in] a
                             ///< ring of this many items, queues[1 - in] its slots' sequences
};
static_assert(sizeof(LoopArgs) == 192, "host packer assumes 192 bytes");

/// A step of the device's loop as a round's arguments: items from in (null: a drained bucket's
/// ring, which the caller sets) to out, whose length is *out_count.
__device__ __forceinline__ RelaxArgs step_args(const LoopArgs& a, const int2* in, int2* out,
                                               uint32_t* out_count, uint32_t fin, double bound,
                                               uint32_t n, uint32_t stamp, uint32_t epoch,
                                               bool pull) {
  RelaxArgs r;
  r.in = in;
  r.out = out;
  r.out_count = out_count;
  r.stamps = a.stamps;
  r.counters = a.counters;
  r.stats = a.stats;
  r.changed = a.changed;
  r.far = a.far[fin];
  r.far_count = a.far_count + fin;
  r.far_stamps = a.far_stamps;
  r.far_min = a.far_min;
  r.bound = bound;
  r.in_count = n;
  r.stamp = stamp;
  r.values_region = a.values_region;
  r.targets_region = a.targets_region;
  r.weights_region = a.weights_region;
  r.offsets_region = a.offsets_region;
  r.components = a.components;
  r.weighted = a.weighted;
  r.max_retries = a.max_retries;
  r.far_epoch = epoch;
  r.pull = pull ? 1u : 0u;
  r.chain = pull ? 0u : a.chain;
  r.ring_seq = nullptr;
  r.ring_cap = 0;
  r.pad = 0;
  return r;
}

__device__ __forceinline__ uint32_t load_word(const uint32_t* p) {
  return *reinterpret_cast<const volatile uint32_t*>(p);
}

/// The host's loop of splits and rounds (io.gstm.core.cuda.CudaGraphRelax) run on the device,
/// the grid synchronised between steps: no launch and no host round trip per round, which a
/// graph of high diameter (thousands of rounds of a few hundred items) paid at every round.
/// Every thread keeps the loop's state; what decides it (queue and far lengths, the lowest
/// value deferred) is read by all after a grid sync, so all take the same path. A step's queue
/// length lives in words[step % 3]: a step appends to the next slot and clears the one after,
/// which the step before last read, so a round needs one grid sync, not three.
template <bool DRAIN>
__device__ __forceinline__ void relax_loop(const StoreView& view, const LoopArgs& a) {
  namespace cg = cooperative_groups;
  cg::grid_group grid = cg::this_grid();
  const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
  const uint32_t threads = gridDim.x * blockDim.x;
  const uint32_t self = blockIdx.x * blockDim.x + threadIdx.x;
  // Where the host left the run (at its start, or after rounds of its own): the queue's length
  // in words[0], the other two zero.
  // Draining: the ring's slots whose sequences the next bucket sets again (all, the first time).
  [[maybe_unused]] uint32_t ring_used = a.drain_capacity;
  uint32_t step = 0;
  uint32_t in = a.in;
  uint32_t fin = a.fin;
  uint32_t n = load_word(a.words);
  uint32_t rounds = a.rounds;
  uint32_t stamp = a.stamp;
  uint32_t epoch = a.far_epoch;
  double bound = a.bound;
  double prev_bound = a.prev_bound;
  bool first = a.first != 0;
  bool pull = false;
  // The rounds' counters and statistics, added to the run's once at the end: flushed after
  // every round, a road network's 11,000 rounds took 218 ms of kernel, flushed once 204 ms
  // (H200). Only the lowest deferred value is published after each round.
  __shared__ uint32_t tally_slots[SharedCounters<kTallyWords>::kSlots(kMaxBlockThreads)];
  Tally tally(tally_slots);
  RelaxArgs r;
  r.counters = a.counters;
  r.stats = a.stats;
  r.far_min = a.far_min;
  while (rounds < a.max_rounds) {
    if (n == 0) {
      const uint32_t far_n = load_word(a.far_count + fin);
      if (far_n == 0) break;
      if (!first) {
        prev_bound = bound;
        const double lowest_far =
            as_double(*reinterpret_cast<const volatile unsigned long long*>(a.far_min));
        bound = max(bound, lowest_far) + a.width;
      }
      first = false;
      ++stamp;
      ++epoch;
      grid.sync();  // every thread has read the far list's length and its lowest value
      if (leader) {
        a.far_count[1 - fin] = 0;
        *a.far_min = as_bits(INFINITY);
        a.words[3] = 0;
        // The split's queue length, and the first round's (read two steps ago, if at all).
        a.words[(step + 1) % 3] = 0;
        a.words[(step + 2) % 3] = 0;
      }
      grid.sync();
      SplitArgs s;
      s.far_in = a.far[fin];
      s.far_out = a.far[1 - fin];
      s.far_out_count = a.far_count + (1 - fin);
      s.far_stamps = a.far_stamps;
      s.out = a.queues[in];
      s.out_count = a.words + (step + 1) % 3;
      s.stamps = a.stamps;
      s.far_min = a.far_min;
      s.offsets = static_cast<const int32_t*>(view.regions[a.offsets_region].base);
      s.values = static_cast<const unsigned long long*>(view.regions[a.values_region].base);
      s.bound = bound;
      s.prev_bound = prev_bound;
      s.far_in_count = far_n;
      s.far_epoch = epoch;
      s.stamp = stamp;
      s.pad = 0;
      s.taken = a.words + 3;
      for (uint32_t base = 0; base < far_n; base += threads) split_item(s, base + self);
      grid.sync();
      ++step;
      fin = 1 - fin;
      n = load_word(a.words + step % 3);
      pull = a.components && a.symmetric && rounds == 0 &&
             load_word(a.words + 3) == a.vertices_with_edges;
      continue;
    }
    if constexpr (DRAIN) {
      // The bucket's first items at [0, n) of queues[in], its length words[step % 3]: the
      // ring's tail from here on. The drain keeps the stamp that queued them (the split's, or
      // the host's last round's), so that a vertex is in the ring at most once until taken: at
      // most as many items wait as vertices have edges, the ring's capacity.
      const uint32_t cap = a.drain_capacity;
      uint32_t* seq = reinterpret_cast<uint32_t*>(a.queues[1 - in]);
      const uint32_t upto = min(cap, max(ring_used, n));
      for (uint32_t i = self; i < upto; i += threads) seq[i] = i < n ? i + 1 : i;
      if (leader) {
        drain_head = 0;
        drain_taken = 0;
        drain_busy = 0;
        drain_state = drain::kDraining;
      }
      grid.sync();
      RelaxArgs d = step_args(a, nullptr, a.queues[in], a.words + step % 3, fin, bound, n,
                              stamp, epoch, false);
      d.ring_seq = seq;
      d.ring_cap = cap;
      relax_drain(view, d, tally);
      publish_deferred(d, tally);  // the next split reads it
      grid.sync();
      ring_used = load_word(a.words + step % 3);
      ++rounds;
      n = 0;
      continue;
    }
    ++stamp;
    // Read as the step before last's length: no thread reads it again.
    if (leader) a.words[(step + 2) % 3] = 0;
    r = step_args(a, a.queues[in], a.queues[1 - in], a.words + (step + 1) % 3, fin, bound, n,
                  stamp, epoch, pull);
    relax_round<false>(view, r, tally);
    publish_deferred(r, tally);  // the next split reads it
    grid.sync();
    ++step;
    in = 1 - in;
    ++rounds;
    pull = false;
    n = load_word(a.words + step % 3);
  }
  flush_tally<false>(r, tally);
  if (leader) {
    a.words[4] = rounds;
    a.words[5] = fin;
    a.words[6] = n;
    a.words[7] = stamp;
    a.words[8] = epoch;
  }
}

}  // namespace gstm::graph_relax

/// @brief A whole relaxation, its splits and rounds, in one cooperative launch (all blocks
///        resident: the host sizes the grid by the occupancy). Launch with 256 threads a block.
///        Two blocks an SM, not three: its rounds wait on their slowest warp's chain of hops, and
///        with 128 registers the loop keeps its state out of local memory (no spills, against
///        294/506 bytes at 80): the 2^20 grid 22.0 ms against 23.0-23.1 (H200, benchmark-log.md).
/// @param view the store; @param args the queues, far lists and settings (LoopArgs, 192 bytes)
extern "C" __global__ void __launch_bounds__(256, 2) gstm_graph_relax_loop(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::graph_relax::LoopArgs args) {
  gstm::graph_relax::relax_loop<false>(view, args);
}

/// @brief gstm_graph_relax_loop with each bucket drained without rounds (relax_drain): shortest
///        paths on a graph whose vertices' edges fit one work item, args.drain_capacity the
///        ring's items (every vertex with edges). A kernel of its own, so that the rounds' loop
///        keeps its registers.
extern "C" __global__ void __launch_bounds__(256, 2) gstm_graph_relax_drain(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::graph_relax::LoopArgs args) {
  gstm::graph_relax::relax_loop<true>(view, args);
}

/// @brief One frontier round of graph relaxation, a warp per work item (a chunk of one vertex's
///        out-edges), a transaction per edge that may improve its target. Launch with a multiple of 32 threads per block.
///        Three blocks an SM (80 registers, 68/104 bytes of spills): R-MAT 2^22's rounds wait
///        on loads and transactions, and more warps in flight hide them (H200: 3.53 ms against
///        3.68-3.82 at two blocks, 3.59 at four, benchmark-log.md).
/// @param view the store (values transactional; offsets, targets, weights read-only)
/// @param args queues, stamps, counters and the round's settings
extern "C" __global__ void __launch_bounds__(256, 3) gstm_graph_relax_round(
    const __grid_constant__ gstm::StoreView view,
    const __grid_constant__ gstm::graph_relax::RelaxArgs args) {
  using gstm::graph_relax::kTallyWords;
  __shared__ uint32_t slots[gstm::SharedCounters<kTallyWords>::kSlots(
      gstm::graph_relax::kMaxBlockThreads)];
  gstm::graph_relax::Tally tally(slots);
  gstm::graph_relax::relax_round<true>(view, args, tally);
  gstm::graph_relax::flush_tally<true>(args, tally);
}

/// @brief Starts a bucket: moves the far list's vertices below the bound into work items.
///        Launch one thread per far vertex, whole warps.
/// @param args the far lists, the queue and the bound (SplitArgs, 120 bytes)
extern "C" __global__ void __launch_bounds__(256) gstm_graph_relax_split(
    const __grid_constant__ gstm::graph_relax::SplitArgs args) {
  gstm::graph_relax::split_item(args, blockIdx.x * blockDim.x + threadIdx.x);
}

/// @brief Sets *found to 1 if any of the n values is NaN: the host's check of a relaxation's
///        starting values, done where they already are (a pass over them on the host cost as
///        much as the rounds). Launch one thread per value, any block size.
/// @param values [n] value bits; @param n their number; @param found zeroed by the host
extern "C" __global__ void __launch_bounds__(256) gstm_graph_find_nan(
    const unsigned long long* __restrict__ values, uint32_t n, uint32_t* found) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && isnan(gstm::graph_relax::as_double(values[i]))) *found = 1;
}

namespace gstm::graph_relax {

/// Threads of a block of the changed list's kernels (one bitmap word each).
constexpr uint32_t kListThreads = 256;

/// The exclusive prefix sum of v over the block (kListThreads threads) and, in *total, the
/// block's sum. Every thread of the block calls it.
__device__ __forceinline__ uint32_t block_exclusive_scan(uint32_t v, uint32_t* total) {
  __shared__ uint32_t warp_sums[kListThreads / 32];
  const uint32_t lane = threadIdx.x & 31u;
  const uint32_t warp = threadIdx.x >> 5;
  uint32_t x = v;
  for (uint32_t o = 1; o < 32; o <<= 1) {
    const uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  if (lane == 31) warp_sums[warp] = x;
  __syncthreads();
  if (warp == 0) {
    uint32_t s = lane < kListThreads / 32 ? warp_sums[lane] : 0;
    for (uint32_t o = 1; o < 32; o <<= 1) {
      const uint32_t y = __shfl_up_sync(0xffffffffu, s, o);
      if (lane >= o) s += y;
    }
    if (lane < kListThreads / 32) warp_sums[lane] = s;
  }
  __syncthreads();
  const uint32_t prefix = (warp > 0 ? warp_sums[warp - 1] : 0) + x - v;
  *total = warp_sums[kListThreads / 32 - 1];
  __syncthreads();  // warp_sums free for the next call
  return prefix;
}

}  // namespace gstm::graph_relax

/// @brief The changed list, step 1 of 3: the set bits of each block's kListThreads words.
/// @param bits [words] the changed bits; @param counts [gridDim.x] each block's count
extern "C" __global__ void __launch_bounds__(256) gstm_graph_list_count(
    const uint32_t* __restrict__ bits, uint32_t words, uint32_t* __restrict__ counts) {
  const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t total;
  gstm::graph_relax::block_exclusive_scan(w < words ? __popc(bits[w]) : 0u, &total);
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

/// @brief Step 2: the blocks' counts turned into their first places (exclusive prefix sums), in
///        one block of kListThreads threads; counts[n] gets the list's length.
extern "C" __global__ void __launch_bounds__(256) gstm_graph_list_scan(uint32_t* counts,
                                                                      uint32_t n) {
  uint32_t carry = 0;
  for (uint32_t base = 0; base < n; base += blockDim.x) {
    const uint32_t i = base + threadIdx.x;
    const uint32_t v = i < n ? counts[i] : 0u;
    uint32_t total;
    const uint32_t prefix = gstm::graph_relax::block_exclusive_scan(v, &total);
    if (i < n) counts[i] = carry + prefix;
    carry += total;
  }
  if (threadIdx.x == 0) counts[n] = carry;
}

/// @brief Step 3: each word's set bits written at its place, in ascending order of vertex.
/// @param firsts [gridDim.x] each block's first place (step 2); @param list the vertices
extern "C" __global__ void __launch_bounds__(256) gstm_graph_list_write(
    const uint32_t* __restrict__ bits, uint32_t words, const uint32_t* __restrict__ firsts,
    uint32_t* __restrict__ list) {
  const uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t word = w < words ? bits[w] : 0u;
  uint32_t total;
  uint32_t at = firsts[blockIdx.x] + gstm::graph_relax::block_exclusive_scan(__popc(word), &total);
  for (; word != 0; word &= word - 1) list[at++] = (w << 5) + __ffs(word) - 1;
}

/// @brief A check of drain.cuh's ring, launched by the tests (io.gstm.core.cuda.DrainRingTest):
///        tokens [0, n) start in the ring (slot i holds (i, laps), its sequence i + 1; the other
///        slots' sequences their index; words[0], the tail, n) and each goes round `laps` more
///        times: a warp that takes one queues it again with a lap less, while others of its
///        positions may be pending, and a token with none left counts itself in done[token].
///        Any grid; fewer warps than the ring's slots make warps take many positions at once.
///        A warp that took items while others of its positions are pending sleeps 8 x slow_ns
///        first (0: not at all). With stall_us, block 0's first warp claims 32 positions as it
///        starts and sleeps that long without looking at them: once they are written the
///        other warps lap the ring past them, so producers must take their items over (the
///        path that keeps a producer from waiting on a taker), which the tests count.
/// @param words [0] tail, [1] head, [2] taken, [3] busy, [4] state, all but the tail zeroed
extern "C" __global__ void __launch_bounds__(256) gstm_drain_check(int2* items, uint32_t* seq,
                                                                   uint32_t cap, uint32_t* words,
                                                                   uint32_t* done,
                                                                   uint32_t slow_ns,
                                                                   uint32_t stall_us) {
  const gstm::drain::Ring<int2> ring{items,     seq,       cap,       words,      words + 1,
                                     words + 2, words + 3, words + 4, 0xffffffffu};
  gstm::drain::Taker taker;
  int2 item{};
  bool ready = false;
  if (stall_us != 0 && blockIdx.x == 0 && threadIdx.x < 32) {
    // What take() does for new positions, 32 of them, and then a long stall.
    uint32_t first = 0;
    if (threadIdx.x == 0) first = atomicAdd(ring.head, 32u);
    taker.pos = __shfl_sync(0xffffffffu, first, 0) + threadIdx.x;
    taker.pending = 0xffffffffu;
    // By the global timer: __nanosleep may sleep less than it is asked.
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
      __nanosleep(100000);
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < 1000ull * stall_us);
  }
  while (gstm::drain::take(ring, taker, item, ready)) {
    if (slow_ns != 0 && taker.pending != 0) {
      for (int i = 0; i < 8; ++i) __nanosleep(slow_ns);
    }
    if (ready) {
      if (item.y > 0) {
        gstm::drain::push(ring, make_int2(item.x, item.y - 1));
      } else {
        atomicAdd(done + item.x, 1u);
      }
    }
    gstm::drain::done(ring);
  }
}
