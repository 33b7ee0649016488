package io.gstm.spark.state;

import io.gstm.spark.exec.CachedColumns;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.SpecializedGetters;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.types.UTF8String;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * One input partition's routing: reads each transaction row once, checks what only the data can
 * tell (a null key or value, an unknown program: per-row outcomes), and sends the row to the
 * partition that owns all its keys, or, when its keys have several owners, to the
 * cross-partition phase (bucket {@code P}) with a request to each owner for the values of its
 * keys; for an epoch in one stage ({@code mesh}), to the epoch's coordinator ({@link
 * CrossBatch#coordinator}), in a chunk marked cross. A chunk per target, filled row by row or
 * column batch by column batch.
 */
final class Router {
  private static final Logger LOG = LoggerFactory.getLogger(Router.class);

  private final int inputPartition;
  private final ApplyPlan plan;
  private final KeyPartitioner parts;
  private final int p;
  private final int slotCount;
  /** An epoch in one stage: the partition that coordinates the cross-partition ones (or -1). */
  private final int coordinator;
  private final boolean mesh;
  /** Per target: partitions 0..P-1, then the cross-partition ones (P). */
  private final TxChunk[] out;
  /** One partition: the chunks of {@link Routing#SEGMENT} rows set aside, in order. */
  private final List<TxChunk> full = new ArrayList<>();
  private final Map<UTF8String, Integer> byName = new HashMap<>();
  private final long[] values;
  /**
   * A one-partition state's rows of one program (no program column, no array elements): each
   * checked row's fields go straight into the chunk ({@link #rows}).
   */
  private final boolean direct;
  private final int[] directSlots;
  private final int[] directSources;
  /**
   * Segments of {@link Routing#SEGMENT} rows in columns that {@code RecycledArrays} keeps, given
   * back there after the batch (chunks that never leave the task that routes them).
   */
  boolean pooledSegments;
  /** Rows of a one-partition state's first chunk, when no kept segment is at hand. */
  int firstCapacity = 64;
  private int[] owners = new int[16];
  private long row;
  private final long started = System.nanoTime();
  private int bulkBatches;

  /** Rows read so far. */
  long rows() {
    return row;
  }

  Router(int inputPartition, ApplyPlan plan, int coordinator) {
    this.inputPartition = inputPartition;
    this.plan = plan;
    this.parts = plan.state.partitioner();
    this.p = parts.partitions();
    this.slotCount = plan.slots.length;
    this.coordinator = coordinator;
    this.mesh = coordinator >= 0;
    this.out = new TxChunk[p + 1];
    this.values = new long[slotCount];
    for (int i = 0; i < plan.programNames.length; i++) {
      byName.put(UTF8String.fromString(plan.programNames[i]), i);
    }
    boolean oneProgram = p == 1 && plan.typeIndex < 0;
    for (int s = 0; oneProgram && s < slotCount; s++) {
      oneProgram = plan.slots[s].element() < 0;
    }
    this.direct = oneProgram;
    this.directSlots = oneProgram ? plan.slotsOf[0].clone() : null;
    if (oneProgram) {
      java.util.Arrays.sort(directSlots); // searched when a kept segment is cleared
    }
    this.directSources = new int[oneProgram ? directSlots.length : 0];
    for (int k = 0; k < directSources.length; k++) {
      directSources[k] = plan.slots[directSlots[k]].source();
    }
  }

