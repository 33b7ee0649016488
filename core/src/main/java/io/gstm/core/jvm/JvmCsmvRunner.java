package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.workload.CsmvChecks;
import io.gstm.core.workload.TxContext;
import java.util.Arrays;

/**
 * CSMV's semantics on Java threads, for the warps one worker owns. A warp runs in rounds: every
 * lane with work takes the warp's snapshot (the global timestamp), runs its transaction body,
 * read-only ones finish at once; with warp batching on, an update lane that touches what an
 * earlier surviving lane writes aborts (pre-validation); the survivors then commit in lane order
 * under the store's commit lock: validation against the commit record (record age, read-write
 * conflict), insertion, write-back, and the global timestamp advanced. The worker interleaves the
 * rounds of its warps, so snapshots age as they would on the GPU.
 */
final class JvmCsmvRunner {
  static final int WARP = 32;
  private static final int MAX_WRITES = CsmvChecks.MAX_WRITES;

  private final JvmCsmvStore store;
  private final TxBody body;
  private final int threads;
  private final RunOptions options;
  private final boolean prevalidate;
  private final long[] counters;
  private final byte[] outcomes;
  private final long[] results;
  private final long[] stamps;
  private final long[] histReads;
  private final long[] histWrites;
  private final int[] histCounts;
  private final int capacity;

  JvmCsmvRunner(JvmCsmvStore store, TxBody body, int threads, RunOptions options,
      long[] counters, BatchOutputs out, long[] stamps) {
    this.store = store;
    this.body = body;
    this.threads = threads;
    this.options = options;
    this.prevalidate = store.algorithm().variant().warpBatching()
        && store.algorithm().variant() != CsmvVariant.JVSTM_GPU;
    this.counters = counters;
    this.outcomes = out.outcomes;
    this.results = out.results;
    this.stamps = stamps;
    this.histReads = out.histReads;
    this.histWrites = out.histWrites;
    this.histCounts = out.histCounts;
    this.capacity = out.capacity;
  }

  /** Signals a snapshot the ring no longer holds. */
  private static final class DataAge extends RuntimeException {
    DataAge() {
      super(null, null, false, false);
    }
  }

  private static final DataAge DATA_AGE = new DataAge();

  /** One lane's attempt: a transactional context over the warp's snapshot. */
  private final class Lane implements TxContext {
    int tx = -1;
    int retries;
    int snapshot;
    boolean readOnly;
    int reads;
    int[] readItems = new int[16];
    int[] readPos = new int[16];
    int writes;
    final int[] writeItems = new int[MAX_WRITES];
    final int[] writeBits = new int[MAX_WRITES];
    boolean tooLarge;
    /** A program's abort or fault (its snapshot is consistent, so it stands at once). */
    Outcome ended;
    /** Ran to its end this round and waits for its commit. */
    boolean attemptOpen;

    void begin(int snap) {
      snapshot = snap;
      attemptOpen = true;
      readOnly = body.readOnly(tx);
      reads = 0;
      writes = 0;
      tooLarge = false;
      ended = null;
    }

    @Override
    public long readShared(int region, int index) {
      // A versioned store keeps no unversioned data: a snapshot read is always safe.
      return read(region, index);
    }

    @Override
    public long read(int region, int index) {
      int item = store.item(region, index);
      for (int w = 0; w < writes; w++) {
        if (writeItems[w] == item) {
          return writeBits[w];
        }
      }
      int n = store.versions;
      int h = store.heads.get(item);
      for (int p = h; p >= 0 && p > h - n; p--) {
        long word = store.slots.get(item * n + p % n);
        if (Integer.compareUnsigned((int) (word >>> 32), snapshot) <= 0) {
          // Position p is intact unless the write of position p + n may have begun, which needs
          // the head at p + n - 1 first.
          if (store.heads.get(item) + 1 >= p + n) {
            throw DATA_AGE;
          }
          if (!readOnly || histCounts != null) {
            record(item, p);
          }
          return (int) word;
        }
      }
      throw DATA_AGE;
    }

