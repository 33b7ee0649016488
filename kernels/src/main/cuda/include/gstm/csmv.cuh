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
/// one transaction's entries), insert into the commit record in shared memory under a shared
/// lock (a whole warp batch at once with kWarpBatch, else one transaction at a time with
/// server write-back) and answer. Clients write back and advance the global timestamp in commit
/// order, once per warp batch. Without kServer (JVSTM-GPU) each lane commits itself against a
/// commit record in global memory behind a global lock, lanes of a warp one after another.
/// Every wait is bounded: past `spin_limit` idle polls the waiter sets the error word and all
/// threads leave; the host reports it.
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
  uint32_t* ctrl;                 ///< [0] client warps done, [1] error, [2] global lock
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
  uint32_t region_base[8];        ///< first item of each region
  int32_t params[6];
  uint32_t versions;
  uint32_t tx_count;
  uint32_t ncols;
  uint32_t rcap;
  uint32_t record_entries;
  uint32_t flags;
  uint32_t max_retries;
  uint32_t spin_limit;
  uint32_t server_warps_cap;      ///< mailboxes one server lane may poll
  uint32_t pad;

  __device__ __forceinline__ int32_t col(uint32_t c, uint32_t t) const {
    return cols[static_cast<size_t>(c) * tx_count + t];
  }
};
static_assert(sizeof(Args) == 15 * 8 + 8 * 4 + 6 * 4 + 10 * 4, "host packer layout");

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
  uint32_t* rset;  ///< this lane's read-set slots (update transactions), or null
  uint32_t reads = 0;
  uint32_t writes = 0;
  uint32_t witem[kMaxWrites];
  uint32_t wval[kMaxWrites];

  __device__ Tx(const Args& args, uint32_t snap, bool ro, uint32_t* rs)
      : a(args), snapshot(snap), read_only(ro), rset(rs) {}

  __device__ __forceinline__ bool ok() const { return !data_age && !too_large && !ro_wrote; }

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
        const uint32_t h2 = mem::load_relaxed(a.heads + item);
        if (h2 + 1 >= p + n) break;  // the writer of p + n may have begun
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

// ---- commit record (shared for the server, global for JVSTM-GPU) ----------------------------

/// Entry of commit `cts` at cts mod R: {stamp, count, items...}. A writer sets the stamp invalid,
/// fills the entry, then stamps it; a reader checks the stamp before and after (seqlock), so an
/// entry overwritten under it reads as a record-age abort, never as a wrong answer.
__device__ __forceinline__ volatile uint32_t* entry(uint32_t* record, uint32_t R, uint32_t cts) {
  return record + static_cast<size_t>(cts % R) * kEntryWords;
}

__device__ __forceinline__ void insert_entry(uint32_t* record, uint32_t R, uint32_t cts,
                                             const uint32_t* items, uint32_t count,
                                             bool global) {
  volatile uint32_t* e = entry(record, R, cts);
  e[0] = kInvalid;
  if (global) __threadfence(); else __threadfence_block();
  e[1] = count;
  for (uint32_t i = 0; i < count; ++i) e[2 + i] = items[i];
  if (global) __threadfence(); else __threadfence_block();
  e[0] = cts;
}

/// 0 when no commit in (from, to] wrote `item`; else kAbortRwConflict or kAbortRecordAge.
__device__ int check_item(uint32_t* record, uint32_t R, uint32_t item, uint32_t from,
                          uint32_t to, bool global) {
  for (uint32_t c = from + 1; c <= to; ++c) {
    volatile uint32_t* e = entry(record, R, c);
    const uint32_t s1 = e[0];
    if (global) __threadfence(); else __threadfence_block();
    const uint32_t cnt = min(e[1], kMaxWrites);
    bool hit = false;
    for (uint32_t i = 0; i < cnt; ++i) hit |= e[2 + i] == item;
    if (global) __threadfence(); else __threadfence_block();
    if (s1 != c || e[0] != c) return kAbortRecordAge;
    if (hit) return kAbortRwConflict;
  }
  return 0;
}