  /**
   * Every row of {@code it}. A one-partition state's rows of one program go straight into the
   * chunk's columns, in a loop that keeps the columns and how to read each field in locals, no
   * call a row; a row with a null anywhere takes {@link #row}, which finds the field and gives
   * the outcome.
   */
  void rows(Iterator<InternalRow> it) {
    if (!direct) {
      while (it.hasNext()) {
        row(it.next());
      }
      return;
    }
    int idIndex = plan.idIndex;
    long base = (long) inputPartition << 40;
    int width = directSlots.length;
    int[] sources = directSources;
    int[] kinds = new int[width];
    for (int k = 0; k < width; k++) {
      kinds[k] = kind(plan.slots[directSlots[k]]);
    }
    long[][] cols = new long[width][];
    TxChunk c = null;
    long[] ids = null;
    int[] types = null;
    byte[] status = null;
    int at = 0;
    int end = 0;
    long n = row;
    while (it.hasNext()) {
      InternalRow r = it.next();
      if (at == end) {
        if (c != null) {
          c.n = at;
        }
        c = segment();
        ids = c.txIds;
        types = c.types;
        status = c.status;
        for (int k = 0; k < width; k++) {
          cols[k] = c.slots[directSlots[k]];
        }
        at = c.n;
        end = c.capacity();
      }
      if (r.anyNull()) {
        c.n = at;
        row = n;
        row(r); // its outcome, or the row, where a null lies outside what it reads
        n = row;
        c = out[0];
        end = at = c.n; // the columns taken again (segment()) at the next row
        continue;
      }
      ids[at] = idIndex >= 0 ? r.getLong(idIndex) : base | n;
      types[at] = 0;
      status[at] = 0;
      for (int k = 0; k < width; k++) {
        cols[k][at] = bits(r, sources[k], kinds[k]);
      }
      at++;
      n++;
    }
    if (c != null) {
      c.n = at;
    }
    row = n;
  }

  /** One transaction row. */
  void row(InternalRow r) {
    long txId = plan.idIndex >= 0 && !r.isNullAt(plan.idIndex) ? r.getLong(plan.idIndex)
        : ((long) inputPartition << 40) | row;
    row++;
    java.util.Arrays.fill(values, 0L);
    byte status = 0;
    String cause = null;
    int type = 0;
    if (plan.typeIndex >= 0) {
      if (r.isNullAt(plan.typeIndex)) {
        type = -1;
      } else if (plan.typeByName) {
        Integer t = byName.get(r.getUTF8String(plan.typeIndex));
        type = t == null ? -1 : t;
      } else {
        type = plan.typeOf(r.getLong(plan.typeIndex));
      }
      if (type < 0) {
        status = OutcomeChunk.UNKNOWN_PROGRAM;
        cause = "program " + (r.isNullAt(plan.typeIndex) ? "null"
            : "'" + (plan.typeByName ? r.getUTF8String(plan.typeIndex).toString()
                : String.valueOf(r.getLong(plan.typeIndex))) + "'")
            + " is not among " + java.util.Arrays.toString(plan.programNames);
      }
    }
    if (status == 0) {
      for (int s : plan.slotsOf[type]) {
        ApplyPlan.Slot slot = plan.slots[s];
        if (!read(r, slot, values, s)) {
          status = slot.key() ? OutcomeChunk.NULL_KEY : OutcomeChunk.NULL_VALUE;
          cause = (slot.key() ? "key column '" : "column '") + slot.name() + "' is null";
          break;
        }
      }
    }
    if (status == 0) {
      place(txId, type, values);
    } else {
      chunk(out, (int) Math.floorMod(txId, (long) p), slotCount)
          .add(txId, Math.max(type, -1), status, cause, values);
    }
  }

  /** A checked row of program {@code type} to the partition that owns its keys. */
  private void place(long txId, int type, long[] vals) {
    if (p == 1) {
      segment().add(txId, type, (byte) 0, null, vals); // one owner, no keys to look at
      return;
    }
    int nOwners = 0;
    for (int s : plan.keySlotsOf[type]) {
      int o = parts.owner(vals[s]);
      boolean seen = false;
      for (int k = 0; k < nOwners; k++) {
        seen |= owners[k] == o;
      }
      if (!seen) {
        if (nOwners == owners.length) {
          owners = java.util.Arrays.copyOf(owners, nOwners * 2);
        }
        owners[nOwners++] = o;
      }
    }
    int target = nOwners == 0 ? (int) Math.floorMod(txId, (long) p)
        : nOwners == 1 ? owners[0] : p;
    if (target == p && plan.rejectCross) {
      StringBuilder keys = new StringBuilder();
      for (int s : plan.keySlotsOf[type]) {
        keys.append(keys.length() == 0 ? "" : ", ").append(plan.slots[s].name()).append('=')
            .append(vals[s]).append(" (partition ").append(parts.owner(vals[s]))
            .append(')');
      }
      throw new IllegalArgumentException("transaction " + txId + " (program '"
          + plan.programNames[type] + "') spans partitions of state '" + plan.state.name()
          + "': " + keys + "; cross-partition transactions are rejected (crossPartition("
          + "\"reject\")): allow them, or key the state so that they stay in one partition");
    }
    if (target == p && mesh) {
      TxChunk c = chunk(out, p, slotCount);
      c.cross = true;
      c.add(txId, type, (byte) 0, null, vals);
      return;
    }
    (p == 1 ? segment() : chunk(out, target, slotCount)).add(txId, type, (byte) 0, null, vals);
    if (target == p) {
      for (int s : plan.keySlotsOf[type]) {
        chunk(out, parts.owner(vals[s]), slotCount).request(vals[s]);
      }
    }
  }

