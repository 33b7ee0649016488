package io.gstm.spark.state;

import io.gstm.core.engine.Engine;
import io.gstm.core.engine.Resources;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.FreshArrays;
import io.gstm.spark.exec.RecycledArrays;
import io.gstm.spark.exec.TaskEngine;
import java.util.Arrays;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;

/**
 * One partition of a {@link TxState}, resident on its executor: its keys and the rows that hold
 * them ({@link KeySlots}), the store holding the value columns on the executor's engine, and the
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
 *
 * <p>With inserts and deletes, every key an epoch's transactions name gets a row before the
 * batch runs (a row that does not exist yet: {@code exists} 0, every word 0); rows that do not
 * exist are given back when rows run short, only then, and before the epoch's undo copy is
 * taken; the store doubles when they run out ({@link #ensureRows}).
 */
final class PartitionStore {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(PartitionStore.class);
  /** Undo copies put back into a store that grew after them (a test's check). */
  static final java.util.concurrent.atomic.AtomicLong UNDONE_INTO_GROWN =
      new java.util.concurrent.atomic.AtomicLong();
  final long stateId;
  final int partition;
  final long incarnation;
  final StateSchema schema;
  private final KeySlots slots;
  private volatile Engine engine;
  private TxStore store;
  private long applied;
  private long undoBase = -1;
  /** The committed epoch the epoch being applied builds on. */
  private long pendingBase = -1;
  /** The contents before the epoch being applied: a copy on the store's engine (on the GPU). */
  private TxStore undo;
  private Exchange.LocalResult record;
  private long writtenBack = -1;
  private boolean closed;
  /** The stores the cross-partition batches coordinated here run on (an epoch in one stage). */
  private final CrossStores crossStores = new CrossStores();

  private PartitionStore(long stateId, int partition, StateSchema schema, long epoch,
      KeySlots slots, Engine engine, TxStore store) {
    this.stateId = stateId;
    this.partition = partition;
    this.incarnation = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
    this.schema = schema;
    this.slots = slots;
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
    int values = schema.values();
    if (n > schema.maxRows()) {
      throw new IllegalArgumentException("gstm state '" + schema.name() + "' partition "
          + partition + ": " + n + " rows, more than maxRowsPerPartition (" + schema.maxRows()
          + ")");
    }
    // Room to insert into: a quarter more rows, at least 1,024 (the store doubles as it fills).
    int capacity = !schema.insertsAndDeletes() ? Math.max(1, n)
        : (int) Math.min(schema.maxRows(), n + Math.max(1024L, n / 4));
    long[][] contents = new long[schema.regions()][capacity];
    for (int i = 0; i < n; i++) {
      keys[i] = in[order[i]];
      if (i > 0 && keys[i] == keys[i - 1]) {
        throw new IllegalArgumentException("column '" + schema.keyColumn() + "': key "
            + keys[i] + " appears more than once; a state needs distinct keys");
      }
      for (int r = 0; r < values; r++) {
        contents[r][i] = rows.bits()[r][order[i]];
      }
    }
    if (schema.insertsAndDeletes()) {
      Arrays.fill(contents[schema.existsRegion()], 0, n, 1);
    }
    TxStore store = engine.createStore(schema.layout(capacity), schema.storeAlgorithm());
    Resources.closeOnExcept(store, s -> {
      StoreContents.write(s, contents);
      return s;
    });
    return new PartitionStore(stateId, partition, schema, epoch,
        KeySlots.of(keys, schema.insertsAndDeletes()), engine, store);
  }

  Engine engine() {
    return engine;
  }

  synchronized long applied() {
    return applied;
  }

  /** Keys held (in a state with inserts and deletes, some may name rows that do not exist). */
  synchronized int rows() {
    return slots.count();
  }

  /** Rows of the store (held keys, free rows and room to insert). */
  synchronized int capacity() {
    return store.layout().region(0).length();
  }

