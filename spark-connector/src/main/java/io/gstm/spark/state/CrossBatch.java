package io.gstm.spark.state;

import io.gstm.core.program.StoreContents;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.Chunks;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.NarrowArrays;
import io.gstm.spark.exec.TaskEngine;
import io.gstm.spark.exec.TaskMesh;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.spark.TaskContext;

/**
 * An epoch's cross-partition transactions in one stage ({@link EpochMesh}): one partition's
 * task, the epoch's coordinator ({@link #coordinator}; the partitions take turns by epoch),
 * holds them all (routing sends them there) and runs them as one batch on its engine, over a
 * store of just the rows they name, which it gathers from their owners:
 *
 * <ol>
 *   <li>before its own transactions run, the coordinator sends every other partition the keys
 *       it owns that the transactions name, one entry per use;
 *   <li>once its own transactions ran, each owner finds those keys' rows, and sends back, per
 *       use, the place of its row among the distinct rows named, and those rows' values;
 *   <li>the coordinator runs the batch (the engine resolves the conflicts among them, as in any
 *       batch) and sends each owner its rows' new values, which the owner writes.
 * </ol>
 *
 * <p>The outcomes are those of a serial order: every partition's own transactions, then the
 * cross-partition ones in the batch's order. Three exchanges between the coordinator and each
 * other partition, whatever the transactions' dependencies; an owner's row goes once however
 * many transactions name it. The owners read and write their rows through a host copy ({@link
 * PartitionStore#crossRows}, {@link PartitionStore#crossWrite}), as the jobs exchange does.
 */
