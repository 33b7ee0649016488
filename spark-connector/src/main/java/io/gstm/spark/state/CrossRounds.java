package io.gstm.spark.state;

import io.gstm.core.program.StoreContents;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.PackedArrays;
import io.gstm.spark.exec.TaskEngine;
import io.gstm.spark.exec.TaskMesh;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.TaskContext;

/**
 * One partition's share of an epoch's cross-partition transactions, run by every partition's
 * task at once ({@link EpochMesh}), deterministically, in rounds. The keys a transaction touches
 * are known from its columns, so every partition knows, for each of its keys, the cross-partition
 * transactions that name it; it orders them by sequence ({@code row * P + coordinator}, the
 * coordinator being the owner of the transaction's first key, which holds its row).
 *
 * <p>A round: (1) each owner sends, for every key whose first waiting transaction has not had
 * it yet, the key's value to that transaction's coordinator; (2) each coordinator runs, as one
 * batch on its engine, the transactions that now hold all their keys' values (no two share a
 * key: each is first on all of them), and (3) sends every key's new value back to its owner,
 * which moves on to the key's next transaction. The transaction with the lowest sequence still
 * waiting is always first on all its keys, so every round runs at least one, and the rounds end
 * when no coordinator has any left. The outcomes are those of a serial order: every partition's
 * own transactions (run before), then round after round, the transactions of a round in any
 * order. A round costs two exchanges between every two tasks, each round only the keys that
 * move; random transfers over 10 M accounts take about a dozen rounds for 5 M transactions.
 *
 * <p>The owner keeps a host copy of its rows for the rounds ({@link PartitionStore#crossRows})
 * and writes it back once at the end ({@link PartitionStore#crossWrite}).
 */