    private void record(int item, int pos) {
      if (reads == readItems.length) {
        readItems = Arrays.copyOf(readItems, reads * 2);
        readPos = Arrays.copyOf(readPos, reads * 2);
      }
      readItems[reads] = item;
      readPos[reads++] = pos;
    }

    @Override
    public void write(int region, int index, long bits) {
      if (ended != null) {
        return;
      }
      if (readOnly) {
        throw new IllegalArgumentException("transaction " + tx + " is declared read-only by "
            + body + " but writes region " + region + " word " + index
            + ": read-only transactions must not write");
      }
      int item = store.item(region, index);
      for (int w = 0; w < writes; w++) {
        if (writeItems[w] == item) {
          writeBits[w] = (int) bits;
          return;
        }
      }
      if (writes == MAX_WRITES) {
        tooLarge = true;
        return;
      }
      writeItems[writes] = item;
      writeBits[writes++] = (int) bits;
    }

    @Override
    public void semanticConflict() {
      throw new IllegalArgumentException(body + ": transaction " + tx
          + " met a semantic conflict; CSMV stores have no semantic contention manager");
    }

    @Override
    public void end(Outcome outcome) {
      if (ended == null) {
        ended = outcome;
      }
    }

    @Override
    public boolean live() {
      return ended == null;
    }

    boolean touches(int item) {
      for (int r = 0; r < reads; r++) {
        if (readItems[r] == item) {
          return true;
        }
      }
      for (int w = 0; w < writes; w++) {
        if (writeItems[w] == item) {
          return true;
        }
      }
      return false;
    }
  }

  /** Runs warps {@code worker, worker + workers, ...} to completion. */
  void run(int worker, int workers) {
    // Only threads below the transaction count ever get one: a grid far larger than the batch
    // must not cost a lane per thread (2^30 threads of lanes exhausted the heap).
    int active = Math.min(threads, outcomes.length);
    int warps = (active + WARP - 1) / WARP;
    int mine = warps > worker ? (warps - worker + workers - 1) / workers : 0;
    Lane[][] lanes = new Lane[mine][WARP];
    int[] next = new int[mine];
    boolean[] live = new boolean[mine];
    int liveCount = mine;
    for (int i = 0; i < mine; i++) {
      live[i] = true;
      for (int l = 0; l < WARP; l++) {
        lanes[i][l] = new Lane();
      }
    }
    while (liveCount > 0) {
      for (int i = 0; i < mine; i++) {
        if (!live[i]) {
          continue;
        }
        int warp = worker + i * workers;
        if (!round(warp, lanes[i], threads, next[i]++)) {
          live[i] = false;
          liveCount--;
        }
      }
    }
  }

  /** One round of one warp; false once none of its lanes has work left. */
  private boolean round(int warp, Lane[] lanes, int threads, int roundNo) {
    int n = outcomes.length;
    boolean any = false;
    int snap = store.gts.get();
    for (int l = 0; l < WARP; l++) {
      Lane lane = lanes[l];
      int self = warp * WARP + l;
      if (self >= threads) {
        continue;
      }
      if (lane.tx < 0) {
        lane.tx = self;
        lane.retries = 0;
      }
      if (lane.tx >= n) {
        continue;
      }
      any = true;
      lane.begin(snap);
      long result;
      try {
        result = body.run(lane, lane.tx);
      } catch (DataAge e) {
        abort(lane, Counter.ABORT_DATA_AGE, threads);
        continue;
      }
      if (lane.ended != null) {
        finish(lane, lane.ended, threads);
        continue;
      }
      if (lane.tooLarge) {
        finish(lane, Outcome.TOO_LARGE, threads);
        counters[Counter.TOO_LARGE.ordinal()]++;
        continue;
      }
      if (lane.readOnly) {
        results[lane.tx] = result;
        stamps[lane.tx] = snap;
        counters[Counter.READ_ONLY_COMMITS.ordinal()]++;
        commitHistory(lane, 0);
        finish(lane, Outcome.COMMITTED, threads);
        counters[Counter.COMMITS.ordinal()]++;
        continue;
      }
      results[lane.tx] = result;
    }
    if (!any) {
      return false;
    }
    // Update lanes still holding a transaction that ran to its end this round.
    boolean[] candidate = new boolean[WARP];
    for (int l = 0; l < WARP; l++) {
      Lane lane = lanes[l];
      int self = warp * WARP + l;
      candidate[l] = self < threads && lane.attemptOpen && !lane.readOnly;
    }
    if (prevalidate) {
      for (int l = 0; l < WARP; l++) {
        if (!candidate[l]) {
          continue;
        }
        for (int j = 0; j < l && candidate[l]; j++) {
          if (!candidate[j]) {
            continue;
          }
          for (int w = 0; w < lanes[j].writes; w++) {
            if (lanes[l].touches(lanes[j].writeItems[w])) {
              candidate[l] = false;
              abort(lanes[l], Counter.ABORT_PREVALIDATION, threads);
              break;
            }
          }
        }
      }
    }
    for (int l = 0; l < WARP; l++) {
      if (candidate[l]) {
        commit(lanes[l], threads);
      }
    }
    return true;
  }