/// Validates one transaction by one thread: its reads and writes against commits (from, to].
__device__ int validate_alone(uint32_t* record, uint32_t R, const uint32_t* rs, uint32_t nr,
                              const uint32_t* ws, uint32_t nw, uint32_t from, uint32_t to,
                              bool global) {
  if (to - from >= R) return kAbortRecordAge;
  for (uint32_t e = 0; e < nr + nw; ++e) {
    const int c = check_item(record, R, e < nr ? mem::load_relaxed(rs + e) : ws[e - nr], from,
                             to, global);
    if (c != 0) return c;
  }
  return 0;
}

/// Validates one transaction with the whole warp: lane l checks entries l, l + 32, ...
/// (coalesced loads of the read set), the verdicts are combined by ballot.
__device__ int validate_collab(uint32_t* record, uint32_t R, const uint32_t* rs, uint32_t nr,
                               const uint32_t* ws, uint32_t nw, uint32_t from, uint32_t to) {
  if (to - from >= R) return kAbortRecordAge;
  const uint32_t lane = threadIdx.x & 31;
  int mine = 0;
  for (uint32_t e = lane; e < nr + nw; e += 32) {
    const int c = check_item(record, R, e < nr ? mem::load_relaxed(rs + e) : ws[e - nr], from,
                             to, false);
    if (c != 0 && mine == 0) mine = c;
  }
  const unsigned age = __ballot_sync(kFull, mine == kAbortRecordAge);
  const unsigned rw = __ballot_sync(kFull, mine == kAbortRwConflict);
  return age ? kAbortRecordAge : rw ? kAbortRwConflict : 0;
}

/// Bounded spin until *p == want; false (and the error word set) past the limit or on error.
__device__ bool wait_for(const Args& a, const uint32_t* p, uint32_t want) {
  uint32_t ns = 32;
  for (uint32_t spins = 0; spins < a.spin_limit; ++spins) {
    if (ld_acquire(p) == want) return true;
    if (failed(a)) return false;
    __nanosleep(ns);
    ns = min(ns * 2, 1024u);
  }
  fail(a, kSpinTimeout);
  return false;
}

/// Bounded global lock taken by one thread (the caller's warp-mates never hold it then).
__device__ bool lock_global(const Args& a, uint32_t* lock) {
  uint32_t ns = 32;
  for (uint32_t spins = 0; spins < a.spin_limit; ++spins) {
    if (atomicCAS(lock, 0u, 1u) == 0u) {
      mem::fence_acq_rel();
      return true;
    }
    if (failed(a)) return false;
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
  uint32_t tail;  ///< newest commit timestamp in the record
};

/// Serves client warp `cw`'s request with the whole server warp.
__device__ void serve(const Args& a, uint32_t cw, ServerShared* sh, uint32_t* record) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t R = a.record_entries;
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
    snap = mem::load_relaxed(a.info + 4 * slot);
    nr = mem::load_relaxed(a.info + 4 * slot + 1);
    nw = mem::load_relaxed(a.info + 4 * slot + 2);
  }
  const uint32_t* rs = a.rset + static_cast<size_t>(slot) * a.rcap;
  uint32_t ws[kMaxWrites];
  uint32_t wv[kMaxWrites];
