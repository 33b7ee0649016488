/// @file csmv.cuh
/// @brief CSMV (client-server multi-versioned STM) and JVSTM-GPU in one cooperative launch.
///        Twin of io.gstm.core.jvm.JvmCsmvRunner (same ring protocol and abort causes).
///
/// Store: per item a head (position of its newest version; position p lives in slot p mod N) and
/// N 64-bit slots `commit_ts << 32 | value`, so a value and its timestamp are read in one load
/// and never torn. A writer stores the slot of position P, then (release) the head P; a reader
/// takes the head with acquire, scans down for the newest timestamp <= its snapshot and accepts
/// position p only if the head it reads afterwards is below p + N - 1 (else the writer of
/// p + N may have begun: data-age abort, retried).
///
/// Launch: block 0 is the server when flags & kServer; every other block is a client. Client
/// warps run in rounds: one snapshot per round; read-only lanes finish locally; update lanes are
/// pre-validated inside the warp (kWarpBatch) and sent to the server warp that owns the client
/// warp's mailbox. Server warps validate (collaboratively with kCollab: the warp's lanes split
/// the items of each transaction longer than kCollabMinItems), insert into the commit record in
/// shared memory under a shared lock (a whole warp batch at once with kWarpBatch, else one
/// transaction at a time with server write-back) and answer. Clients write back and advance the global timestamp in commit
/// order, once per warp batch. Without kServer (JVSTM-GPU) each lane commits itself against a
/// commit record in global memory behind a global lock, lanes of a warp one after another.
/// Every wait is bounded: after `spin_limit` milliseconds without progress (GPU global timer) the
/// waiter sets the error word and all threads leave; the host reports it.
#pragma once
#include <cstdint>

#include "gstm/batch.cuh"
#include "gstm/memory.cuh"

namespace gstm::csmv {

constexpr uint32_t kMaxWrites = 8;
constexpr uint32_t kEntryWords = kMaxWrites + 2;  ///< stamp, count, items
constexpr uint32_t kInvalid = 0xffffffffu;
constexpr uint32_t kFull = 0xffffffffu;
enum Flags : uint32_t { kServer = 1, kCollab = 2, kWarpBatch = 4 };
enum Error : uint32_t { kNoError = 0, kSpinTimeout = 1, kReadOnlyWrote = 2 };
enum Mail : uint32_t { kIdle = 0, kRequest = 1, kDone = 2 };
/// Server answer per lane: kAnsCommit | cts, or an abort cause code.
constexpr uint32_t kAnsCommit = 0x80000000u;

/// Host packer: io.gstm.core.cuda.CsmvKernel. All pointers first, then 32-bit fields.
struct Args {
  uint32_t* heads;                ///< [items]
  unsigned long long* slots;      ///< [items * versions]
  uint32_t* gts;                  ///< global timestamp (persists across batches)
  uint32_t* ctrl;                 ///< [0] client warps done, [1] error, [2] global lock, [3] heartbeat,
                                  ///< [4] global-lock hand-offs, [5] warp batches served
  uint32_t* grecord;              ///< JVSTM-GPU commit record [record_entries * kEntryWords]
  uint32_t* mail;                 ///< per client warp: {state, mask, first cts, pad}
  uint32_t* info;                 ///< per client lane: {snapshot, reads, writes, answer}
  uint32_t* rset;                 ///< per client lane [rcap] items read (update transactions)
  uint32_t* wset;                 ///< per client lane [2 * kMaxWrites] items, values
  const uint32_t* type;
  const int32_t* cols;
  long long* results;             ///< [tx_count]
  unsigned long long* stamps;     ///< [tx_count] commit ts (update) or snapshot (read-only)
  uint8_t* outcome;               ///< [tx_count]
  unsigned long long* counters;   ///< [kCounterCount]
  const void* ext;                ///< what a workload's Ops needs beyond this (a program table)
  uint32_t region_base[8];        ///< first item of each region
  int32_t params[6];
  uint32_t versions;
  uint32_t tx_count;
  uint32_t ncols;
  uint32_t rcap;
  uint32_t record_entries;
  uint32_t flags;
  uint32_t max_retries;
  uint32_t spin_limit;            ///< milliseconds a wait may make no progress
  uint32_t server_warps_cap;      ///< mailboxes one server lane may poll
  uint32_t pad;