  /**
   * A whole column batch, when nothing in it needs a per-row check: every row's program known
   * (one program, or a program column without nulls naming programs of the plan), no array
   * elements, no nulls in the columns its programs read. False otherwise (the caller reads its
   * rows).
   */
  boolean bulk(ColumnarBatch b) {
    int n = b.numRows();
    int[] types = plan.typeIndex >= 0 ? types(b.column(plan.typeIndex), n) : null;
    if (plan.typeIndex >= 0 && types == null) {
      return false;
    }
    int[] used = plan.slotsOf[0];
    if (types != null) {
      boolean[] present = new boolean[plan.programCount()];
      for (int t : types) {
        present[t] = true;
      }
      used = slotsOf(present);
    }
    for (int s : used) {
      ApplyPlan.Slot slot = plan.slots[s];
      if (slot.element() >= 0 || b.column(slot.source()).hasNull()) {
        return false;
      }
    }
    if (plan.idIndex >= 0 && b.column(plan.idIndex).hasNull()) {
      return false;
    }
    if (p == 1) {
      bulkInto(b, types, used, n);
      return true;
    }
    long[] ids = plan.idIndex >= 0 ? b.column(plan.idIndex).getLongs(0, n) : new long[n];
    if (plan.idIndex < 0) {
      long base = ((long) inputPartition << 40) | row;
      for (int i = 0; i < n; i++) {
        ids[i] = base + i;
      }
    }
    row += n;
    bulkBatches++;
    Routing.BULK_BATCHES.incrementAndGet();
    long[][] cols = new long[slotCount][];
    for (int s : used) {
      cols[s] = column(b.column(plan.slots[s].source()), plan.slots[s], n);
    }
    if (!plan.rejectCross && placeColumns(ids, types, cols, used, n)) {
      return true;
    }
    long[] vals = new long[slotCount];
    for (int i = 0; i < n; i++) {
      int type = types == null ? 0 : types[i];
      for (int s : plan.slotsOf[type]) {
        vals[s] = cols[s][i];
      }
      place(ids[i], type, vals);
    }
    return true;
  }

  /**
   * A checked batch ({@link #bulk}) into the one partition's chunks: every key is that
   * partition's, so the columns go in whole (a row's program reads only its own slots, whatever
   * the others hold), each value read straight into the chunk's column: no array per column
   * and batch to copy again ({@code getLongs} allocates one and checks each value for null,
   * and a Parquet column in dictionary pages is decoded value by value either way). The chunks
   * are the row path's segments ({@link #segment}): a partition's columns are not copied as
   * they grow.
   */
  private void bulkInto(ColumnarBatch b, int[] types, int[] used, int n) {
    ColumnVector ids = plan.idIndex >= 0 ? b.column(plan.idIndex) : null;
    long base = ((long) inputPartition << 40) | row;
    boolean[] read = new boolean[slotCount];
    for (int s : used) {
      read[s] = true;
    }
    for (int from = 0; from < n; ) {
      TxChunk c = segment();
      int at = c.n;
      int k = Math.min(n - from, c.capacity() - at);
      long[] txIds = c.txIds;
      if (ids != null) {
        for (int i = 0; i < k; i++) {
          txIds[at + i] = ids.getLong(from + i);
        }
      } else {
        for (int i = 0; i < k; i++) {
          txIds[at + i] = base + from + i;
        }
      }
      if (types == null) {
        java.util.Arrays.fill(c.types, at, at + k, 0);
      } else {
        System.arraycopy(types, from, c.types, at, k);
      }
      java.util.Arrays.fill(c.status, at, at + k, (byte) 0);
      for (int s = 0; s < slotCount; s++) {
        if (read[s]) {
          ApplyPlan.Slot slot = plan.slots[s];
          columnInto(b.column(slot.source()), slot, from, c.slots[s], at, k);
        } else {
          // A recycled segment holds an earlier epoch's rows: zeros, as in a fresh chunk.
          java.util.Arrays.fill(c.slots[s], at, at + k, 0L);
        }
      }
      c.n += k;
      from += k;
    }
    row += n;
    bulkBatches++;
    Routing.BULK_BATCHES.incrementAndGet();
  }

