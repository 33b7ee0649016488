package io.gstm.spark.state;

import io.gstm.core.engine.Engine;
import io.gstm.core.engine.Resources;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.TaskEngine;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One partition of a {@link TxState}, resident on its executor: its keys (ascending; a key's
 * local row is its rank), the store holding the value columns on the executor's engine, and the
 * epoch bookkeeping that makes every apply take effect once.
 *
 * <p>{@code applied} is the last epoch applied here; it may be ahead of the driver's committed
 * epoch while that epoch's job runs. Before the first change of an epoch the store's contents
 * are kept ({@code undo}); a task of a later epoch names the committed epoch it builds on
 * ({@code base}): if this partition applied an epoch the driver never committed (its job
 * failed), the undo copy puts it back first. A task of an epoch already applied here (a retry,
 * a speculative copy, a recomputed stage) gets the recorded result and changes nothing. Every
 * method holds this object's lock; callers take their engine lease before calling (lease, then
 * lock: a task never waits for a GPU permit while it holds a partition).
 */
final class PartitionStore {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PartitionStore.class);
  final long stateId;
  final int partition;
  final long incarnation;
  final StateSchema schema;
  final long[] keys;
  private final BatchRunner.KeyIndex index;
  private volatile Engine engine;
  private TxStore store;
  private long applied;
  private long undoBase = -1;
  /** The committed epoch the epoch being applied builds on. */
  private long pendingBase = -1;
  private long[][] undo;
  private Exchange.LocalResult record;
  private long writtenBack = -1;
  private boolean closed;

  private PartitionStore(long stateId, int partition, StateSchema schema, long epoch,
      long[] keys, BatchRunner.KeyIndex index, Engine engine, TxStore store) {
    this.stateId = stateId;
    this.partition = partition;
    this.incarnation = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    this.schema = schema;
    this.keys = keys;
    this.index = index;
    this.engine = engine;
    this.store = store;
    this.applied = epoch;
  }

  /**
   * A partition of {@code rows}' keys (distinct, any order) and values at epoch {@code epoch},
   * on {@code engine}. A repeated key is an IllegalArgumentException naming it.
   */
  static PartitionStore create(long stateId, int partition, StateSchema schema, long epoch,
      Exchange.Rows rows, Engine engine) {
    int n = rows.keys().length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    long[] in = rows.keys();
    Arrays.sort(order, (a, b) -> Long.compare(in[a], in[b]));
    long[] keys = new long[n];
    int regions = schema.regions();
    long[][] contents = new long[regions][Math.max(1, n)];
    for (int i = 0; i < n; i++) {
      keys[i] = in[order[i]];
      if (i > 0 && keys[i] == keys[i - 1]) {
        throw new IllegalArgumentException("column '" + schema.keyColumn() + "': key "
            + keys[i] + " appears more than once; a state needs distinct keys");
      }
      for (int r = 0; r < regions; r++) {
        contents[r][i] = rows.bits()[r][order[i]];
      }
    }
    BatchRunner.KeyIndex index = KeyIndexes.of(keys);
    TxStore store = engine.createStore(schema.layout(n), schema.storeAlgorithm());
    Resources.closeOnExcept(store, s -> {
      StoreContents.write(s, contents);
      return s;
    });
    return new PartitionStore(stateId, partition, schema, epoch, keys, index, engine, store);
  }

  Engine engine() {
    return engine;
  }

  synchronized long applied() {
    return applied;
  }

  int rows() {
    return keys.length;
  }

  /** Phase 1 of epoch {@code epoch}: this partition's own transactions, then the keys asked. */
  synchronized Exchange.LocalResult applyLocal(long epoch, long base, TxChunk in,
      ApplyPlan plan, GstmSettings settings, TaskEngine lease, Exchange.Placement placement) {
    checkOpen();
    if (applied == epoch && record != null) {
      return new Exchange.LocalResult(record.partition(), epoch, record.outcomes(),
          record.requested(), record.stats(), placement, true, record.counts());
    }
    settle(base);
    pendingBase = base;
    long t0 = System.nanoTime();
    boolean migrated = onEngine(lease.engine());
    OutcomeChunk out = new OutcomeChunk(epoch, partition, in, plan.outputNames.length);
    long[] ran = {0, 0};
    boolean runs = false;
    for (int i = 0; i < in.n && !runs; i++) {
      runs = in.status[i] == 0;
    }
    long t1 = System.nanoTime();
    if (runs) {
      keepUndo();
    }
    long t2 = System.nanoTime();
    if (runs) {
      ran = BatchRunner.run(engine, store, plan, settings, in, index, out,
          (long) partition << 40);
    }
    long t3 = System.nanoTime();
    long[] asked = in.distinctRequests();
    Exchange.KeyValues requested = asked.length == 0
        ? Exchange.KeyValues.empty(schema.regions()) : values(asked);
    LOG.debug("gstm state '{}' partition {} epoch {}: {} transactions; settle {} ms, undo copy "
            + "{} ms, batch {} ms (engine {} ms), {} keys asked {} ms", schema.name(), partition,
        epoch, in.n, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000,
        ran[1] / 1_000_000, asked.length, (System.nanoTime() - t3) / 1_000_000);
    java.util.Map<String, Long> counts = new TreeMap<>();
    out.count(counts);
    Exchange.TaskStats stats = new Exchange.TaskStats(ran[0], ran[1], System.nanoTime() - t0,
        lease.engine().name() + " (" + lease.reason() + ")", lease.gpu(), migrated);
    applied = epoch;
    record = new Exchange.LocalResult(partition, epoch, out, requested, stats, placement, false,
        counts);
    return record;
  }

  /** Phase 3 of epoch {@code epoch}: the cross-partition phase's new values of this partition. */
  synchronized boolean writeBack(long epoch, Exchange.KeyValues writes, TaskEngine lease) {
    checkOpen();
    if (applied != epoch) {
      throw new IllegalStateException("gstm state '" + schema.name() + "' partition "
          + partition + ": write-back of epoch " + epoch + " but the partition is at epoch "
          + applied);
    }
    if (writtenBack == epoch) {
      return false; // a retry: already written
    }
    if (writes.keys().length > 0) {
      onEngine(lease.engine());
      keepUndo();
      long[][] contents = StoreContents.read(store);
      for (int i = 0; i < writes.keys().length; i++) {
        int local = index.local(writes.keys()[i]);
        if (local < 0) {
          throw new IllegalStateException("write-back names key " + writes.keys()[i]
              + ", which partition " + partition + " does not hold");
        }
        for (int r = 0; r < contents.length; r++) {
          contents[r][local] = writes.bits()[r][i];
        }
      }
      StoreContents.write(store, contents);
    }
    writtenBack = epoch;
    return true;
  }

  /** The rows epoch {@code epoch} changed here (against the undo copy), for the epoch log. */
  synchronized Exchange.KeyValues changes(long epoch) {
    checkOpen();
    if (applied != epoch) {
      throw new IllegalStateException("gstm state '" + schema.name() + "' partition "
          + partition + ": logging epoch " + epoch + " but the partition is at epoch " + applied);
    }
    int regions = schema.regions();
    if (undoBase < 0) {
      return new Exchange.KeyValues(new long[0], new boolean[0], new long[regions][0]);
    }
    long[][] now = StoreContents.read(store);
    int m = 0;
    int[] at = new int[16];
    for (int i = 0; i < keys.length; i++) {
      boolean changed = false;
      for (int r = 0; r < regions && !changed; r++) {
        changed = now[r][i] != undo[r][i];
      }
      if (changed) {
        if (m == at.length) {
          at = Arrays.copyOf(at, m * 2);
        }
        at[m++] = i;
      }
    }
    long[] k = new long[m];
    long[][] bits = new long[regions][m];
    for (int j = 0; j < m; j++) {
      k[j] = keys[at[j]];
      for (int r = 0; r < regions; r++) {
        bits[r][j] = now[r][at[j]];
      }
    }
    return new Exchange.KeyValues(k, new boolean[m], bits);
  }

  /** Recovery: applies a committed epoch's logged changes; the partition is then at it. */
  synchronized void replay(long epoch, Exchange.KeyValues changes) {
    checkOpen();
    if (changes.keys().length > 0) {
      long[][] contents = StoreContents.read(store);
      for (int i = 0; i < changes.keys().length; i++) {
        int local = index.local(changes.keys()[i]);
        if (local < 0) {
          throw new IllegalStateException("the epoch log of epoch " + epoch + " names key "
              + changes.keys()[i] + ", which partition " + partition + " does not hold");
        }
        for (int r = 0; r < contents.length; r++) {
          contents[r][local] = changes.bits()[r][i];
        }
      }
      StoreContents.write(store, contents);
    }
    applied = epoch;
  }

  /** The rows at committed epoch {@code base}. */
  synchronized Exchange.Rows read(long base, TaskEngine lease) {
    checkOpen();
    settle(base);
    onEngine(lease.engine());
    long[][] contents = StoreContents.read(store);
    for (int r = 0; r < contents.length; r++) {
      contents[r] = Arrays.copyOf(contents[r], keys.length);
    }
    return new Exchange.Rows(partition, keys.clone(), contents);
  }

  synchronized void close() {
    if (!closed) {
      closed = true;
      store.close();
    }
  }

  synchronized boolean isClosed() {
    return closed;
  }

  /** Current values of {@code asked} (ascending). */
  private Exchange.KeyValues values(long[] asked) {
    long[][] contents = StoreContents.read(store);
    boolean[] found = new boolean[asked.length];
    long[][] bits = new long[contents.length][asked.length];
    for (int i = 0; i < asked.length; i++) {
      int local = index.local(asked[i]);
      found[i] = local >= 0;
      if (local >= 0) {
        for (int r = 0; r < contents.length; r++) {
          bits[r][i] = contents[r][local];
        }
      }
    }
    return new Exchange.KeyValues(asked, found, bits);
  }

  /**
   * Brings this partition to committed epoch {@code base}: an epoch applied after it was never
   * committed (its job failed) and is undone.
   */
  private void settle(long base) {
    if (applied == base) {
      undo = null;
      undoBase = -1;
      record = null;
      return;
    }
    if (applied > base) {
      if (undoBase >= 0) {
        if (undoBase != base) {
          throw new IllegalStateException("gstm state '" + schema.name() + "' partition "
              + partition + " can undo back to epoch " + undoBase + " only, not " + base);
        }
        StoreContents.write(store, undo);
      }
      applied = base;
      undo = null;
      undoBase = -1;
      record = null;
      writtenBack = -1;
      return;
    }
    throw new StateLostException("gstm state '" + schema.name() + "' partition " + partition
        + " is at epoch " + applied + " but the driver committed epoch " + base
        + ": it missed committed epochs", partition);
  }

  private void keepUndo() {
    if (undoBase < 0) {
      undo = StoreContents.read(store);
      undoBase = pendingBase;
    }
  }

  /** Moves the store onto {@code leased} when the task got another (JVM) engine. */
  private boolean onEngine(Engine leased) {
    if (leased == engine) {
      return false;
    }
    long[][] contents = StoreContents.read(store);
    TxStore fresh = leased.createStore(store.layout(), schema.storeAlgorithm());
    Resources.closeOnExcept(fresh, s -> {
      StoreContents.write(s, contents);
      return s;
    });
    store.close();
    store = fresh;
    engine = leased;
    return true;
  }

  private void checkOpen() {
    if (closed) {
      throw new StateLostException("gstm state '" + schema.name() + "' partition " + partition
          + " is closed", partition);
    }
  }
}