  /** Phase 1 of epoch {@code epoch}: this partition's own transactions, then the keys asked. */
  synchronized Exchange.LocalResult applyLocal(long epoch, long base, TxChunk in,
      ApplyPlan plan, GstmSettings settings, TaskEngine lease, Exchange.Placement placement) {
    checkOpen();
    if (applied == epoch && record != null) {
      return new Exchange.LocalResult(record.partition(), epoch, record.outcomes(),
          record.requested(), record.stats(), placement, true, record.counts());
    }
    if (epoch < applied) {
      // A task of an epoch that broke off, come late: settling it would undo a newer one.
      throw new IllegalStateException("gstm state '" + schema.name() + "' partition "
          + partition + ": a task of epoch " + epoch + " came after epoch " + applied
          + "; it applies nothing");
    }
    long settling = System.nanoTime();
    settle(base);
    pendingBase = base;
    long t0 = System.nanoTime();
    boolean migrated = onEngine(lease.engine());
    OutcomeChunk out = new OutcomeChunk(epoch, partition, in, plan);
    long[] ran = {0, 0};
    boolean runs = false;
    for (int i = 0; i < in.n && !runs; i++) {
      runs = in.status[i] == 0;
    }
    int[][] locals = runs && slots.growable() ? admit(in, plan) : null;
    long t1 = System.nanoTime();
    if (runs) {
      keepUndo();
    }
    long t2 = System.nanoTime();
    if (runs) {
      ran = BatchRunner.run(engine, store, plan, settings, in, slots, locals, out,
          (long) partition << 40);
    }
    for (int s = 0; locals != null && s < locals.length; s++) {
      RecycledArrays.give(locals[s]); // the batch has run: nothing reads them
    }
    long t3 = System.nanoTime();
    long[] asked = in.distinctRequests();
    Exchange.KeyValues requested = asked.length == 0
        ? Exchange.KeyValues.empty(schema.regions()) : values(asked);
    long t4 = System.nanoTime();
    java.util.Map<String, Long> counts = new TreeMap<>();
    out.count(counts);
    LOG.debug("gstm state '{}' partition {} epoch {}: {} transactions; settle {} ms, outcome "
            + "rows and keys {} ms, undo copy {} ms, batch {} ms (engine {} ms), {} keys asked {} "
            + "ms, counted {} ms", schema.name(), partition, epoch, in.n,
        (t0 - settling) / 1_000_000, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000,
        (t3 - t2) / 1_000_000, ran[1] / 1_000_000, asked.length, (t4 - t3) / 1_000_000,
        (System.nanoTime() - t4) / 1_000_000);
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
      writeRows(writes, "the write-back of epoch " + epoch);
    }
    writtenBack = epoch;
    return true;
  }

  /** Each key's row ({@code -1}: not held) and the contents, read once (see {@link #crossRows}). */
  record CrossRows(int[] rows, long[][] contents) {}

  /**
   * The rows of {@code keys} (a key may repeat) and a host copy of the contents, for the
   * cross-partition batch of epoch {@code epoch} after its own transactions ({@link
   * CrossBatch}, which then changes the copy alone and hands it to {@link #crossWrite}). With
   * inserts and deletes every key gets a row (one that does not exist: zeros).
   */
  synchronized CrossRows crossRows(long epoch, long[] keys, TaskEngine lease) {
    return crossRows(epoch, keys, null, lease);
  }

  /**
   * As {@link #crossRows(long, long[], TaskEngine)}, with the rows {@link #rowsAhead} found
   * ({@code ahead}; null: found now).
   */
  synchronized CrossRows crossRows(long epoch, long[] keys, int[] ahead, TaskEngine lease) {
    checkOpen();
    checkApplying(epoch, "the cross-partition batch");
    onEngine(lease.engine());
    int[] rows = ahead != null ? ahead : rowsOf(keys);
    if (slots.growable()) {
      int more = 0;
      for (int r : rows) {
        more += r < 0 ? 1 : 0;
      }
      if (more > 0) {
        ensureRows(more, false);
        for (int i = 0; i < keys.length; i++) {
          if (rows[i] < 0) {
            int local = slots.local(keys[i]); // a repeated key was added before
            rows[i] = local >= 0 ? local : slots.add(keys[i]);
          }
        }
      }
    }
    return new CrossRows(rows, StoreContents.read(store));
  }

  /**
   * The rows of {@code keys} found before the epoch's own transactions end, while they run (not
   * synchronized: the key set of a state without inserts and deletes never changes, and its
   * index is only read); null for a state whose own transactions may add keys.
   */
  int[] rowsAhead(long[] keys) {
    return slots.growable() ? null : rowsOf(keys);
  }

  private int[] rowsOf(long[] keys) {
    int[] rows = new int[keys.length];
    IntStream.range(0, keys.length).parallel().forEach(i -> rows[i] = slots.local(keys[i]));
    return rows;
  }

  /** The contents the cross-partition batch of epoch {@code epoch} left (undo copy first). */
  synchronized void crossWrite(long epoch, long[][] contents, TaskEngine lease) {
    checkOpen();
    checkApplying(epoch, "the cross-partition batch's write");
    onEngine(lease.engine());
    keepUndo();
    StoreContents.write(store, contents);
  }

  private void checkApplying(long epoch, String what) {
    if (applied != epoch) {
      throw new IllegalStateException("gstm state '" + schema.name() + "' partition "
          + partition + ": " + what + " of epoch " + epoch + " but the partition is at epoch "
          + applied);
    }
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
    long[][] before = StoreContents.read(undo);
    int m = 0;
    int[] at = new int[16];
    for (int i = 0; i < slots.limit(); i++) {
      if (!slots.holds(i)) {
        continue;
      }
      boolean changed = false;
      for (int r = 0; r < regions && !changed; r++) {
        // A row past the undo copy was added by a growth after it: it did not exist then.
        changed = now[r][i] != (i < before[r].length ? before[r][i] : 0);
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
      k[j] = slots.keyAt(at[j]);
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
      writeRows(changes, "the epoch log of epoch " + epoch);
    }
    applied = epoch;
  }

  /** The rows at committed epoch {@code base}. */
  synchronized Exchange.Rows read(long base, TaskEngine lease) {
    checkOpen();
    settle(base);
    onEngine(lease.engine());
    long[][] contents = StoreContents.read(store);
    int exists = schema.existsRegion();
    int n = 0;
    int[] at = new int[slots.count()];
    for (int i = 0; i < slots.limit(); i++) {
      if (slots.holds(i) && (exists < 0 || contents[exists][i] != 0)) {
        at[n++] = i;
      }
    }
    long[] keys = new long[n];
    long[][] bits = new long[contents.length][n];
    for (int j = 0; j < n; j++) {
      keys[j] = slots.keyAt(at[j]);
      for (int r = 0; r < contents.length; r++) {
        bits[r][j] = contents[r][at[j]];
      }
    }
    return new Exchange.Rows(partition, keys, bits);
  }

  synchronized void close() {
    if (!closed) {
      closed = true;
      dropUndo();
      crossStores.close();
      store.close();
    }
  }

  CrossStores crossStores() {
    return crossStores;
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
      int local = slots.local(asked[i]);
      // With inserts and deletes every key has a row: one the state never held does not exist
      // and holds zeros.
      found[i] = local >= 0 || slots.growable();
      if (local >= 0) {
        for (int r = 0; r < contents.length; r++) {
          bits[r][i] = contents[r][local];
        }
      }
    }
    return new Exchange.KeyValues(asked, found, bits);
  }

  /**
   * Gives every key that {@code in}'s runnable rows name a row of the store (inserts and
   * deletes), before the epoch's undo copy: looked up on all cores, then the keys not held
   * added one by one. Returns each key slot's rows, per row (the batch reads them instead of
   * looking the keys up again).
   */
  private int[][] admit(TxChunk in, ApplyPlan plan) {
    int[][] locals = new int[plan.slots.length][];
    int keyed = 0;
    for (ApplyPlan.Slot slot : plan.slots) {
      keyed += slot.key() ? 1 : 0;
    }
    // Recycled (a key slot's rows are written for every runnable row whose program reads it, the
    // only ones read), given back once the batch ran (applyLocal).
    Runnable[] take = new Runnable[keyed];
    for (int s = 0, k = 0; s < locals.length; s++) {
      if (plan.slots[s].key()) {
        int at = s;
        take[k++] = () -> locals[at] = RecycledArrays.ints(in.n);
      }
    }
    FreshArrays.together(in.n, take);
    long t0 = System.nanoTime();
    int[] lacking = lookUp(in, plan, locals, false);
    if (lacking.length == 0) {
      return locals;
    }
    long t1 = System.nanoTime();
    long most = 0;
    for (int i : lacking) {
      most += plan.keySlotsOf[in.types[i]].length;
    }
    if (ensureRows((int) Math.min(Integer.MAX_VALUE, most), true)) {
      lacking = lookUp(in, plan, locals, true); // rows were given back: keys found may be gone
    }
    long t2 = System.nanoTime();
    try {
      addLacking(in, plan, locals, lacking);
    } finally {
      LOG.debug("gstm state '{}' partition {}: keys looked up in {} ms, rows ensured in {} ms, "
          + "{} rows' new keys given rows in {} ms", schema.name(), partition,
          (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, lacking.length,
          (System.nanoTime() - t2) / 1_000_000);
    }
    return locals;
  }

  /** A range of lacking rows' keys that no slot holds: their rows, slots and keys, in order. */
  private record Lacks(int[] rows, int[] slotOf, long[] keys, int count, long lo, long hi) {}

  /**
   * Gives the keys of {@code lacking}'s rows that no slot holds a slot each, in row order: the
   * keys gathered on all cores with their range (the index grows once for all of them), then
   * given slots one after another (the only part that must be), then written into the rows'
   * columns on all cores.
   */
  private void addLacking(TxChunk in, ApplyPlan plan, int[][] locals, int[] lacking) {
    int range = 1 << 16;
    Lacks[] parts = IntStream.range(0, (lacking.length + range - 1) / range).parallel()
        .mapToObj(r -> {
          TxChunk.Slots keys = in.slots();
          int from = r * range;
          int to = Math.min(lacking.length, from + range);
          int most = Math.max(16, (to - from) * 2);
          int[] rows = new int[most];
          int[] slotOf = new int[most];
          long[] ks = new long[most];
          int c = 0;
          long lo = Long.MAX_VALUE;
          long hi = Long.MIN_VALUE;
          for (int j = from; j < to; j++) {
            int i = lacking[j];
            for (int s : plan.keySlotsOf[in.types[i]]) {
              if (locals[s][i] < 0) {
                if (c == rows.length) {
                  rows = Arrays.copyOf(rows, 2 * c);
                  slotOf = Arrays.copyOf(slotOf, 2 * c);
                  ks = Arrays.copyOf(ks, 2 * c);
                }
                long key = keys.get(s, i);
                rows[c] = i;
                slotOf[c] = s;
                ks[c++] = key;
                lo = Math.min(lo, key);
                hi = Math.max(hi, key);
              }
            }
          }
          return new Lacks(rows, slotOf, ks, c, lo, hi);
        }).toArray(Lacks[]::new);
    long count = 0;
    long lo = Long.MAX_VALUE;
    long hi = Long.MIN_VALUE;
    for (Lacks l : parts) {
      count += l.count();
      lo = Math.min(lo, l.lo());
      hi = Math.max(hi, l.hi());
    }
    slots.reserve((int) Math.min(Integer.MAX_VALUE, count), lo, hi);
    int[][] given = new int[parts.length][];
    for (int r = 0; r < parts.length; r++) {
      Lacks l = parts[r];
      int[] g = given[r] = new int[l.count()];
      for (int e = 0; e < l.count(); e++) {
        int local = slots.local(l.keys()[e]); // a key named twice in the chunk was added before
        g[e] = local >= 0 ? local : slots.add(l.keys()[e]);
      }
    }
    IntStream.range(0, parts.length).parallel().forEach(r -> {
      Lacks l = parts[r];
      for (int e = 0; e < l.count(); e++) {
        locals[l.slotOf()[e]][l.rows()[e]] = given[r][e];
      }
    });
  }

  /**
   * Each runnable row's keys into {@code locals} (-1: none), in ranges of rows on all cores; the
   * rows lacking one, ascending. {@code again}: the rows were looked up before some were given
   * back; only those found in a slot given back are lost (the keys are not read again).
   */
  private int[] lookUp(TxChunk in, ApplyPlan plan, int[][] locals, boolean again) {
    int range = 1 << 16;
    int ranges = (in.n + range - 1) / range;
    int[][] lacking = new int[ranges][];
    int[] counts = new int[ranges];
    IntStream.range(0, ranges).parallel().forEach(r -> {
      TxChunk.Slots keys = in.slots();
      int[] rows = new int[64];
      int c = 0;
      for (int i = r * range, to = Math.min(in.n, i + range); i < to; i++) {
        if (in.status[i] != 0) {
          continue;
        }
        boolean lacks = false;
        for (int s : plan.keySlotsOf[in.types[i]]) {
          int local = !again ? slots.local(keys.get(s, i))
              : locals[s][i] >= 0 && slots.holds(locals[s][i]) ? locals[s][i] : -1;
          locals[s][i] = local;
          lacks |= local < 0;
        }
        if (lacks) {
          if (c == rows.length) {
            rows = Arrays.copyOf(rows, 2 * c);
          }
          rows[c++] = i;
        }
      }
      lacking[r] = rows;
      counts[r] = c;
    });
    int total = 0;
    for (int c : counts) {
      total += c;
    }
    int[] all = new int[total];
    for (int r = 0, at = 0; r < ranges; at += counts[r], r++) {
      System.arraycopy(lacking[r], 0, all, at, counts[r]);
    }
    return all;
  }

  /**
   * Room for {@code more} keys: the rows of keys whose row does not exist go back to the free
   * list first when {@code mayRelease} (only before an epoch's undo copy: the epoch log compares
   * rows by place), then the store doubles (at least) up to the state's row limit. Returns
   * whether rows were given back.
   */
  private boolean ensureRows(int more, boolean mayRelease) {
    int capacity = store.layout().region(0).length();
    if (slots.available(capacity) >= more) {
      return false;
    }
    boolean released = false;
    if (mayRelease) {
      int[] exists = store.readInt32(schema.existsRegion());
      released = release(exists);
      if (slots.available(capacity) < more && slots.count() + (long) more > schema.maxRows()
          && slots.dissolveRun()) {
        released |= release(exists); // at the row limit: the ids' own rows are given back too
      }
      if (slots.available(capacity) >= more) {
        return released;
      }
    }
    long needed = (long) slots.count() + more;
    if (needed > schema.maxRows()) {
      throw new IllegalArgumentException("gstm state '" + schema.name() + "' partition "
          + partition + ": " + needed + " rows would be needed (" + slots.count() + " held, "
          + more + " more named by this epoch) but maxRowsPerPartition is " + schema.maxRows()
          + "; raise it, or spread the keys over more partitions. Nothing was applied");
    }
    int rows = (int) Math.max(needed, Math.min(2L * capacity, schema.maxRows()));
    long t0 = System.nanoTime();
    TxStore fresh = engine.createStore(schema.layout(rows), schema.storeAlgorithm());
    Resources.closeOnExcept(fresh, f -> {
      store.copyInto(f); // on the engine (the GPU's own copy), the new rows zeros
      return f;
    });
    store.close();
    store = fresh;
    LOG.info("gstm state '{}' partition {}: grew from {} to {} rows in {} ms", schema.name(),
        partition, capacity, rows, (System.nanoTime() - t0) / 1_000_000);
    return released;
  }

  /**
   * Gives back the slots whose row does not exist ({@code exists} 0) that {@link
   * KeySlots#release} takes; returns whether it took any.
   */
  private boolean release(int[] exists) {
    // Found on all cores (a state of tens of millions of rows), given back in slot order.
    int[] gone = IntStream.range(0, slots.limit()).parallel()
        .filter(i -> exists[i] == 0 && slots.holds(i)).toArray();
    boolean released = false;
    for (int i : gone) {
      released |= slots.release(i);
    }
    return released;
  }

  /** Writes rows by key (a write-back, a logged epoch); with inserts, new keys get rows. */
  private void writeRows(Exchange.KeyValues rows, String what) {
    int n = rows.keys().length;
    if (slots.growable()) {
      int more = 0;
      for (long k : rows.keys()) {
        more += slots.local(k) < 0 ? 1 : 0;
      }
      ensureRows(more, false);
    }
    long[][] contents = StoreContents.read(store);
    for (int i = 0; i < n; i++) {
      long key = rows.keys()[i];
      int local = slots.local(key);
      if (local < 0 && slots.growable()) {
        local = slots.add(key);
      }
      if (local < 0) {
        throw new IllegalStateException(what + " names key " + key + ", which partition "
            + partition + " does not hold");
      }
      for (int r = 0; r < contents.length; r++) {
        contents[r][local] = rows.bits()[r][i];
      }
    }
    StoreContents.write(store, contents);
  }

  /**
   * Puts the undo copy back: it becomes the store (the GPU copies nothing), unless the store
   * grew since it was taken; then its rows go into the grown store, the rows added since as
   * rows that did not exist (zeros).
   */
  private void restoreUndo() {
    if (undo.layout().equals(store.layout())) {
      store.close();
      store = undo;
    } else {
      UNDONE_INTO_GROWN.incrementAndGet();
      long[][] copy = StoreContents.read(undo);
      int rows = store.layout().region(0).length();
      for (int r = 0; r < copy.length; r++) {
        copy[r] = Arrays.copyOf(copy[r], rows);
      }
      StoreContents.write(store, copy);
      undo.close();
    }
    undo = null;
  }

  private void dropUndo() {
    if (undo != null) {
      undo.close();
      undo = null;
    }
  }

  /**
   * Brings this partition to committed epoch {@code base}: an epoch applied after it was never
   * committed (its job failed) and is undone.
   */
  private void settle(long base) {
    if (applied == base) {
      dropUndo();
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
        restoreUndo();
      }
      applied = base;
      dropUndo();
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
      TxStore copy = engine.createStore(store.layout(), schema.storeAlgorithm());
      undo = Resources.closeOnExcept(copy, c -> {
        store.copyTo(c);
        return c;
      });
      undoBase = pendingBase;
    }
  }

  /** Moves the store onto {@code leased} when the task got another (JVM) engine. */
  private boolean onEngine(Engine leased) {
    if (leased == engine) {
      return false;
    }
    TxStore fresh = moved(store, leased);
    store.close();
    store = fresh;
    if (undo != null) {
      TxStore undone = moved(undo, leased);
      undo.close();
      undo = undone;
    }
    engine = leased;
    return true;
  }

  /** A copy of {@code from} on {@code to}, through the host. */
  private TxStore moved(TxStore from, Engine to) {
    long[][] contents = StoreContents.read(from);
    TxStore fresh = to.createStore(from.layout(), schema.storeAlgorithm());
    return Resources.closeOnExcept(fresh, s -> {
      StoreContents.write(s, contents);
      return s;
    });
  }

  private void checkOpen() {
    if (closed) {
      throw new StateLostException("gstm state '" + schema.name() + "' partition " + partition
          + " is closed", partition);
    }
  }
}