#pragma unroll
  for (uint32_t w = 0; w < kMaxWrites; ++w) {
    ws[w] = (mine && w < nw) ? mem::load_relaxed(a.wset + slot * 2 * kMaxWrites + w) : 0;
    wv[w] = (mine && w < nw) ? mem::load_relaxed(a.wset + slot * 2 * kMaxWrites + kMaxWrites + w) : 0;
  }
  int verdict = 0;
  uint32_t checked_to = 0;
  if (batch) {
    // Validate against what the record holds now, outside the lock.
    const uint32_t seen = *reinterpret_cast<volatile uint32_t*>(&sh->tail);
    if (collab) {
      for (uint32_t i = 0; i < 32; ++i) {
        if (!((mask >> i) & 1u)) continue;
        const uint32_t s_i = __shfl_sync(kFull, snap, i);
        const uint32_t nr_i = __shfl_sync(kFull, nr, i);
        const uint32_t nw_i = __shfl_sync(kFull, nw, i);
        uint32_t ws_i[kMaxWrites];
#pragma unroll
        for (uint32_t w = 0; w < kMaxWrites; ++w) ws_i[w] = __shfl_sync(kFull, ws[w], i);
        const int v = validate_collab(record, R, a.rset + static_cast<size_t>(cw * 32 + i) * a.rcap,
                                      nr_i, ws_i, nw_i, s_i, seen);
        if (lane == i) verdict = v;
      }
    } else if (mine) {
      verdict = validate_alone(record, R, rs, nr, ws, nw, snap, seen, false);
    }
    checked_to = seen;
    // One lock for the warp batch: lane 0 takes it (other server warps hold it, never ours).
    bool locked = true;
    if (lane == 0) {
      locked = false;
      uint32_t ns = 32;
      for (uint32_t spins = 0; spins < a.spin_limit && !locked; ++spins) {
        if (atomicCAS(&sh->lock, 0u, 1u) == 0u) locked = true;
        else { __nanosleep(ns); ns = min(ns * 2, 512u); }
      }
      if (!locked) fail(a, kSpinTimeout);
      __threadfence_block();
    }
    locked = __shfl_sync(kFull, locked, 0);
    if (!locked) return;
    const uint32_t tail = *reinterpret_cast<volatile uint32_t*>(&sh->tail);
    // Commits inserted since: validate against them too (pre-validation made the batch
    // conflict-free within itself).
    if (tail != checked_to) {
      if (collab) {
        for (uint32_t i = 0; i < 32; ++i) {
          const bool go = ((mask >> i) & 1u) && __shfl_sync(kFull, verdict, i) == 0;
          if (!go) continue;
          const uint32_t s_i = __shfl_sync(kFull, snap, i);
          const uint32_t nr_i = __shfl_sync(kFull, nr, i);
          const uint32_t nw_i = __shfl_sync(kFull, nw, i);
          uint32_t ws_i[kMaxWrites];
#pragma unroll
          for (uint32_t w = 0; w < kMaxWrites; ++w) ws_i[w] = __shfl_sync(kFull, ws[w], i);
          // Entries older than the snapshot were already checked or do not concern it.
          const uint32_t from = max(s_i, checked_to);
          const int v = (tail - s_i >= R) ? kAbortRecordAge
              : validate_collab(record, R, a.rset + static_cast<size_t>(cw * 32 + i) * a.rcap,
                                nr_i, ws_i, nw_i, from, tail);
          if (lane == i) verdict = v;
        }
      } else if (mine && verdict == 0) {
        verdict = (tail - snap >= R) ? kAbortRecordAge
            : validate_alone(record, R, rs, nr, ws, nw, max(snap, checked_to), tail, false);
      }
    }
    const unsigned winners = __ballot_sync(kFull, mine && verdict == 0);
    const uint32_t rank = __popc(winners & ((1u << lane) - 1));
    const uint32_t cts = tail + 1 + rank;
    if (mine && verdict == 0) insert_entry(record, R, cts, ws, nw, false);
    __syncwarp();
    if (lane == 0) {
      __threadfence_block();
      *reinterpret_cast<volatile uint32_t*>(&sh->tail) = tail + __popc(winners);
      __threadfence_block();
      atomicExch(&sh->lock, 0u);
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
        bool locked = false;
        uint32_t ns = 32;
        for (uint32_t spins = 0; spins < a.spin_limit && !locked; ++spins) {
          if (atomicCAS(&sh->lock, 0u, 1u) == 0u) locked = true;
          else { __nanosleep(ns); ns = min(ns * 2, 512u); }
        }
        if (!locked) {
          fail(a, kSpinTimeout);
          verdict = kAbortRecordAge;
        } else {
          __threadfence_block();
          const uint32_t tail = *reinterpret_cast<volatile uint32_t*>(&sh->tail);
          verdict = validate_alone(record, R, rs, nr, ws, nw, snap, tail, false);
          uint32_t answer = static_cast<uint32_t>(verdict);
          if (verdict == 0) {
            const uint32_t cts = tail + 1;
            insert_entry(record, R, cts, ws, nw, false);
            for (uint32_t w = 0; w < nw && w < kMaxWrites; ++w) write_version(a, ws[w], wv[w], cts);
            mem::fence_acq_rel();
            st_release(a.gts, cts);
            *reinterpret_cast<volatile uint32_t*>(&sh->tail) = cts;
            answer = kAnsCommit | cts;
          }
          __threadfence_block();
          atomicExch(&sh->lock, 0u);
          mem::store_relaxed(a.info + 4 * slot + 3, answer);
          mem::fence_acq_rel();
        }
      }
      __syncwarp();
    }
  }
  __syncwarp();
  if (lane == 0) {
    mem::fence_acq_rel();
    st_release(mail, kDone);
  }
}