  /**
   * A slot's raw bits for rows {@code [from, from + k)} of a column without nulls, into {@code
   * into[at ..]}, value by value (no array of Spark's own to copy again).
   */
  private static void columnInto(ColumnVector v, ApplyPlan.Slot slot, int from, long[] into,
      int at, int k) {
    switch (slot.key() ? io.gstm.core.program.ValueType.INT64 : slot.type()) {
      case INT32 -> {
        for (int i = 0; i < k; i++) {
          into[at + i] = v.getInt(from + i);
        }
      }
      case INT64 -> {
        for (int i = 0; i < k; i++) {
          into[at + i] = v.getLong(from + i);
        }
      }
      case FLOAT32 -> {
        for (int i = 0; i < k; i++) {
          into[at + i] = Float.floatToRawIntBits(v.getFloat(from + i));
        }
      }
      default -> {
        for (int i = 0; i < k; i++) {
          into[at + i] = Double.doubleToRawLongBits(v.getDouble(from + i));
        }
      }
    }
  }

  /** The slots that the programs marked {@code present} read, ascending. */
  private int[] slotsOf(boolean[] present) {
    java.util.BitSet slots = new java.util.BitSet();
    for (int t = 0; t < present.length; t++) {
      if (present[t]) {
        for (int s : plan.slotsOf[t]) {
          slots.set(s);
        }
      }
    }
    return slots.stream().toArray();
  }

  /** One column batch: taken whole when it can be ({@link #bulk}), else row by row. */
  void batch(ColumnarBatch b) {
    if (!bulk(b)) {
      Iterator<InternalRow> rows = b.rowIterator();
      while (rows.hasNext()) {
        row(rows.next());
      }
    }
  }

  /** Room for {@code rows} rows in the one partition's chunk (none when unknown, -1). */
  void presize(long rows) {
    if (rows > 0 && rows <= Integer.MAX_VALUE - 8) {
      chunk(out, 0, slotCount).reserve((int) rows);
    }
  }

  /**
   * A partition's cached batches into its chunk, sized once for their rows, up to the first
   * that {@link #direct} leaves to Spark; returns how many it decoded.
   */
  int directAll(CachedColumns columns, List<CachedBatch> batches) {
    presize(CachedColumns.rows(batches));
    int d = 0;
    while (d < batches.size() && direct(columns, batches.get(d))) {
      d++;
    }
    return d;
  }

  /**
   * A cached batch of a one-partition state's input ({@link Routing#routeCached}): its id column
   * and the program's slots decoded into the chunk's arrays at its end. False, having added
   * nothing, when a column is left to Spark.
   */
  boolean direct(CachedColumns columns, CachedBatch b) {
    TxChunk c = chunk(out, 0, slotCount);
    c.reserve(b.numRows());
    if (!directInto(columns, b, c, c.n)) {
      return false;
    }
    c.n += b.numRows();
    return true;
  }