  __device__ __forceinline__ int32_t col(uint32_t c, uint32_t t) const {
    return cols[static_cast<size_t>(c) * tx_count + t];
  }
};
static_assert(sizeof(Args) == 16 * 8 + 8 * 4 + 6 * 4 + 10 * 4, "host packer layout");

__device__ __forceinline__ uint32_t ld_acquire(const uint32_t* p) {
  uint32_t v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(uint32_t* p, uint32_t v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ bool failed(const Args& a) {
  return mem::load_relaxed(a.ctrl + 1) != kNoError;
}
__device__ __forceinline__ void fail(const Args& a, uint32_t code) { atomicCAS(a.ctrl + 1, 0u, code); }

/// One lane's transaction attempt over a snapshot.
struct Tx {
  const Args& a;
  uint32_t snapshot;
  bool read_only;
  bool data_age = false;
  bool too_large = false;
  bool ro_wrote = false;
  uint8_t ended = 0;  ///< a program's abort or fault (final: the snapshot is consistent)
  uint32_t* rset;  ///< this lane's read-set slots (update transactions), or null
  uint32_t reads = 0;
  uint32_t writes = 0;
  uint32_t witem[kMaxWrites];
  uint32_t wval[kMaxWrites];

  __device__ Tx(const Args& args, uint32_t snap, bool ro, uint32_t* rs)
      : a(args), snapshot(snap), read_only(ro), rset(rs) {}

  __device__ __forceinline__ bool ok() const {
    return !data_age && !too_large && !ro_wrote && ended == 0;
  }

  /// A program ends the transaction with `outcome`; it reads a consistent snapshot, so the
  /// outcome stands (unless the snapshot aged, which retries it).
  __device__ __forceinline__ void end(uint8_t outcome) {
    if (ok()) ended = outcome;
  }

  __device__ uint32_t read(uint32_t region, uint32_t index) {
    if (!ok()) return 0;
    const uint32_t item = a.region_base[region] + index;
#pragma unroll
    for (uint32_t w = 0; w < kMaxWrites; ++w) {
      if (w < writes && witem[w] == item) return wval[w];
    }
    const uint32_t n = a.versions;
    const uint32_t h = ld_acquire(a.heads + item);
    const unsigned long long* ring = a.slots + static_cast<size_t>(item) * n;
    for (uint32_t k = 0; k < n && k <= h; ++k) {
      const uint32_t p = h - k;
      const unsigned long long word = mem::load_acquire(ring + p % n);
      if (static_cast<uint32_t>(word >> 32) <= snapshot) {
        // No head re-check needed: every version <= snapshot was installed before the snapshot
        // was taken (the global timestamp advances in commit order after write-back), so it sits
        // at a position <= h; any overwrite of a slot scanned here holds a position > h and
        // thus a timestamp > snapshot. Writes of one item are sequential and slot loads acquire,
        // so once slot p + j shows an overwrite, slot p shows one too (the scan then data-ages).
        if (!read_only) {
          if (reads >= a.rcap) {
            too_large = true;
            return 0;
          }
          rset[reads++] = item;
        }
        return static_cast<uint32_t>(word);
      }
    }
    data_age = true;
    return 0;
  }

  __device__ void write(uint32_t region, uint32_t index, uint32_t bits) {
    if (!ok()) return;
    if (read_only) {
      ro_wrote = true;
      return;
    }
    const uint32_t item = a.region_base[region] + index;
    bool found = false;
#pragma unroll
    for (uint32_t w = 0; w < kMaxWrites; ++w) {
      if (w < writes && witem[w] == item) {
        wval[w] = bits;
        found = true;
      }
    }
    if (found) return;
    if (writes == kMaxWrites) {
      too_large = true;
      return;
    }
#pragma unroll
    for (uint32_t w = 0; w < kMaxWrites; ++w) {
      if (w == writes) {
        witem[w] = item;
        wval[w] = bits;
      }
    }
    ++writes;
  }

  /// True when this transaction reads or writes `item`.
  __device__ bool touches(uint32_t item) const {
    bool hit = false;
#pragma unroll
    for (uint32_t w = 0; w < kMaxWrites; ++w) hit |= (w < writes && witem[w] == item);
    for (uint32_t r = 0; r < reads && !hit; ++r) hit = rset[r] == item;
    return hit;
  }
};

/// Writes one version of `item` at commit timestamp `cts` (single writer per item guaranteed by
/// validation: a later writer's snapshot includes this commit).
__device__ __forceinline__ void write_version(const Args& a, uint32_t item, uint32_t value,
                                              uint32_t cts) {
  const uint32_t n = a.versions;
  const uint32_t p = mem::load_relaxed(a.heads + item) + 1;
  mem::store_relaxed(a.slots + static_cast<size_t>(item) * n + p % n,
                     (static_cast<unsigned long long>(cts) << 32) | value);
  mem::fence_acq_rel();
  mem::store_relaxed(a.heads + item, p);
}

// ---- commit record of JVSTM-GPU (global memory, a ring of entries) --------------------------

/// Entry of commit `cts` at cts mod R: {stamp, count, items...}. A writer sets the stamp invalid,
/// fills the entry, then stamps it; a reader checks the stamp before and after (seqlock), so an
/// entry overwritten under it reads as a record-age abort, never as a wrong answer.
__device__ __forceinline__ volatile uint32_t* entry(uint32_t* record, uint32_t R, uint32_t cts) {
  return record + static_cast<size_t>(cts % R) * kEntryWords;
}

__device__ __forceinline__ void insert_entry(uint32_t* record, uint32_t R, uint32_t cts,
                                             const uint32_t* items, uint32_t count) {
  volatile uint32_t* e = entry(record, R, cts);
  e[0] = kInvalid;
  __threadfence();
  e[1] = count;
  for (uint32_t i = 0; i < count; ++i) e[2 + i] = items[i];
  __threadfence();
  e[0] = cts;
}

/// 0 when no commit in (from, to] wrote `item`; else kAbortRwConflict or kAbortRecordAge.
__device__ int check_item(uint32_t* record, uint32_t R, uint32_t item, uint32_t from,
                          uint32_t to) {
  for (uint32_t c = from + 1; c <= to; ++c) {
    volatile uint32_t* e = entry(record, R, c);
    const uint32_t s1 = e[0];
    __threadfence();
    const uint32_t cnt = min(e[1], kMaxWrites);
    bool hit = false;
    for (uint32_t i = 0; i < cnt; ++i) hit |= e[2 + i] == item;
    __threadfence();
    if (s1 != c || e[0] != c) return kAbortRecordAge;
    if (hit) return kAbortRwConflict;
  }
  return 0;
}

/// JVSTM-GPU validation by one thread: its reads and writes against commits (from, to].
__device__ int validate_list(uint32_t* record, uint32_t R, const uint32_t* rs, uint32_t nr,
                             const uint32_t* ws, uint32_t nw, uint32_t from, uint32_t to) {
  if (to - from >= R) return kAbortRecordAge;
  for (uint32_t e = 0; e < nr + nw; ++e) {
    const int c = check_item(record, R, e < nr ? rs[e] : ws[e - nr], from, to);
    if (c != 0) return c;
  }
  return 0;
}

// ---- commit record of the server (shared memory, indexed by item) ---------------------------
//
// The server's record keeps, per bucket (item mod B), the commit timestamp of the newest commit
// that wrote an item of that bucket. A transaction with snapshot s conflicts with a commit after
// s that wrote one of its items exactly when that item's bucket holds a timestamp > s (buckets
// shared by several items only add conservative aborts, counted as read-write conflicts). So
// validation costs one shared-memory load per item, whatever the number of concurrent commits,
// and the record never overflows (no record-age aborts on the server variants). Every access is
// a shared-memory atomic: server warps read buckets while the lock holder writes them.

__device__ __forceinline__ uint32_t sh_load(uint32_t* p) { return atomicOr(p, 0u); }

/// 0, or kAbortRwConflict when an item's bucket holds a commit after `snap` (one thread).
__device__ int validate_alone(const uint32_t* table, uint32_t B, const uint32_t* rs, uint32_t nr,
                              const uint32_t* ws, uint32_t nw, uint32_t snap) {
  uint32_t* t = const_cast<uint32_t*>(table);
  for (uint32_t e = 0; e < nr; ++e) {
    if (sh_load(t + rs[e] % B) > snap) return kAbortRwConflict;
  }
#pragma unroll
  for (uint32_t w = 0; w < kMaxWrites; ++w) {
    if (w < nw && sh_load(t + ws[w] % B) > snap) return kAbortRwConflict;
  }
  return 0;
}

/// The same with the whole warp: lane l checks entries l, l + 32, ... (coalesced loads of the
/// read set), the verdicts are combined by ballot. Called by all 32 lanes with the same arguments.
__device__ int validate_collab(const uint32_t* table, uint32_t B, const uint32_t* rs, uint32_t nr,
                               const uint32_t* ws, uint32_t nw, uint32_t snap) {
  uint32_t* t = const_cast<uint32_t*>(table);
  const uint32_t lane = threadIdx.x & 31;
  bool hit = false;
  for (uint32_t e = lane; e < nr; e += 32) hit |= sh_load(t + rs[e] % B) > snap;
#pragma unroll
  for (uint32_t w = 0; w < kMaxWrites; ++w) {
    if (w == lane && w < nw) hit |= sh_load(t + ws[w] % B) > snap;
  }
  return __any_sync(kFull, hit) ? kAbortRwConflict : 0;
}

/// Records a commit's writes (under the server lock).
__device__ __forceinline__ void insert_table(uint32_t* table, uint32_t B, const uint32_t* ws,
                                             uint32_t nw, uint32_t cts) {
#pragma unroll
  for (uint32_t w = 0; w < kMaxWrites; ++w) {
    if (w < nw) atomicMax(table + ws[w] % B, cts);
  }
}

// ---- bounded waits --------------------------------------------------------------------------
//
// A wait gives up when it has made no progress for `spin_limit` milliseconds of the GPU's global
// timer: it sets the error word, every thread leaves, and the host reports it.

__device__ __forceinline__ unsigned long long now_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ bool expired(const Args& a, unsigned long long start) {
  return now_ns() - start > static_cast<unsigned long long>(a.spin_limit) * 1000000ull;
}

/// Bounded wait until *p == want; false (and the error word set) past the limit or on error.
/// The limit counts time without progress: the clock restarts whenever *p or *progress (a
/// counter the party waited on bumps, may be null) changes, so a long queue behind a busy
/// server or a long chain of commits ahead is not taken for a hang; a stalled one is.
__device__ bool wait_for(const Args& a, const uint32_t* p, uint32_t want, uint32_t max_ns,
                         const uint32_t* progress = nullptr) {
  uint32_t ns = 16;
  unsigned long long start = now_ns();
  uint32_t last = ld_acquire(p);
  uint32_t last_prog = progress ? mem::load_relaxed(progress) : 0;
  for (uint32_t polls = 0;; ++polls) {
    const uint32_t v = ld_acquire(p);
    if (v == want) return true;
    if ((polls & 15) == 15) {
      if (failed(a)) return false;
      const uint32_t pr = progress ? mem::load_relaxed(progress) : 0;
      if (v != last || pr != last_prog) {
        last = v;
        last_prog = pr;
        start = now_ns();
      }
      if (expired(a, start)) break;
    }
    __nanosleep(ns);
    ns = min(ns * 2, max_ns);
  }
  fail(a, kSpinTimeout);
  return false;
}

/// Bounded global lock taken by one thread (the caller's warp-mates never hold it then). Every
/// acquisition bumps a hand-off counter; a waiter's limit counts time without a hand-off (tens of
/// thousands of lanes queue here at a full grid: a fixed limit from the first try starved some).
__device__ bool lock_global(const Args& a, uint32_t* lock) {
  uint32_t ns = 32;
  unsigned long long start = now_ns();
  uint32_t seen = mem::load_relaxed(a.ctrl + 4);
  while (true) {
    if (atomicCAS(lock, 0u, 1u) == 0u) {
      mem::fence_acq_rel();
      atomicAdd(a.ctrl + 4, 1u);
      return true;
    }
    if (failed(a)) return false;
    const uint32_t h = mem::load_relaxed(a.ctrl + 4);
    if (h != seen) {
      seen = h;
      start = now_ns();
    }
    if (expired(a, start)) break;
    __nanosleep(ns);
    ns = min(ns * 2, 1024u);
  }
  fail(a, kSpinTimeout);
  return false;
}

__device__ __forceinline__ void unlock_global(uint32_t* lock) {
  mem::fence_acq_rel();
  atomicExch(lock, 0u);
}

// ---- server ---------------------------------------------------------------------------------

struct ServerShared {
  uint32_t lock;
  uint32_t tail;  ///< newest commit timestamp given out
};

/// Bounded shared-memory lock taken by one lane.
__device__ bool lock_shared(const Args& a, ServerShared* sh) {
  uint32_t ns = 16;
  const unsigned long long start = now_ns();
  while (true) {
    if (atomicCAS(&sh->lock, 0u, 1u) == 0u) {
      __threadfence_block();
      return true;
    }
    if (failed(a) || expired(a, start)) break;
    __nanosleep(ns);
    ns = min(ns * 2, 256u);
  }
  fail(a, kSpinTimeout);
  return false;
}

__device__ __forceinline__ void unlock_shared(ServerShared* sh) {
  __threadfence_block();
  atomicExch(&sh->lock, 0u);
}

/// Transactions of at most this many items are validated by their own lane even with kCollab.
/// A warp on one transaction of a few items leaves most lanes idle and handles the warp batch's
/// transactions one after another, under the lock too when commits came in meanwhile: at 96%
/// aborts (bank, 1% read-only, full grid) that made CSMV 4x slower than CSMV-NoCV
/// (docs/benchmarks.md). Long read sets (memcached PUTs scanning a set) still split their items
/// over the warp, with coalesced loads.
constexpr uint32_t kCollabMinItems = 16;

/// Validates the lanes of `mask` whose verdict is still 0 against the table (collaboratively:
/// each transaction of more than kCollabMinItems items with the whole warp, one at a time; the
/// others, and every one without collab, by its own lane).
__device__ int validate_batch(const Args& a, uint32_t cw, uint32_t mask, bool collab,
                              const uint32_t* table, uint32_t B, int verdict, bool mine,
                              uint32_t snap, uint32_t nr, const uint32_t* rs,
                              const uint32_t (&ws)[kMaxWrites], uint32_t nw) {
  const uint32_t lane = threadIdx.x & 31;
  const bool alone = !collab || nr + nw <= kCollabMinItems;
  if (mine && verdict == 0 && alone) {
    verdict = validate_alone(table, B, rs, nr, ws, nw, snap);
  }
  if (collab) {
    // Only the set bits: this runs under the server lock too, where every cycle serialises.
    for (unsigned todo = __ballot_sync(kFull, mine && verdict == 0 && !alone) & mask; todo != 0;
         todo &= todo - 1) {
      const uint32_t i = __ffs(todo) - 1;
      const uint32_t s_i = __shfl_sync(kFull, snap, i);
      const uint32_t nr_i = __shfl_sync(kFull, nr, i);
      const uint32_t nw_i = __shfl_sync(kFull, nw, i);
      uint32_t ws_i[kMaxWrites];
#pragma unroll
      for (uint32_t w = 0; w < kMaxWrites; ++w) ws_i[w] = __shfl_sync(kFull, ws[w], i);
      const int v = validate_collab(table, B, a.rset + static_cast<size_t>(cw * 32 + i) * a.rcap,
                                    nr_i, ws_i, nw_i, s_i);
      if (lane == i) verdict = v;
    }
  }
  return verdict;
}

/// Serves client warp `cw`'s request with the whole server warp.
__device__ void serve(const Args& a, uint32_t cw, ServerShared* sh, uint32_t* table) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t B = a.record_entries * kEntryWords;
  uint32_t* mail = a.mail + 4 * cw;
  (void)ld_acquire(mail);  // every lane synchronises with the client's release
  const uint32_t mask = mem::load_relaxed(mail + 1);
  const bool collab = (a.flags & kCollab) != 0;
  const bool batch = (a.flags & kWarpBatch) != 0;
  // This lane's transaction (the client lane with the same number).
  const uint32_t slot = cw * 32 + lane;
  const bool mine = (mask >> lane) & 1u;
  uint32_t snap = 0, nr = 0, nw = 0;
  if (mine) {
    snap = a.info[4 * slot];
    nr = a.info[4 * slot + 1];
    nw = a.info[4 * slot + 2];
  }
  const uint32_t* rs = a.rset + static_cast<size_t>(slot) * a.rcap;
  uint32_t ws[kMaxWrites];
  uint32_t wv[kMaxWrites];
#pragma unroll
  for (uint32_t w = 0; w < kMaxWrites; ++w) {
    ws[w] = (mine && w < nw) ? a.wset[slot * 2 * kMaxWrites + w] : 0;
    wv[w] = (mine && w < nw) ? a.wset[slot * 2 * kMaxWrites + kMaxWrites + w] : 0;
  }
  int verdict = 0;
  if (batch) {
    // Validate against what the record holds now, outside the lock; under the lock again only
    // when commits were given out meanwhile (pre-validation made the batch conflict-free).
    uint32_t seen = 0;
    if (lane == 0) seen = sh_load(&sh->tail);
    seen = __shfl_sync(kFull, seen, 0);
    verdict = validate_batch(a, cw, mask, collab, table, B, verdict, mine, snap, nr, rs, ws, nw);
    // One lock for the warp batch: lane 0 takes it (other server warps hold it, never ours).
    bool locked = true;
    uint32_t tail = 0;
    if (lane == 0) {
      locked = lock_shared(a, sh);
      if (locked) tail = sh_load(&sh->tail);
    }
    locked = __shfl_sync(kFull, locked, 0);
    if (!locked) return;
    tail = __shfl_sync(kFull, tail, 0);
    if (tail != seen) {
      verdict = validate_batch(a, cw, mask, collab, table, B, verdict, mine, snap, nr, rs, ws, nw);
    }
    const unsigned winners = __ballot_sync(kFull, mine && verdict == 0);
    const uint32_t rank = __popc(winners & ((1u << lane) - 1));
    const uint32_t cts = tail + 1 + rank;
    if (mine && verdict == 0) insert_table(table, B, ws, nw, cts);
    __syncwarp();
    if (lane == 0) {
      __threadfence_block();
      atomicExch(&sh->tail, tail + __popc(winners));
      unlock_shared(sh);
    }
    if (mine) {
      mem::store_relaxed(a.info + 4 * slot + 3, verdict == 0 ? (kAnsCommit | cts)
                                                             : static_cast<uint32_t>(verdict));
      mem::fence_acq_rel();
    }
    if (lane == 0) mem::store_relaxed(mail + 2, tail + 1);
  } else {
    // onlyCS: one transaction at a time, validated by its own lane, inserted and written back
    // by the server under the lock, the global timestamp advanced with it.
    for (uint32_t i = 0; i < 32; ++i) {
      if (!((mask >> i) & 1u)) continue;
      if (lane == i) {
        uint32_t answer = kAbortRecordAge;
        if (lock_shared(a, sh)) {
          const uint32_t tail = sh_load(&sh->tail);
          verdict = validate_alone(table, B, rs, nr, ws, nw, snap);
          answer = static_cast<uint32_t>(verdict);
          if (verdict == 0) {
            const uint32_t cts = tail + 1;
            insert_table(table, B, ws, nw, cts);
            for (uint32_t w = 0; w < nw && w < kMaxWrites; ++w) write_version(a, ws[w], wv[w], cts);
            mem::fence_acq_rel();
            st_release(a.gts, cts);
            atomicExch(&sh->tail, cts);
            answer = kAnsCommit | cts;
          }
          unlock_shared(sh);
        }
        mem::store_relaxed(a.info + 4 * slot + 3, answer);
        mem::fence_acq_rel();
      }
      __syncwarp();
    }
  }
  __syncwarp();
  if (lane == 0) {
    mem::fence_acq_rel();
    st_release(mail, kDone);
    atomicAdd(a.ctrl + 5, 1u);  // progress for clients queued on other mailboxes
  }
}

__device__ void server(const Args& a, uint32_t client_warps, uint32_t* table) {
  __shared__ ServerShared sh;
  const uint32_t B = a.record_entries * kEntryWords;
  if (threadIdx.x == 0) {
    sh.lock = 0;
    sh.tail = ld_acquire(a.gts);
  }
  for (uint32_t i = threadIdx.x; i < B; i += blockDim.x) table[i] = 0;
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t W = blockDim.x / 32;
  uint32_t ns = 16;
  unsigned long long idle_since = now_ns();
  uint32_t last_beat = 0;
  while (true) {
    bool progress = false;
    for (uint32_t j = 0; j < a.server_warps_cap; ++j) {
      const uint32_t cw = warp + (j * 32 + lane) * W;
      const bool pending = cw < client_warps && ld_acquire(a.mail + 4 * cw) == kRequest;
      unsigned ready = __ballot_sync(kFull, pending);
      while (ready) {
        const uint32_t leader = __ffs(ready) - 1;
        ready &= ready - 1;
        serve(a, __shfl_sync(kFull, cw, leader), &sh, table);
        progress = true;
      }
    }
    // Clients working without asking (long read-only rounds) are progress too: heartbeat.
    const uint32_t beat = mem::load_relaxed(a.ctrl + 3);
    if (beat != last_beat) {
      last_beat = beat;
      progress = true;
    }
    if (progress) {
      idle_since = now_ns();
      ns = 16;
      continue;
    }
    const bool done = ld_acquire(a.ctrl) >= client_warps || failed(a);
    if (__shfl_sync(kFull, done, 0)) break;
    const bool late = __shfl_sync(kFull, expired(a, idle_since), 0);
    if (late) {
      if (lane == 0) fail(a, kSpinTimeout);
      break;
    }
    __nanosleep(ns);
    ns = min(ns * 2, 128u);
  }
}

// ---- clients --------------------------------------------------------------------------------

template <class Ops>
__device__ void client(const Args& a, uint32_t client_block, uint32_t client_blocks,
                       ThreadCounters<kCsmvCounterCount>& cnt, uint32_t* grecord) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t self = client_block * blockDim.x + threadIdx.x;
  const uint32_t threads = client_blocks * blockDim.x;
  const uint32_t cw = self / 32;
  const bool has_server = (a.flags & kServer) != 0;
  const bool batch = (a.flags & kWarpBatch) != 0;
  uint32_t* rs = a.rset + static_cast<size_t>(self) * a.rcap;
  uint32_t t = self;
  uint32_t retries = 0;
  while (true) {
    const bool has = t < a.tx_count;
    const bool stop = __shfl_sync(kFull, failed(a), 0);
    if (!__any_sync(kFull, has) || stop) break;
    uint32_t snap = 0;
    if (lane == 0) {
      snap = ld_acquire(a.gts);
      atomicAdd(a.ctrl + 3, 1u);  // heartbeat for the server's bounded idle wait
    }
    snap = __shfl_sync(kFull, snap, 0);
    const uint32_t type = has ? a.type[t] : 0;
    const bool ro = has && Ops::read_only(a, type);
    Tx tx(a, snap, ro, rs);
    long long result = 0;
    if (has) result = Ops::run(tx, a, t, type);
    if (tx.ro_wrote) fail(a, kReadOnlyWrote);
    int abort = 0;
    bool finished = false;
    uint8_t outcome = kPending;
    if (has && tx.too_large) {
      outcome = kTooLarge;
      cnt.add(kTooLargeCount);
    } else if (has && tx.data_age) {
      abort = kAbortDataAge;
    } else if (has && tx.ended != 0) {
      outcome = tx.ended;
    } else if (ro) {
      outcome = kCommitted;
      cnt.add(kCommits);
      cnt.add(kReadOnlyCommits);
      a.results[t] = result;
      a.stamps[t] = snap;
    }
    bool upd = has && !ro && tx.ok();
    // Pre-validation: lane l drops out when an earlier surviving lane writes what l touches.
    if (batch) {
      for (uint32_t j = 0; j < 31; ++j) {
        const bool live_j = __shfl_sync(kFull, upd, j);
        if (!live_j) continue;
        const uint32_t nw_j = __shfl_sync(kFull, tx.writes, j);
        bool hit = false;
#pragma unroll
        for (uint32_t w = 0; w < kMaxWrites; ++w) {
          const uint32_t item = __shfl_sync(kFull, tx.witem[w], j);
          if (w < nw_j && upd && lane > j) hit |= tx.touches(item);
        }
        if (hit) {
          upd = false;
          abort = kAbortPreValidation;
        }
      }
    }
    const unsigned umask = __ballot_sync(kFull, upd);
    uint32_t answer = 0;
    if (umask != 0 && has_server) {
      if (upd) {
        const uint32_t slot = self;
        mem::store_relaxed(a.info + 4 * slot, snap);
        mem::store_relaxed(a.info + 4 * slot + 1, tx.reads);
        mem::store_relaxed(a.info + 4 * slot + 2, tx.writes);
#pragma unroll
        for (uint32_t w = 0; w < kMaxWrites; ++w) {
          if (w < tx.writes) {
            mem::store_relaxed(a.wset + slot * 2 * kMaxWrites + w, tx.witem[w]);
            mem::store_relaxed(a.wset + slot * 2 * kMaxWrites + kMaxWrites + w, tx.wval[w]);
          }
        }
        mem::fence_acq_rel();
      }
      __syncwarp();
      bool served = true;
      if (lane == 0) {
        mem::store_relaxed(a.mail + 4 * cw + 1, umask);
        mem::fence_acq_rel();
        st_release(a.mail + 4 * cw, kRequest);
        served = wait_for(a, a.mail + 4 * cw, kDone, 256, a.ctrl + 5);
      }
      served = __shfl_sync(kFull, served, 0);
      if (!served) break;
      (void)ld_acquire(a.mail + 4 * cw);  // every lane synchronises with the server's release
      if (upd) answer = mem::load_relaxed(a.info + 4 * self + 3);
      __syncwarp();
      if (lane == 0) mem::store_relaxed(a.mail + 4 * cw, kIdle);
      if (batch) {
        // Client write-back, then the global timestamp in commit order, once for the warp.
        const bool won = upd && (answer & kAnsCommit);
        if (won) {
          const uint32_t cts = answer & ~kAnsCommit;
#pragma unroll
          for (uint32_t w = 0; w < kMaxWrites; ++w) {
            if (w < tx.writes) write_version(a, tx.witem[w], tx.wval[w], cts);
          }
          mem::fence_acq_rel();
        }
        const unsigned winners = __ballot_sync(kFull, won);
        __syncwarp();
        bool ok = true;
        if (lane == 0 && winners != 0) {
          const uint32_t first = mem::load_relaxed(a.mail + 4 * cw + 2);
          ok = wait_for(a, a.gts, first - 1, 64);
          if (ok) {
            mem::fence_acq_rel();
            st_release(a.gts, first - 1 + __popc(winners));
          }
        }
        if (!__shfl_sync(kFull, ok, 0)) break;
      }
    } else if (umask != 0) {
      // JVSTM-GPU: lanes commit one after another, each behind the global lock.
      for (uint32_t j = 0; j < 32; ++j) {
        if (!((umask >> j) & 1u)) continue;
        if (lane == j) {
          const uint32_t R = a.record_entries;
          // Validate up to the newest commit outside the lock; under the lock only the commits
          // made meanwhile. When that gap is wide (a queue of lanes committed while this one
          // waited), drop the lock, catch up outside and try again, so the critical section
          // stays a few entries long instead of growing with the queue (a convoy).
          uint32_t seen = ld_acquire(a.gts);
          int v = validate_list(grecord, R, rs, tx.reads, tx.witem, tx.writes, snap, seen);
          bool locked = false;
          for (uint32_t tries = 0; v == 0 && !locked; ++tries) {
            if (!lock_global(a, a.ctrl + 2)) {
              v = kAbortRecordAge;
              break;
            }
            const uint32_t g = mem::load_relaxed(a.gts);
            if (g - seen > 4 && tries < 8) {
              unlock_global(a.ctrl + 2);
              v = validate_list(grecord, R, rs, tx.reads, tx.witem, tx.writes, seen, g);
              seen = g;
              continue;
            }
            locked = true;
          }
          if (v == 0 && locked) {
            {
              const uint32_t g = mem::load_relaxed(a.gts);
              v = validate_list(grecord, R, rs, tx.reads, tx.witem, tx.writes, seen, g);
              if (v == 0 && g - snap >= R) v = kAbortRecordAge;
              if (v == 0) {
                const uint32_t cts = g + 1;
                insert_entry(grecord, R, cts, tx.witem, tx.writes);
                for (uint32_t w = 0; w < tx.writes; ++w) write_version(a, tx.witem[w], tx.wval[w], cts);
                mem::fence_acq_rel();
                st_release(a.gts, cts);
                answer = kAnsCommit | cts;
              }
              unlock_global(a.ctrl + 2);
            }
          }
          if (v != 0) answer = static_cast<uint32_t>(v);
        }
        __syncwarp();
      }
    }
    if (upd) {
      if (answer & kAnsCommit) {
        outcome = kCommitted;
        cnt.add(kCommits);
        a.stamps[t] = answer & ~kAnsCommit;
        a.results[t] = result;
      } else {
        abort = static_cast<int>(answer);
      }
    }
    if (has && abort != 0) {
      cnt.add(abort);
      if (++retries >= a.max_retries) {
        outcome = kAbandoned;
        cnt.add(kAbandonedCount);
      }
    }
    if (has && outcome != kPending) {
      a.outcome[t] = outcome;
      t += threads;
      retries = 0;
    }
    finished = true;
    (void)finished;
  }
  __syncwarp();
  if (lane == 0) {
    mem::fence_acq_rel();
    atomicAdd(a.ctrl, 1u);
  }
}

/// The whole launch. Dynamic shared memory: the commit record (server variants).
template <class Ops>
__device__ void run(const Args& a) {
  extern __shared__ uint32_t record[];
  ThreadCounters<kCsmvCounterCount> cnt;
  const bool has_server = (a.flags & kServer) != 0;
  const uint32_t client_blocks = gridDim.x - (has_server ? 1 : 0);
  const uint32_t client_warps = client_blocks * blockDim.x / 32;
  if (has_server && blockIdx.x == 0) {
    server(a, client_warps, record);
  } else {
    client<Ops>(a, blockIdx.x - (has_server ? 1 : 0), client_blocks, cnt, a.grecord);
  }
  cnt.flush_to(a.counters);
}

}  // namespace gstm::csmv