__device__ void server(const Args& a, uint32_t client_warps, uint32_t* record) {
  __shared__ ServerShared sh;
  const uint32_t R = a.record_entries;
  if (threadIdx.x == 0) {
    sh.lock = 0;
    sh.tail = ld_acquire(a.gts);
  }
  for (uint32_t i = threadIdx.x; i < R * kEntryWords; i += blockDim.x) {
    record[i] = (i % kEntryWords == 0) ? kInvalid : 0;
  }
  __syncthreads();
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t W = blockDim.x / 32;
  uint32_t idle = 0;
  uint32_t ns = 32;
  while (true) {
    bool progress = false;
    for (uint32_t j = 0; j < a.server_warps_cap; ++j) {
      const uint32_t cw = warp + (j * 32 + lane) * W;
      const bool pending = cw < client_warps && ld_acquire(a.mail + 4 * cw) == kRequest;
      unsigned ready = __ballot_sync(kFull, pending);
      while (ready) {
        const uint32_t leader = __ffs(ready) - 1;
        ready &= ready - 1;
        serve(a, __shfl_sync(kFull, cw, leader), &sh, record);
        progress = true;
      }
    }
    if (progress) {
      idle = 0;
      ns = 32;
      continue;
    }
    const bool done = ld_acquire(a.ctrl) >= client_warps || failed(a);
    if (__shfl_sync(kFull, done, 0)) break;
    if (++idle > a.spin_limit) {
      if (lane == 0) fail(a, kSpinTimeout);
      break;
    }
    __nanosleep(ns);
    ns = min(ns * 2, 256u);
  }
}

// ---- clients --------------------------------------------------------------------------------

template <class Ops>
__device__ void client(const Args& a, uint32_t client_block, uint32_t client_blocks,
                       ThreadCounters<kCounterCount>& cnt, uint32_t* grecord) {
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
    if (lane == 0) snap = ld_acquire(a.gts);
    snap = __shfl_sync(kFull, snap, 0);
    const uint32_t type = has ? a.type[t] : 0;
    const bool ro = has && Ops::read_only(type);
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
        served = wait_for(a, a.mail + 4 * cw, kDone);
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
          ok = wait_for(a, a.gts, first - 1);
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
          const uint32_t seen = ld_acquire(a.gts);
          int v = validate_alone(grecord, R, rs, tx.reads, tx.witem, tx.writes, snap, seen, true);
          if (v == 0) {
            if (!lock_global(a, a.ctrl + 2)) {
              v = kAbortRecordAge;
            } else {
              const uint32_t g = mem::load_relaxed(a.gts);
              v = validate_alone(grecord, R, rs, tx.reads, tx.witem, tx.writes, seen, g, true);
              if (v == 0 && g - snap >= R) v = kAbortRecordAge;
              if (v == 0) {
                const uint32_t cts = g + 1;
                insert_entry(grecord, R, cts, tx.witem, tx.writes, true);
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
  ThreadCounters<kCounterCount> cnt;
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
