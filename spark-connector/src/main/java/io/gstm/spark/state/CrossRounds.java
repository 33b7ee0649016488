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
import java.util.Arrays;
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
  record Frame(long count, int n, long[] seqs, long[] keys, int[] rows, long[][] bits) {}

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
  private final TaskMesh<Frame> mesh;

  // As coordinator: the transactions it holds, their distinct keys (txKey[keyFrom[j]..]) and,
  // per key, the value received and the owner's queue it came from (-1: the owner lacks it).
  private final TxChunk cx;
  private final OutcomeChunk out;
  private int[] keyFrom;
  private long[] txKey;
  private int[] valQueue;
  private long[][] valBits;
  private int[] got;
  private int[] ready;
  private int readyCount;

  // As owner: a queue per key named (qRow, qKey; the waiting transactions' sequences qSeq
  // [qStart[d]..], ascending; head[d] the next) and the host copy of the rows.
  private int[] qRow;
  private long[] qKey;
  private int[] qStart;
  private long[] qSeq;
  private int[] head;
  private long[][] contents;
  private int[] fresh;
  private int freshCount;
  /** The first round's answers for keys this partition does not hold. */
  private Builder[] missing;

  CrossRounds(PartitionStore ps, ApplyPlan plan, GstmSettings settings, long epoch, int me,
      TxChunk coordinated, TaskMesh<Frame> mesh) {
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

  private long seq(int j) {
    return (long) j * p + me;
  }

  /** Runs every round with the other partitions' tasks; returns when all are done. */
  Result run() throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    indexCoordinated();
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
    while (true) {
      long ta = System.nanoTime();
      sendValues(round == 0);
      receiveValues();
      long tb = System.nanoTime();
      valuesNanos += tb - ta;
      Builder[] writes = builders(true);
      int[] rows = Arrays.copyOf(ready, readyCount);
      readyCount = 0;
      if (rows.length > 0) {
        Arrays.sort(rows);
        try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
          long[] r = runBatch(rows, round, lease, writes);
          ran[0] += r[0];
          ran[1] += r[1];
          engineName = lease.engine().name() + " (" + lease.reason() + ")";
          gpu = lease.gpu();
        }
        pendingHere -= rows.length;
      }
      long tw = System.nanoTime();
      batchNanos += tw - tb;
      for (int q = 0; q < p; q++) {
        mesh.send(q, writes[q].frame(pendingHere));
      }
      long left = 0;
      for (int q = 0; q < p; q++) {
        Frame f = mesh.receive(q);
        left += f.count();
        applyWrites(f);
      }
      writesNanos += System.nanoTime() - tw;
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
    if (freshCount > 0) {
      throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch " + epoch
          + ": partition " + me + " still has " + freshCount + " keys waiting after the rounds");
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
    return new Result(out, new Exchange.TaskStats(ran[0], ran[1], System.nanoTime() - t0,
        engineName, gpu, false), round);
  }

  /** Each coordinated transaction's distinct keys. */
  private void indexCoordinated() {
    int n = cx.n;
    keyFrom = new int[n + 1];
    txKey = new long[Math.max(16, n * 2)];
    int k = 0;
    for (int j = 0; j < n; j++) {
      int start = k;
      for (int s : plan.keySlotsOf[cx.types[j]]) {
        long key = cx.slots[s][j];
        boolean seen = false;
        for (int x = start; x < k && !seen; x++) {
          seen = txKey[x] == key;
        }
        if (!seen) {
          if (k == txKey.length) {
            txKey = Arrays.copyOf(txKey, k * 2);
          }
          txKey[k++] = key;
        }
      }
      keyFrom[j + 1] = k;
    }
    valQueue = new int[k];
    valBits = new long[regions][k];
    got = new int[n];
    ready = new int[Math.max(1, n)];
  }

  /**
   * Tells every owner which coordinated transactions name its keys, learns which name this
   * partition's, and builds a queue per key (sequences ascending), by the key's row.
   */
  private void announce() throws IOException, InterruptedException {
    Builder[] to = builders(false);
    for (int j = 0; j < cx.n; j++) {
      for (int x = keyFrom[j]; x < keyFrom[j + 1]; x++) {
        to[owners.owner(txKey[x])].add(seq(j), txKey[x], 0, null, 0);
      }
    }
    for (int q = 0; q < p; q++) {
      mesh.send(q, to[q].frame(0));
    }
    Frame[] in = new Frame[p];
    int total = 0;
    for (int q = 0; q < p; q++) {
      in[q] = mesh.receive(q);
      total += in[q].n();
    }
    long[] pairKey = new long[total];
    long[] pairSeq = new long[total];
    int x = 0;
    for (Frame f : in) {
      System.arraycopy(f.keys(), 0, pairKey, x, f.n());
      System.arraycopy(f.seqs(), 0, pairSeq, x, f.n());
      x += f.n();
    }
    missing = builders(true);
    if (total == 0) {
      qRow = new int[0];
      qKey = new long[0];
      qStart = new int[1];
      qSeq = new long[0];
      head = new int[0];
      fresh = new int[1];
      return;
    }
    int[] pairRow;
    try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
      PartitionStore.CrossRows rows = ps.crossRows(epoch, pairKey, lease);
      pairRow = rows.rows();
      contents = rows.contents();
    }
    // A counting sort of the pairs by row, then each row's sequences in order.
    int capacity = contents[0].length;
    int[] count = new int[capacity + 1];
    for (int i = 0; i < total; i++) {
      if (pairRow[i] >= 0) {
        count[pairRow[i] + 1]++;
      } else {
        missing[(int) (pairSeq[i] % p)].add(pairSeq[i], pairKey[i], -1, null, 0);
      }
    }
    int d = 0;
    for (int r = 0; r < capacity; r++) {
      d += count[r + 1] > 0 ? 1 : 0;
      count[r + 1] += count[r];
    }
    qSeq = new long[count[capacity]];
    qRow = new int[d];
    qKey = new long[d];
    qStart = new int[d + 1];
    int[] at = Arrays.copyOf(count, capacity);
    for (int i = 0; i < total; i++) {
      if (pairRow[i] >= 0) {
        qSeq[at[pairRow[i]]++] = pairSeq[i];
      }
    }
    int[] queueOfRow = at; // reused: a row's queue
    int q = 0;
    for (int r = 0; r < capacity; r++) {
      if (count[r + 1] > count[r]) {
        qRow[q] = r;
        qStart[q] = count[r];
        queueOfRow[r] = q++;
      }
    }
    qStart[d] = count[capacity];
    for (int i = 0; i < total; i++) {
      if (pairRow[i] >= 0) {
        qKey[queueOfRow[pairRow[i]]] = pairKey[i];
      }
    }
    head = Arrays.copyOf(qStart, d);
    fresh = new int[Math.max(1, d)];
    for (q = 0; q < d; q++) {
      if (qStart[q + 1] - qStart[q] > 1) {
        Arrays.sort(qSeq, qStart[q], qStart[q + 1]);
      }
      fresh[freshCount++] = q;
    }
  }

  /**
   * To each coordinator, the values of the keys whose next transaction is its own (with the
   * key's queue, which the write names); in the first round also, for every key this partition
   * does not hold, that it is missing (such a key has no queue: the transaction ends
   * MISSING_KEY).
   */
  private void sendValues(boolean first) throws IOException {
    Builder[] to = first ? missing : builders(true);
    for (int i = 0; i < freshCount; i++) {
      int q = fresh[i];
      long s = qSeq[head[q]];
      to[(int) (s % p)].add(s, qKey[q], q, contents, qRow[q]);
    }
    freshCount = 0;
    for (int c = 0; c < p; c++) {
      mesh.send(c, to[c].frame(0));
    }
    missing = null;
  }

  /** Places every value received; a transaction that now holds all its keys' is ready. */
  private void receiveValues() throws IOException, InterruptedException {
    for (int q = 0; q < p; q++) {
      Frame f = mesh.receive(q);
      for (int i = 0; i < f.n(); i++) {
        int j = (int) (f.seqs()[i] / p);
        int x = keyFrom[j];
        while (txKey[x] != f.keys()[i]) {
          x++;
        }
        valQueue[x] = f.rows()[i];
        for (int r = 0; r < regions; r++) {
          valBits[r][x] = f.bits()[r][i];
        }
        if (++got[j] == keyFrom[j + 1] - keyFrom[j]) {
          ready[readyCount++] = j;
        }
      }
    }
  }

  /**
   * Runs coordinated rows {@code rows} (no two share a key) as one batch over a store of their
   * keys, their outcomes into place, their keys' new values into {@code writes}; returns the
   * transactions run and the kernel time.
   */
  private long[] runBatch(int[] rows, int round, TaskEngine lease, Builder[] writes) {
    // The store's rows: each held key once, in transaction order (at[t] + its place among the
    // transaction's keys); keys the owners lack have none (their transactions end MISSING_KEY).
    int[] at = new int[rows.length + 1];
    for (int t = 0; t < rows.length; t++) {
      at[t + 1] = at[t] + keyFrom[rows[t] + 1] - keyFrom[rows[t]];
    }
    int[] storeRow = new int[at[rows.length]];
    int m = 0;
    for (int t = 0; t < rows.length; t++) {
      for (int x = keyFrom[rows[t]], y = at[t]; y < at[t + 1]; x++, y++) {
        storeRow[y] = valQueue[x] >= 0 ? m++ : -1;
      }
    }
    long[][] values = new long[regions][Math.max(1, m)];
    int[][] locals = new int[plan.slots.length][];
    for (int s = 0; s < locals.length; s++) {
      if (plan.slots[s].key()) {
        locals[s] = new int[rows.length];
      }
    }
    for (int t = 0; t < rows.length; t++) {
      int j = rows[t];
      for (int x = keyFrom[j], y = at[t]; y < at[t + 1]; x++, y++) {
        if (storeRow[y] >= 0) {
          for (int r = 0; r < regions; r++) {
            values[r][storeRow[y]] = valBits[r][x];
          }
        }
      }
      for (int s : plan.keySlotsOf[cx.types[j]]) {
        int x = keyFrom[j];
        while (txKey[x] != cx.slots[s][j]) {
          x++;
        }
        locals[s][t] = storeRow[at[t] + x - keyFrom[j]];
      }
    }
    TxChunk sub = cx.select(rows);
    OutcomeChunk part = new OutcomeChunk(epoch, -1, sub, plan.outputNames.length);
    long[] ran;
    long[][] after;
    StateSchema schema = plan.state;
    try (TxStore store = lease.engine().createStore(schema.layout(Math.max(1, m)),
        schema.storeAlgorithm())) {
      StoreContents.write(store, values);
      long serialBase = ((long) (p + round) << 40) + (long) me * ((1L << 40) / p);
      ran = BatchRunner.run(lease.engine(), store, plan, settings, sub, null, locals, part,
          serialBase);
      after = StoreContents.read(store);
    }
    out.place(part, rows);
    for (int t = 0; t < rows.length; t++) {
      int j = rows[t];
      for (int x = keyFrom[j], y = at[t]; y < at[t + 1]; x++, y++) {
        if (storeRow[y] >= 0) {
          writes[owners.owner(txKey[x])].add(seq(j), txKey[x], valQueue[x], after, storeRow[y]);
        }
      }
    }
    return ran;
  }

  /** The new values of this partition's keys: each key moves on to its next transaction. */
  private void applyWrites(Frame f) {
    for (int i = 0; i < f.n(); i++) {
      int q = f.rows()[i];
      if (q < 0 || q >= qKey.length || qKey[q] != f.keys()[i] || head[q] >= qStart[q + 1]
          || qSeq[head[q]] != f.seqs()[i]) {
        throw new IllegalStateException("gstm state '" + plan.state.name() + "' epoch " + epoch
            + ": partition " + me + " got a write of key " + f.keys()[i] + " by a transaction "
            + "that does not hold it");
      }
      int row = qRow[q];
      for (int r = 0; r < regions; r++) {
        contents[r][row] = f.bits()[r][i];
      }
      if (++head[q] < qStart[q + 1]) {
        fresh[freshCount++] = q;
      }
    }
  }

  private Builder[] builders(boolean values) {
    Builder[] b = new Builder[p];
    for (int q = 0; q < p; q++) {
      b[q] = new Builder(values);
    }
    return b;
  }

  /** A frame being filled. */
  private final class Builder {
    private long[] seqs = new long[16];
    private long[] keys = new long[16];
    private int[] rows;
    private long[][] bits;
    private int n;

    Builder(boolean values) {
      if (values) {
        rows = new int[16];
        bits = new long[regions][16];
      }
    }

    /** An entry; with values, its row or queue and {@code from[r][at]} (null: zeros). */
    void add(long seq, long key, int row, long[][] from, int at) {
      if (n == seqs.length) {
        seqs = Arrays.copyOf(seqs, n * 2);
        keys = Arrays.copyOf(keys, n * 2);
        if (rows != null) {
          rows = Arrays.copyOf(rows, n * 2);
          for (int r = 0; r < regions; r++) {
            bits[r] = Arrays.copyOf(bits[r], n * 2);
          }
        }
      }
      seqs[n] = seq;
      keys[n] = key;
      if (rows != null) {
        rows[n] = row;
        for (int r = 0; r < regions; r++) {
          bits[r][n] = from == null ? 0 : from[r][at];
        }
      }
      n++;
    }

    Frame frame(long count) {
      return new Frame(count, n, seqs, keys, rows, bits);
    }
  }
}