final class CrossBatch {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CrossBatch.class);

  /**
   * What the coordinator and an owner exchange: the keys named (one per use), or an owner's
   * answer (per use, the place of its row among the distinct rows, -1: the owner lacks the key;
   * the distinct rows' values per region, raw bits), or the new values of those rows.
   */
  record Frame(long[] keys, int[] index, long[][] bits) {}

  static final TaskMesh.Codec<Frame> CODEC = new TaskMesh.Codec<>() {
    @Override
    public void write(DataOutputStream out, Frame f) throws IOException {
      NarrowArrays.writeLongs(out, f.keys());
      NarrowArrays.writeInts(out, f.index());
      out.writeInt(f.bits() == null ? -1 : f.bits().length);
      if (f.bits() != null) {
        for (long[] b : f.bits()) {
          NarrowArrays.writeLongs(out, b);
        }
      }
    }

    @Override
    public Frame read(DataInputStream in) throws IOException {
      long[] keys = NarrowArrays.readLongs(in);
      int[] index = NarrowArrays.readInts(in);
      int regions = in.readInt();
      long[][] bits = regions < 0 ? null : new long[regions][];
      for (int r = 0; r < regions; r++) {
        bits[r] = NarrowArrays.readLongs(in);
      }
      return new Frame(keys, index, bits);
    }
  };

  /** What ran here: the coordinated transactions' outcomes (none elsewhere) and the work. */
  record Result(OutcomeChunk outcomes, Exchange.TaskStats stats, int batches) {}

  /** The distinct rows named, ascending, and each use's place among them (-1: no row). */
  record Distinct(int[] rows, int[] index) {}

  private final PartitionStore ps;
  private final ApplyPlan plan;
  private final GstmSettings settings;
  private final long epoch;
  private final int me;
  private final int p;
  private final int regions;
  private final int coordinator;
  private final TaskMesh<Object> mesh;
  /** The transactions coordinated here (none unless this is the coordinator). */
  private final TxChunk cx;
  private final OutcomeChunk out;

  // The coordinator's: per owner, the keys named (one per use) and where each use goes: the
  // transaction and its key slot.
  private long[][] named;
  private int[][] namedTx;
  private int[][] namedSlot;
  private long startNanos;
  // Found while the own transactions run (start): an owner's keys asked, and the rows of the
  // keys this partition holds (null: found after them, see PartitionStore#rowsAhead).
  private long[] asked;
  private int[] ahead;
  private long askedWaitNanos;
  private long aheadNanos;

  CrossBatch(PartitionStore ps, ApplyPlan plan, GstmSettings settings, long epoch, int me,
      TxChunk coordinated, TaskMesh<Object> mesh) {
    this.ps = ps;
    this.plan = plan;
    this.settings = settings;
    this.epoch = epoch;
    this.me = me;
    this.p = plan.state.partitions();
    this.regions = plan.state.regions();
    this.coordinator = coordinator(epoch, p);
    this.mesh = mesh;
    this.cx = coordinated;
    this.out = new OutcomeChunk(epoch, -1, coordinated, plan);
    if (me != coordinator && coordinated.n > 0) {
      throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch " + epoch
          + ": partition " + me + " got " + coordinated.n + " cross-partition transactions; "
          + "partition " + coordinator + " coordinates them");
    }
  }

  /** The partition whose task runs epoch {@code epoch}'s cross-partition transactions. */
  static int coordinator(long epoch, int p) {
    return (int) Math.floorMod(epoch, (long) p);
  }

  /**
   * The coordinator sends every owner the keys it is asked for (it needs nothing of the own
   * transactions: the task sends this first and runs those while the frames travel); an owner
   * receives them. Then each finds the rows of the keys it holds, where the own transactions
   * cannot add keys: the lookups leave the epoch's critical path.
   */
  void start() throws IOException, InterruptedException {
    if (me != coordinator) {
      long t0 = System.nanoTime();
      asked = ((Frame) mesh.receive(coordinator)).keys();
      long t1 = System.nanoTime();
      ahead = ps.rowsAhead(asked);
      askedWaitNanos = t1 - t0;
      aheadNanos = System.nanoTime() - t1;
      return;
    }
    long t0 = System.nanoTime();
    KeyPartitioner owners = plan.state.partitioner();
    int n = cx.n;
    int chunks = Chunks.count(n);
    int[][] count = new int[chunks][p];
    Chunks.of(n).forEach(c -> {
      for (int j = Chunks.from(c), to = Chunks.to(c, n); j < to; j++) {
        for (int s : plan.keySlotsOf[cx.types[j]]) {
          count[c][owners.owner(cx.slots[s][j])]++;
        }
      }
    });
    int[] total = new int[p];
    for (int[] row : count) {
      for (int q = 0; q < p; q++) {
        int k = row[q];
        row[q] = total[q];
        total[q] += k;
      }
    }
    named = new long[p][];
    namedTx = new int[p][];
    namedSlot = new int[p][];
    for (int q = 0; q < p; q++) {
      named[q] = new long[total[q]];
      namedTx[q] = new int[total[q]];
      namedSlot[q] = new int[total[q]];
    }
    Chunks.of(n).forEach(c -> {
      int[] next = count[c];
      for (int j = Chunks.from(c), to = Chunks.to(c, n); j < to; j++) {
        for (int s : plan.keySlotsOf[cx.types[j]]) {
          long key = cx.slots[s][j];
          int q = owners.owner(key);
          int k = next[q]++;
          named[q][k] = key;
          namedTx[q][k] = j;
          namedSlot[q][k] = s;
        }
      }
    });
    for (int q = 0; q < p; q++) {
      if (q != me) {
        mesh.send(q, new Frame(named[q], null, null));
      }
    }
    long t1 = System.nanoTime();
    startNanos = t1 - t0;
    ahead = ps.rowsAhead(named[me]);
    aheadNanos = System.nanoTime() - t1;
  }

  /** This partition's part, after its own transactions ran; returns when it is done. */
  Result run() throws IOException, InterruptedException {
    return me == coordinator ? coordinate() : serve();
  }

  /** An owner's part: its rows to the coordinator, then their new values written. */
  private Result serve() throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    long[] keys = asked != null ? asked : ((Frame) mesh.receive(coordinator)).keys();
    long t1 = System.nanoTime();
    Held held = held(keys, ahead);
    long[][] values = held.values();
    long read = System.nanoTime();
    mesh.send(coordinator, new Frame(null, held.distinct.index(), values));
    long t2 = System.nanoTime();
    hook("cross");
    Frame written = (Frame) mesh.receive(coordinator);
    long t3 = System.nanoTime();
    hook("writeBack");
    held.write(written.bits());
    LOG.debug("gstm state '{}' epoch {} partition {}: {} keys asked by coordinator {}, waited "
            + "{} ms (and {} ms beside the own transactions), {}, rows read in {} ms and sent in "
            + "{} ms ({} distinct), new values waited {} ms, written in {} ms", plan.state.name(),
        epoch, me, keys.length, coordinator, (t1 - t0) / 1_000_000, askedWaitNanos / 1_000_000,
        foundAhead(), (read - t1) / 1_000_000, (t2 - read) / 1_000_000,
        held.distinct.rows().length, (t3 - t2) / 1_000_000,
        (System.nanoTime() - t3) / 1_000_000);
    return new Result(out, new Exchange.TaskStats(0, 0, System.nanoTime() - t0, null, false,
        false), 0);
  }

  /** The coordinator's part: every owner's rows, the batch, the new values to the owners. */
  private Result coordinate() throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    Held own = held(named[me], ahead);
    int[][] index = new int[p][];
    long[][][] bits = new long[p][][];
    index[me] = own.distinct.index();
    bits[me] = own.values();
    long t1 = System.nanoTime();
    for (int q = 0; q < p; q++) {
      if (q != me) {
        Frame f = (Frame) mesh.receive(q);
        index[q] = f.index();
        bits[q] = f.bits();
        if (index[q].length != named[q].length) {
          throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch "
              + epoch + ": partition " + q + " answered " + index[q].length + " of the "
              + named[q].length + " keys asked");
        }
      }
    }
    long t2 = System.nanoTime();
    // Owner q's rows at [at[q], at[q + 1]) of the batch's store.
    int[] at = new int[p + 1];
    for (int q = 0; q < p; q++) {
      at[q + 1] = at[q] + bits[q][0].length;
    }
    long[] ran = {0, 0};
    // Of the batch: gathering the rows and their uses, the store written, the run, read back.
    long[] storeNanos = new long[4];
    String engineName = null;
    boolean gpu = false;
    long[][] after = new long[regions][0];
    if (cx.n > 0) {
      try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
        TxStore store = ps.crossStores().forRows(at[p], plan.state, lease.engine());
        int size = store.layout().region(0).length();
        long[][] values = new long[regions][size];
        for (int q = 0; q < p; q++) {
          for (int r = 0; r < regions; r++) {
            System.arraycopy(bits[q][r], 0, values[r], at[q], bits[q][r].length);
          }
        }
        int[][] locals = new int[plan.slots.length][];
        for (int s = 0; s < locals.length; s++) {
          if (plan.slots[s].key()) {
            locals[s] = new int[cx.n];
          }
        }
        for (int q = 0; q < p; q++) {
          int[] idx = index[q];
          int[] tx = namedTx[q];
          int[] slot = namedSlot[q];
          int base = at[q];
          Chunks.of(idx.length).forEach(c -> {
            for (int k = Chunks.from(c), to = Chunks.to(c, idx.length); k < to; k++) {
              // A key its owner lacks has no row: its transaction ends MISSING_KEY.
              locals[slot[k]][tx[k]] = idx[k] < 0 ? -1 : base + idx[k];
            }
          });
        }
        long w0 = System.nanoTime();
        StoreContents.write(store, values);
        long w1 = System.nanoTime();
        ran = BatchRunner.run(lease.engine(), store, plan, settings, cx, null, locals, out,
            (long) p << 40);
        long w2 = System.nanoTime();
        after = StoreContents.read(store);
        storeNanos = new long[] {w0 - t2, w1 - w0, w2 - w1, System.nanoTime() - w2};
        engineName = lease.engine().name() + " (" + lease.reason() + ")";
        gpu = lease.gpu();
      }
    }
    long t3 = System.nanoTime();
    hook("cross");
    for (int q = 0; q < p; q++) {
      if (q != me) {
        mesh.send(q, new Frame(null, null, slice(after, at[q], at[q + 1])));
      }
    }
    long t4 = System.nanoTime();
    hook("writeBack");
    own.write(slice(after, at[me], at[me + 1]));
    LOG.debug("gstm state '{}' epoch {} partition {}: coordinated {} cross-partition "
            + "transactions over {} rows: keys sent before the own transactions in {} ms, {}, "
            + "own rows read {} ms, the others' waited {} ms, batch {} ms (rows placed {} ms, "
            + "store written {} ms, run {} ms with {} ms of kernel, read {} ms), new values sent "
            + "in {} ms, own written in {} ms", plan.state.name(), epoch, me, cx.n, at[p],
        startNanos / 1_000_000, foundAhead(), (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000,
        (t3 - t2) / 1_000_000, storeNanos[0] / 1_000_000, storeNanos[1] / 1_000_000,
        storeNanos[2] / 1_000_000, ran[1] / 1_000_000, storeNanos[3] / 1_000_000,
        (t4 - t3) / 1_000_000, (System.nanoTime() - t4) / 1_000_000);
    return new Result(out, new Exchange.TaskStats(ran[0], ran[1],
        System.nanoTime() - t0 + startNanos, engineName, gpu, false), cx.n > 0 ? 1 : 0);
  }

  private String foundAhead() {
    return ahead != null ? "own keys' rows found ahead in " + aheadNanos / 1_000_000 + " ms"
        : "own keys' rows found after the own transactions";
  }

  private void hook(String point) {
    TaskContext tc = TaskContext.get();
    TxStateHooks.at(point, me, epoch, tc == null ? 0 : tc.attemptNumber());
  }

  /** Columns {@code [from, to)} of {@code a}, per region. */
  private static long[][] slice(long[][] a, int from, int to) {
    long[][] s = new long[a.length][];
    for (int r = 0; r < a.length; r++) {
      s[r] = a[r].length == to - from ? a[r] : java.util.Arrays.copyOfRange(a[r], from, to);
    }
    return s;
  }

  /** This partition's rows of keys asked for: a host copy of its contents, and the rows named. */
  private final class Held {
    final long[][] contents;
    final Distinct distinct;

    Held(long[][] contents, Distinct distinct) {
      this.contents = contents;
      this.distinct = distinct;
    }

    /** The distinct rows' values, per region. */
    long[][] values() {
      int[] rows = distinct.rows();
      long[][] v = new long[regions][rows.length];
      for (int r = 0; r < regions; r++) {
        long[] from = contents == null ? null : contents[r];
        long[] to = v[r];
        Chunks.of(rows.length).forEach(c -> {
          for (int i = Chunks.from(c), end = Chunks.to(c, rows.length); i < end; i++) {
            to[i] = from[rows[i]];
          }
        });
      }
      return v;
    }

    /** The distinct rows' new values into the contents, which go back to the store. */
    void write(long[][] bits) {
      int[] rows = distinct.rows();
      if (bits.length != regions || bits[0].length != rows.length) {
        throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch " + epoch
            + ": partition " + me + " got " + bits[0].length + " new values for "
            + rows.length + " rows");
      }
      if (contents == null) {
        return;
      }
      for (int r = 0; r < regions; r++) {
        long[] from = bits[r];
        long[] to = contents[r];
        Chunks.of(rows.length).forEach(c -> {
          for (int i = Chunks.from(c), end = Chunks.to(c, rows.length); i < end; i++) {
            to[rows[i]] = from[i];
          }
        });
      }
      try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
        ps.crossWrite(epoch, contents, lease);
      }
    }
  }

  /**
   * The rows of {@code keys} here (none asked: nothing read, nothing written back); {@code
   * ahead}: their rows as {@link PartitionStore#rowsAhead} found them, or null.
   */
  private Held held(long[] keys, int[] ahead) {
    if (keys.length == 0) {
      return new Held(null, new Distinct(new int[0], new int[0]));
    }
    PartitionStore.CrossRows rows;
    try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
      rows = ps.crossRows(epoch, keys, ahead, lease);
    }
    return new Held(rows.contents(), distinct(rows.rows(), rows.contents()[0].length));
  }

  /**
   * The distinct rows among {@code rows} (each below {@code limit}; -1: none), ascending, and
   * each entry's place among them: marked, counted and placed on all cores.
   */
  static Distinct distinct(int[] rows, int limit) {
    int[] place = new int[limit];
    Chunks.of(rows.length).forEach(c -> {
      for (int i = Chunks.from(c), to = Chunks.to(c, rows.length); i < to; i++) {
        if (rows[i] >= 0) {
          place[rows[i]] = 1;
        }
      }
    });
    int chunks = Chunks.count(limit);
    int[] start = new int[chunks + 1];
    Chunks.of(limit).forEach(c -> {
      int k = 0;
      for (int r = Chunks.from(c), to = Chunks.to(c, limit); r < to; r++) {
        k += place[r];
      }
      start[c + 1] = k;
    });
    for (int c = 0; c < chunks; c++) {
      start[c + 1] += start[c];
    }
    int[] distinct = new int[start[chunks]];
    Chunks.of(limit).forEach(c -> {
      int k = start[c];
      for (int r = Chunks.from(c), to = Chunks.to(c, limit); r < to; r++) {
        if (place[r] != 0) {
          distinct[k] = r;
          place[r] = k++;
        }
      }
    });
    int[] index = new int[rows.length];
    Chunks.of(rows.length).forEach(c -> {
      for (int i = Chunks.from(c), to = Chunks.to(c, rows.length); i < to; i++) {
        index[i] = rows[i] < 0 ? -1 : place[rows[i]];
      }
    });
    return new Distinct(distinct, index);
  }
}