  /**
   * As {@link #direct}, into rows {@code at}.. of {@code c} (which has room for them), leaving
   * its row count to the caller: partitions decoded side by side into one chunk.
   */
  boolean directInto(CachedColumns columns, CachedBatch b, TxChunk c, int at) {
    int n = b.numRows();
    int[] used = plan.slotsOf[0];
    if (plan.typeIndex >= 0) {
      // Program indices: decoded through the ids' place (written over below), checked.
      if (!columns.readBits(b, plan.typeIndex, c.txIds, at)) {
        return false;
      }
      boolean[] present = new boolean[plan.programCount()];
      for (int i = at; i < at + n; i++) {
        int type = plan.typeOf(c.txIds[i]);
        if (type < 0) {
          return false; // an unknown program: its row's outcome comes from the row path
        }
        c.types[i] = type;
        present[type] = true;
      }
      used = slotsOf(present);
    } else {
      java.util.Arrays.fill(c.types, at, at + n, 0);
    }
    if (plan.idIndex >= 0) {
      if (!columns.readBits(b, plan.idIndex, c.txIds, at)) {
        return false;
      }
    } else {
      long base = ((long) inputPartition << 40) | row;
      for (int i = 0; i < n; i++) {
        c.txIds[at + i] = base + i;
      }
    }
    for (int s : used) {
      if (!columns.readBits(b, plan.slots[s].source(), c.slots[s], at)) {
        return false;
      }
    }
    if (used.length < c.slots.length) {
      // The slots of programs this batch lacks: zeros, as a fresh chunk's (a recycled one's
      // hold an earlier epoch's values).
      boolean[] written = new boolean[c.slots.length];
      for (int s : used) {
        written[s] = true;
      }
      for (int s = 0; s < c.slots.length; s++) {
        if (!written[s]) {
          java.util.Arrays.fill(c.slots[s], at, at + n, 0L);
        }
      }
    }
    // Runnable, whatever a decode that fell back to Spark's batches left there.
    java.util.Arrays.fill(c.status, at, at + n, (byte) 0);
    row += n;
    bulkBatches++;
    Routing.DIRECT_BATCHES.incrementAndGet();
    return true;
  }

  /**
   * Places a checked batch's rows as {@link #place} does, a column at a time: every row's
   * target in one pass, each target's chunk grown once, then the columns scattered (no row
   * object, no per-row append). False, placing nothing, when a row spans partitions outside an
   * epoch in one stage (its owners get requests: row by row).
   */
  private boolean placeColumns(long[] ids, int[] types, long[][] cols, int[] used, int n) {
    int[] target = new int[n];
    int[] count = new int[p + 1];
    for (int i = 0; i < n; i++) {
      int[] keys = plan.keySlotsOf[types == null ? 0 : types[i]];
      int t;
      if (keys.length == 0) {
        t = (int) Math.floorMod(ids[i], (long) p);
      } else {
        t = parts.owner(cols[keys[0]][i]);
        for (int k = 1; k < keys.length && t < p; k++) {
          if (parts.owner(cols[keys[k]][i]) != t) {
            t = p;
          }
        }
      }
      if (t == p && !mesh) {
        return false;
      }
      target[i] = t;
      count[t]++;
    }
    TxChunk[] to = new TxChunk[p + 1];
    int[] next = new int[p + 1];
    for (int t = 0; t <= p; t++) {
      if (count[t] > 0) {
        to[t] = chunk(out, t, slotCount);
        to[t].reserve(count[t]);
        to[t].cross |= t == p;
        next[t] = to[t].n;
      }
    }
    int[] at = new int[n];
    for (int i = 0; i < n; i++) {
      TxChunk c = to[target[i]];
      int k = next[target[i]]++;
      at[i] = k;
      c.txIds[k] = ids[i];
      c.types[k] = types == null ? 0 : types[i];
      c.status[k] = 0;
    }
    for (int s : used) {
      long[] col = cols[s];
      for (int i = 0; i < n; i++) {
        to[target[i]].slots[s][at[i]] = col[i];
      }
    }
    for (int t = 0; t <= p; t++) {
      if (to[t] != null) {
        to[t].n = next[t];
      }
    }
    return true;
  }

  /** Each row's program from the program column, or null when one is null or unknown. */
  private int[] types(ColumnVector v, int n) {
    if (v.hasNull()) {
      return null;
    }
    int[] t = new int[n];
    if (!plan.typeByName) {
      long[] codes = v.getLongs(0, n);
      for (int i = 0; i < n; i++) {
        t[i] = plan.typeOf(codes[i]);
        if (t[i] < 0) {
          return null;
        }
      }
      return t;
    }
    UTF8String last = null;
    int lastType = -1;
    for (int i = 0; i < n; i++) {
      UTF8String name = v.getUTF8String(i);
      if (last == null || !last.equals(name)) {
        Integer ty = byName.get(name);
        if (ty == null) {
          return null;
        }
        last = name.clone();
        lastType = ty;
      }
      t[i] = lastType;
    }
    return t;
  }