final class CrossRounds {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CrossRounds.class);

  /**
   * What one partition's task sends another in a step: per entry a transaction (its sequence),
   * a key and, for values and writes, the key's row at its owner (-1: the owner does not hold
   * it; a write names the row it came from), and its value per region (raw bits). {@code
   * count}: with writes, the transactions the sender still has to run.
   */
  record Frame(long count, int n, long[] seqs, long[] keys, int[] rows, long[][] bits) {
    Frame counting(long c) {
      return new Frame(c, n, seqs, keys, rows, bits);
    }

    /** {@code a}'s entries, then {@code b}'s (both with values). */
    static Frame concat(Frame a, Frame b, int regions) {
      if (a.n == 0) {
        return b;
      }
      int n = a.n + b.n;
      long[][] bits = new long[regions][];
      for (int r = 0; r < regions; r++) {
        bits[r] = join(a.bits[r], a.n, b.bits[r], b.n);
      }
      int[] rows = Arrays.copyOf(a.rows, n);
      System.arraycopy(b.rows, 0, rows, a.n, b.n);
      return new Frame(0, n, join(a.seqs, a.n, b.seqs, b.n), join(a.keys, a.n, b.keys, b.n),
          rows, bits);
    }

    private static long[] join(long[] a, int na, long[] b, int nb) {
      long[] all = Arrays.copyOf(a, na + nb);
      System.arraycopy(b, 0, all, na, nb);
      return all;
    }
  }

  /** Atomic increments of {@link #got}: two owners' values of one transaction may meet. */
  private static final java.lang.invoke.VarHandle GOT =
      java.lang.invoke.MethodHandles.arrayElementVarHandle(int[].class);

  static final TaskMesh.Codec<Frame> CODEC = new TaskMesh.Codec<>() {
    @Override
    public void write(DataOutputStream out, Frame f) throws IOException {
      out.writeLong(f.count());
      out.writeInt(f.n());
      PackedArrays.writeLongs(out, f.seqs(), f.n());
      PackedArrays.writeLongs(out, f.keys(), f.n());
      PackedArrays.writeInts(out, f.rows(), f.rows() == null ? -1 : f.n());
      out.writeInt(f.bits() == null ? -1 : f.bits().length);
      if (f.bits() != null) {
        for (long[] b : f.bits()) {
          PackedArrays.writeLongs(out, b, f.n());
        }
      }
    }

    @Override
    public Frame read(DataInputStream in) throws IOException {
      long count = in.readLong();
      int n = in.readInt();
      long[] seqs = PackedArrays.readLongs(in);
      long[] keys = PackedArrays.readLongs(in);
      int[] rows = PackedArrays.readInts(in);
      int regions = in.readInt();
      long[][] bits = regions < 0 ? null : new long[regions][];
      for (int r = 0; r < regions; r++) {
        bits[r] = PackedArrays.readLongs(in);
      }
      return new Frame(count, n, seqs, keys, rows, bits);
    }
  };

  /** The rounds' outcome here: the coordinated transactions' outcomes and the work done. */
  record Result(OutcomeChunk outcomes, Exchange.TaskStats stats, int rounds) {}

  private final PartitionStore ps;
  private final ApplyPlan plan;
  private final GstmSettings settings;
  private final long epoch;
  private final int me;
  private final int p;
  private final int regions;
  private final KeyPartitioner owners;
  /** The epoch's mesh ({@link EpochMesh#CODEC}): frames, once the routed chunks are traded. */
  private final TaskMesh<Object> mesh;

  // As coordinator: the transactions it holds, their distinct keys (txKey[keyFrom[j]..]) and,
  // per key, the value received and the owner's queue it came from (-1: the owner lacks it).
  private final TxChunk cx;
  private final OutcomeChunk out;
  private int[] keyFrom;
  private long[] txKey;
  private int[] valQueue;
  private long[][] valBits;
  private int[] got;

  // As owner: a queue per key named (qRow, qKey; the waiting transactions' sequences qSeq
  // [qStart[d]..], ascending; head[d] the next) and the host copy of the rows.
  private int[] qRow;
  private long[] qKey;
  private int[] qStart;
  private long[] qSeq;
  private int[] head;
  private long[][] contents;
  /** The queues whose next transaction has not had the key's value yet. */
  private int[] fresh = new int[0];
  /** The first round's answers for keys this partition does not hold. */
  private Frame[] missing;
  /** How long {@link #start} took. */
  private long startedNanos;

  CrossRounds(PartitionStore ps, ApplyPlan plan, GstmSettings settings, long epoch, int me,
      TxChunk coordinated, TaskMesh<Object> mesh) {
    this.ps = ps;
    this.plan = plan;
    this.settings = settings;
    this.epoch = epoch;
    this.me = me;
    this.p = plan.state.partitions();
    this.regions = plan.state.regions();
    this.owners = plan.state.partitioner();
    this.mesh = mesh;
    this.cx = coordinated;
    this.out = new OutcomeChunk(epoch, -1, coordinated, plan.outputNames.length);
  }

  private Frame receive(int q) throws IOException, InterruptedException {
    return (Frame) mesh.receive(q);
  }

  private long seq(int j) {
    return (long) j * p + me;
  }

  /** Runs every round with the other partitions' tasks; returns when all are done. */
  Result run() throws IOException, InterruptedException {
    if (keyFrom == null) {
      start();
    }
    // The time of the rounds, from the announce sent before the own transactions (not those).
    long t0 = System.nanoTime() - startedNanos;
    announce();
    long tAnnounced = System.nanoTime();
    long valuesNanos = 0;
    long batchNanos = 0;
    long writesNanos = 0;
    long[] ran = {0, 0};
    String engineName = null;
    boolean gpu = false;
    long pendingHere = cx.n;
    long pendingAll = Long.MAX_VALUE;
    int round = 0;
    // Per round, for the debug line: transactions run, then ms of values, batch and writes.
    StringBuilder perRound = LOG.isDebugEnabled() ? new StringBuilder() : null;
    while (true) {
      long ta = System.nanoTime();
      sendValues(round == 0);
      int[] rows = receiveValues();
      long tb = System.nanoTime();
      valuesNanos += tb - ta;
      Frame[] writes;
      if (rows.length > 0) {
        Arrays.parallelSort(rows);
        try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
          Batch b = runBatch(rows, round, lease);
          ran[0] += b.ran()[0];
          ran[1] += b.ran()[1];
          writes = b.writes();
          engineName = lease.engine().name() + " (" + lease.reason() + ")";
          gpu = lease.gpu();
        }
        pendingHere -= rows.length;
      } else {
        writes = FrameScatter.scatter(0, p, regions, (i, sink) -> { });
      }
      long tw = System.nanoTime();
      batchNanos += tw - tb;
      for (int q = 0; q < p; q++) {
        mesh.send(q, writes[q].counting(pendingHere));
      }
      long left = 0;
      List<int[]> moved = new ArrayList<>();
      for (int q = 0; q < p; q++) {
        Frame f = receive(q);
        left += f.count();
        moved.add(applyWrites(f));
      }
      fresh = concat(moved);
      long te = System.nanoTime();
      writesNanos += te - tw;
      if (perRound != null) {
        perRound.append(String.format(java.util.Locale.ROOT, " %d:%d/%d/%d/%d", round,
            rows.length, (tb - ta) / 1_000_000, (tw - tb) / 1_000_000, (te - tw) / 1_000_000));
      }
      if (round == 0) {
        TaskContext tc = TaskContext.get();
        TxStateHooks.at("cross", me, epoch, tc == null ? 0 : tc.attemptNumber());
      }
      round++;
      if (left == 0) {
        break;
      }
      if (left >= pendingAll) {
        throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch " + epoch
            + ": cross-partition round " + round + " ran no transaction (" + left
            + " waiting)");
      }
      pendingAll = left;
    }
    if (fresh.length > 0) {
      throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch " + epoch
          + ": partition " + me + " still has " + fresh.length + " keys waiting after the "
          + "rounds");
    }
    TaskContext tc = TaskContext.get();
    TxStateHooks.at("writeBack", me, epoch, tc == null ? 0 : tc.attemptNumber());
    if (contents != null) {
      try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
        ps.crossWrite(epoch, contents, lease);
      }
    }
    LOG.debug("gstm state '{}' partition {} epoch {}: {} cross-partition transactions "
            + "coordinated, {} keys owned, {} rounds in {} ms (announce {} ms, values {} ms, "
            + "batches {} ms (engine {} ms), writes {} ms)", plan.state.name(), me, epoch,
        cx.n, qKey.length, round, (System.nanoTime() - t0) / 1_000_000,
        (tAnnounced - t0) / 1_000_000, valuesNanos / 1_000_000, batchNanos / 1_000_000,
        ran[1] / 1_000_000, writesNanos / 1_000_000);
    if (perRound != null) {
      LOG.debug("gstm state '{}' partition {} epoch {}: rounds (round:run/values/batch/writes "
          + "ms){}", plan.state.name(), me, epoch, perRound);
    }
    return new Result(out, new Exchange.TaskStats(ran[0], ran[1], System.nanoTime() - t0,
        engineName, gpu, false), round);
  }

  /** Each coordinated transaction's distinct keys (counted, then placed, on all cores). */
  private void indexCoordinated() {
    int n = cx.n;
    keyFrom = new int[n + 1];
    FrameScatter.chunks(n).forEach(c -> {
      for (int j = FrameScatter.from(c), to = FrameScatter.to(c, n); j < to; j++) {
        int[] slots = plan.keySlotsOf[cx.types[j]];
        int k = 0;
        for (int a = 0; a < slots.length; a++) {
          boolean seen = false;
          for (int b = 0; b < a && !seen; b++) {
            seen = cx.slots[slots[b]][j] == cx.slots[slots[a]][j];
          }
          k += seen ? 0 : 1;
        }
        keyFrom[j + 1] = k;
      }
    });
    for (int j = 0; j < n; j++) {
      keyFrom[j + 1] += keyFrom[j];
    }
    int k = keyFrom[n];
    txKey = new long[k];
    FrameScatter.chunks(n).forEach(c -> {
      for (int j = FrameScatter.from(c), to = FrameScatter.to(c, n); j < to; j++) {
        int[] slots = plan.keySlotsOf[cx.types[j]];
        int x = keyFrom[j];
        for (int a = 0; a < slots.length; a++) {
          long key = cx.slots[slots[a]][j];
          boolean seen = false;
          for (int y = keyFrom[j]; y < x && !seen; y++) {
            seen = txKey[y] == key;
          }
          if (!seen) {
            txKey[x++] = key;
          }
        }
      }
    });
    valQueue = new int[k];
    valBits = new long[regions][k];
    got = new int[n];
  }

  /**
   * Tells every owner which coordinated transactions name its keys. It needs nothing of this
   * partition's own transactions: the task sends it first and runs those while the frames
   * travel ({@link #run} then waits for the others').
   */
  void start() throws IOException {
    long startNanos = System.nanoTime();
    indexCoordinated();
    Frame[] to = FrameScatter.scatter(cx.n, p, -1, (j, sink) -> {
      for (int x = keyFrom[j]; x < keyFrom[j + 1]; x++) {
        sink.put(owners.owner(txKey[x]), seq(j), txKey[x], 0, null, 0);
      }
    });
    for (int q = 0; q < p; q++) {
      mesh.send(q, to[q]);
    }
    startedNanos = System.nanoTime() - startNanos;
  }

  /**
   * Learns which coordinated transactions name this partition's keys (after its own
   * transactions ran) and builds a queue per key (sequences ascending), in the order of the
   * keys' rows.
   */
  private void announce() throws IOException, InterruptedException {
    long t2 = System.nanoTime();
    Frame[] in = new Frame[p];
    int total = 0;
    for (int q = 0; q < p; q++) {
      in[q] = receive(q);
      total += in[q].n();
    }
    long t3 = System.nanoTime();
    long[] pairKey = new long[total];
    long[] pairSeq = new long[total];
    int x = 0;
    for (Frame f : in) {
      System.arraycopy(f.keys(), 0, pairKey, x, f.n());
      System.arraycopy(f.seqs(), 0, pairSeq, x, f.n());
      x += f.n();
    }
    int[] pairRow = new int[0];
    if (total > 0) {
      try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
        PartitionStore.CrossRows rows = ps.crossRows(epoch, pairKey, lease);
        pairRow = rows.rows();
        contents = rows.contents();
      }
    }
    int[] rowOf = pairRow;
    long t4 = System.nanoTime();
    // Keys this partition does not hold: answered in the first round, without a queue.
    missing = FrameScatter.scatter(total, p, regions, (i, sink) -> {
      if (rowOf[i] < 0) {
        sink.put((int) (pairSeq[i] % p), pairSeq[i], pairKey[i], -1, null, 0);
      }
    });
    // The pairs by row (then by arrival), as row << 32 | pair, sorted on all cores.
    long[] byRow = IntStream.range(0, total).parallel().filter(i -> rowOf[i] >= 0)
        .mapToLong(i -> ((long) rowOf[i] << 32) | i).toArray();
    Arrays.parallelSort(byRow);
    int m = byRow.length;
    // Where each queue starts, found and filled on all cores (the gathers are random reads).
    int[] starts = IntStream.range(0, m).parallel()
        .filter(i -> i == 0 || (byRow[i] >>> 32) != (byRow[i - 1] >>> 32)).toArray();
    int d = starts.length;
    qRow = new int[d];
    qKey = new long[d];
    qStart = new int[d + 1];
    qSeq = new long[m];
    FrameScatter.chunks(d).forEach(c -> {
      for (int q = FrameScatter.from(c), end = FrameScatter.to(c, d); q < end; q++) {
        int i = starts[q];
        qRow[q] = (int) (byRow[i] >>> 32);
        qKey[q] = pairKey[(int) byRow[i]];
        qStart[q] = i;
      }
    });
    FrameScatter.chunks(m).forEach(c -> {
      for (int i = FrameScatter.from(c), end = FrameScatter.to(c, m); i < end; i++) {
        qSeq[i] = pairSeq[(int) byRow[i]];
      }
    });
    qStart[d] = m;
    head = Arrays.copyOf(qStart, d);
    IntStream.range(0, d).parallel().forEach(r -> {
      if (qStart[r + 1] - qStart[r] > 1) {
        Arrays.sort(qSeq, qStart[r], qStart[r + 1]);
      }
    });
    fresh = IntStream.range(0, d).toArray();
    LOG.debug("gstm state '{}' partition {} epoch {}: {} keys announced (sent before the own "
        + "transactions in {} ms), then received in {} ms, rows {} ms, queues {} ms",
        plan.state.name(), me, epoch, total, startedNanos / 1_000_000, (t3 - t2) / 1_000_000,
        (t4 - t3) / 1_000_000, (System.nanoTime() - t4) / 1_000_000);
  }

  /**
   * To each coordinator, the values of the keys whose next transaction is its own (with the
   * key's queue, which the write names); in the first round also, for every key this partition
   * does not hold, that it is missing (such a key has no queue: the transaction ends
   * MISSING_KEY). Keys go in row order, so that the rows are read in order.
   */
  private void sendValues(boolean first) throws IOException {
    int[] keys = fresh;
    Arrays.parallelSort(keys);
    Frame[] to = FrameScatter.scatter(keys.length, p, regions, (i, sink) -> {
      int q = keys[i];
      long s = qSeq[head[q]];
      sink.put((int) (s % p), s, qKey[q], q, contents, qRow[q]);
    });
    for (int c = 0; c < p; c++) {
      mesh.send(c, first ? Frame.concat(missing[c], to[c], regions) : to[c]);
    }
    missing = null;
    fresh = new int[0];
  }

  /**
   * Places every value received (on all cores); returns the transactions that now hold all
   * their keys' values.
   */
  private int[] receiveValues() throws IOException, InterruptedException {
    List<int[]> ready = new ArrayList<>();
    for (int q = 0; q < p; q++) {
      Frame f = receive(q);
      int[][] parts = new int[FrameScatter.chunkCount(f.n())][];
      FrameScatter.chunks(f.n()).forEach(c -> {
        int[] mine = new int[16];
        int k = 0;
        for (int i = FrameScatter.from(c), to = FrameScatter.to(c, f.n()); i < to; i++) {
          int j = (int) (f.seqs()[i] / p);
          int x = keyFrom[j];
          while (txKey[x] != f.keys()[i]) {
            x++;
          }
          valQueue[x] = f.rows()[i];
          for (int r = 0; r < regions; r++) {
            valBits[r][x] = f.bits()[r][i];
          }
          if ((int) GOT.getAndAdd(got, j, 1) + 1 == keyFrom[j + 1] - keyFrom[j]) {
            if (k == mine.length) {
              mine = Arrays.copyOf(mine, k * 2);
            }
            mine[k++] = j;
          }
        }
        parts[c] = Arrays.copyOf(mine, k);
      });
      ready.addAll(Arrays.asList(parts));
    }
    return concat(ready);
  }

  /** A round's batch run: the transactions run and the kernel time, and the writes by owner. */
  private record Batch(long[] ran, Frame[] writes) {}

  /**
   * Runs coordinated rows {@code rows} (no two share a key) as one batch on a store of just
   * their keys ({@link RoundStores}: transaction {@code t}'s keys at rows {@code at[t]..}, the
   * values received written, the rest of the store unread; a key its owner lacks has a row no
   * transaction reads: its transaction ends MISSING_KEY), their outcomes into place, their keys'
   * new values to their owners.
   */
  private Batch runBatch(int[] rows, int round, TaskEngine lease) {
    int n = rows.length;
    int[] at = new int[n + 1];
    for (int t = 0; t < n; t++) {
      at[t + 1] = at[t] + keyFrom[rows[t] + 1] - keyFrom[rows[t]];
    }
    TxStore store = ps.roundStores().forRows(at[n], plan.state, lease.engine());
    int size = store.layout().region(0).length();
    long[][] values = new long[regions][size];
    int[][] locals = new int[plan.slots.length][];
    for (int s = 0; s < locals.length; s++) {
      if (plan.slots[s].key()) {
        locals[s] = new int[n];
      }
    }
    FrameScatter.chunks(n).forEach(c -> {
      for (int t = FrameScatter.from(c), to = FrameScatter.to(c, n); t < to; t++) {
        int j = rows[t];
        for (int x = keyFrom[j]; x < keyFrom[j + 1]; x++) {
          for (int r = 0; r < regions; r++) {
            values[r][at[t] + x - keyFrom[j]] = valBits[r][x];
          }
        }
        for (int s : plan.keySlotsOf[cx.types[j]]) {
          int x = keyFrom[j];
          while (txKey[x] != cx.slots[s][j]) {
            x++;
          }
          locals[s][t] = valQueue[x] >= 0 ? at[t] + x - keyFrom[j] : -1;
        }
      }
    });
    TxChunk sub = cx.select(rows);
    OutcomeChunk part = new OutcomeChunk(epoch, -1, sub, plan.outputNames.length);
    StoreContents.write(store, values);
    long serialBase = ((long) (p + round) << 40) + (long) me * ((1L << 40) / p);
    long[] ran = BatchRunner.run(lease.engine(), store, plan, settings, sub, null, locals, part,
        serialBase);
    long[][] after = StoreContents.read(store);
    out.place(part, rows);
    Frame[] writes = FrameScatter.scatter(n, p, regions, (t, sink) -> {
      int j = rows[t];
      for (int x = keyFrom[j]; x < keyFrom[j + 1]; x++) {
        if (valQueue[x] >= 0) {
          sink.put(owners.owner(txKey[x]), seq(j), txKey[x], valQueue[x], after,
              at[t] + x - keyFrom[j]);
        }
      }
    });
    return new Batch(ran, writes);
  }

  /**
   * The new values of this partition's keys (on all cores: a round writes each queue once):
   * each key moves on to its next transaction; returns the queues that did.
   */
  private int[] applyWrites(Frame f) {
    int[][] parts = new int[FrameScatter.chunkCount(f.n())][];
    FrameScatter.chunks(f.n()).forEach(c -> {
      int[] mine = new int[16];
      int k = 0;
      for (int i = FrameScatter.from(c), to = FrameScatter.to(c, f.n()); i < to; i++) {
        int q = f.rows()[i];
        if (q < 0 || q >= qKey.length || qKey[q] != f.keys()[i] || head[q] >= qStart[q + 1]
            || qSeq[head[q]] != f.seqs()[i]) {
          throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch "
              + epoch + ": partition " + me + " got a write of key " + f.keys()[i]
              + " by a transaction that does not hold it");
        }
        int row = qRow[q];
        for (int r = 0; r < regions; r++) {
          contents[r][row] = f.bits()[r][i];
        }
        if (++head[q] < qStart[q + 1]) {
          if (k == mine.length) {
            mine = Arrays.copyOf(mine, k * 2);
          }
          mine[k++] = q;
        }
      }
      parts[c] = Arrays.copyOf(mine, k);
    });
    return concat(Arrays.asList(parts));
  }

  private static int[] concat(List<int[]> parts) {
    int n = 0;
    for (int[] a : parts) {
      n += a.length;
    }
    int[] all = new int[n];
    int k = 0;
    for (int[] a : parts) {
      System.arraycopy(a, 0, all, k, a.length);
      k += a.length;
    }
    return all;
  }
}