  private void commit(Lane lane, int threads) {
    store.commitLock.lock();
    try {
      int g = store.gts.get();
      int r = store.record.length;
      if (g - lane.snapshot > r) {
        abort(lane, Counter.ABORT_RECORD_AGE, threads);
        return;
      }
      for (int c = lane.snapshot + 1; c <= g; c++) {
        for (int item : store.record[c % r]) {
          if (lane.touches(item)) {
            abort(lane, Counter.ABORT_RW_CONFLICT, threads);
            return;
          }
        }
      }
      int cts = g + 1;
      store.record[cts % r] = Arrays.copyOf(lane.writeItems, lane.writes);
      int nv = store.versions;
      long[] positions = new long[lane.writes];
      for (int w = 0; w < lane.writes; w++) {
        int item = lane.writeItems[w];
        int p = store.heads.get(item) + 1;
        store.slots.set(item * nv + p % nv, ((long) cts << 32) | (lane.writeBits[w] & 0xffffffffL));
        store.heads.set(item, p);
        positions[w] = ((long) item << 32) | p;
      }
      store.gts.set(cts);
      stamps[lane.tx] = cts;
      commitHistory(lane, lane.writes);
      if (histCounts != null) {
        int cap = capacity;
        for (int w = 0; w < Math.min(lane.writes, cap); w++) {
          histWrites[lane.tx * cap + w] = positions[w];
        }
      }
    } finally {
      store.commitLock.unlock();
    }
    counters[Counter.COMMITS.ordinal()]++;
    finish(lane, Outcome.COMMITTED, threads);
  }

  private void commitHistory(Lane lane, int writes) {
    if (histCounts == null) {
      return;
    }
    int cap = capacity;
    int base = lane.tx * cap;
    // The read set keeps one entry per read (a program may read a word twice); the history
    // holds each word once, or the repeats could crowd out a later word's read. A snapshot
    // reads a word at one position however often it is read.
    int rs = 0;
    reads:
    for (int i = 0; i < lane.reads; i++) {
      long entry = ((long) lane.readItems[i] << 32) | lane.readPos[i];
      for (int j = 0; j < rs; j++) {
        if (histReads[base + j] == entry) {
          continue reads;
        }
      }
      if (rs == cap) {
        break; // an audit of a whole bank: its history keeps the first words, as on the GPU
      }
      histReads[base + rs++] = entry;
    }
    histCounts[lane.tx] = rs | (Math.min(writes, cap) << 16);
  }

  private void abort(Lane lane, Counter cause, int threads) {
    counters[cause.ordinal()]++;
    lane.attemptOpen = false;
    if (++lane.retries >= options.maxRetries()) {
      counters[Counter.ABANDONED.ordinal()]++;
      finish(lane, Outcome.ABANDONED, threads);
    }
  }

  private void finish(Lane lane, Outcome outcome, int threads) {
    outcomes[lane.tx] = (byte) outcome.ordinal();
    lane.attemptOpen = false;
    lane.tx += threads;
    lane.retries = 0;
  }
}