  /**
   * A one-partition state's chunk for the next row read one by one: a chunk that is full is
   * set aside whole and the rows go on in a new one of twice its rows (up to {@link
   * Routing#SEGMENT}), so that no row is copied as a chunk grows, nor once more to trim it (the
   * state's task joins the chunks anyway); a small input makes small chunks.
   */
  private TxChunk segment() {
    TxChunk c = out[0];
    if (c != null && c.n < c.capacity()) {
      return c;
    }
    if (c != null) {
      c.source = inputPartition;
      full.add(c.trim()); // full: no copy
      Routing.SEGMENTS.incrementAndGet();
    }
    TxChunk next = pooledSegments ? TxChunk.pooled(slotCount, Routing.SEGMENT) : null;
    if (next != null) {
      // Kept columns hold an earlier epoch's rows: the slots a direct row leaves unwritten
      // are zeros, as a fresh chunk's (a row added whole writes every slot).
      for (int s = 0; direct && s < slotCount; s++) {
        if (java.util.Arrays.binarySearch(directSlots, s) < 0) {
          java.util.Arrays.fill(next.slots[s], 0L);
        }
      }
    } else {
      next = new TxChunk(slotCount,
          c == null ? firstCapacity : Math.min(Routing.SEGMENT, 2 * c.n));
      if (pooledSegments && next.capacity() == Routing.SEGMENT) {
        next.markRecyclable(); // kept for the next epoch's segments
      }
    }
    out[0] = next;
    return next;
  }

  Iterator<Tuple2<Integer, TxChunk>> finish() {
    return finish(true);
  }

  /**
   * The chunks, in order; {@code trim}: the last ones cut to their rows (a chunk that stays in
   * the task that reads it, joined there, need not be).
   */
  Iterator<Tuple2<Integer, TxChunk>> finish(boolean trim) {
    List<Tuple2<Integer, TxChunk>> list = new ArrayList<>();
    for (TxChunk c : full) {
      list.add(new Tuple2<>(0, c));
    }
    for (int t = 0; t < out.length; t++) {
      if (out[t] != null) {
        out[t].source = inputPartition;
        list.add(new Tuple2<>(mesh && t == p ? coordinator : t,
            trim ? out[t].trim() : out[t]));
      }
    }
    LOG.debug("gstm state '{}': input partition {} routed, {} rows ({} column batches taken "
        + "whole) in {} ms", plan.state.name(), inputPartition, row, bulkBatches,
        (System.nanoTime() - started) / 1_000_000);
    return list.iterator();
  }


  /** A slot's raw bits for rows {@code [0, n)} of a column without nulls. */
  private static long[] column(ColumnVector v, ApplyPlan.Slot slot, int n) {
    long[] bits = new long[n];
    columnInto(v, slot, 0, bits, 0, n);
    return bits;
  }

  private static TxChunk chunk(TxChunk[] out, int t, int slotCount) {
    if (out[t] == null) {
      out[t] = new TxChunk(slotCount, 64);
    }
    return out[t];
  }

  /** Puts the slot's raw bits in {@code r} into {@code out[s]}; false when it is null. */
  private static boolean read(InternalRow r, ApplyPlan.Slot slot, long[] out, int s) {
    int i = slot.source();
    if (r.isNullAt(i)) {
      return false;
    }
    if (slot.element() < 0) {
      out[s] = bits(r, i, slot);
      return true;
    }
    ArrayData a = r.getArray(i);
    int e = slot.element();
    if (a.numElements() <= e || a.isNullAt(e)) {
      return false;
    }
    out[s] = bits(a, e, slot);
    return true;
  }

  /** The raw bits of field {@code i} of a row or an array, as the slot's type stores them. */
  private static long bits(SpecializedGetters g, int i, ApplyPlan.Slot slot) {
    return bits(g, i, kind(slot));
  }

  /** How {@link #bits} reads a slot: 0 a long, 1 an int, 2 a float's bits, 3 a double's. */
  private static int kind(ApplyPlan.Slot slot) {
    return slot.key() ? 0 : switch (slot.type()) {
      case INT32 -> 1;
      case INT64 -> 0;
      case FLOAT32 -> 2;
      default -> 3;
    };
  }

  /** The raw bits of field {@code i} read as {@link #kind} says. */
  private static long bits(SpecializedGetters g, int i, int kind) {
    return switch (kind) {
      case 0 -> g.getLong(i);
      case 1 -> g.getInt(i);
      case 2 -> Float.floatToRawIntBits(g.getFloat(i));
      default -> Double.doubleToRawLongBits(g.getDouble(i));
    };
  }
}
