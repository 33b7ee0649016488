package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.exec.FreshArrays;
import io.gstm.spark.exec.NarrowArrays;
import io.gstm.spark.exec.RecycledArrays;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Transactions routed to one partition (or to the cross-partition phase), column by column: per
 * row its id, program, a status (0, or the outcome the routing already decided: a null key, an
 * unknown program) and the raw bits of every slot of the plan; key slots hold the keys. An owner
 * partition's chunk also carries the keys that cross-partition transactions need from it. In
 * an epoch run in one stage ({@link EpochMesh}) a partition's task gets its own chunks and, marked
 * {@link #cross}, those of the cross-partition transactions it coordinates.
 */
// Kryo (spark.serializer) would skip the transient arrays: it serializes this class as Java does.
@DefaultSerializer(JavaSerializer.class)
final class TxChunk implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Rows from which copying and building batches use the executor's other cores. */
  static final int PARALLEL_ROWS = 1 << 18;

  // Every field travels by write/read, the columns in bulk (NarrowArrays), whether through Java
  // serialization (writeObject) or a task-to-task connection: Java serialization writes a
  // primitive array element by element, and a state partition's task read its 5 M routed rows
  // at a few hundred MB/s that way.
  transient int n;
  transient long[] txIds;
  transient int[] types;
  transient byte[] status;
  transient String[] causes;
  transient long[][] slots;
  transient long[] requests = new long[0];
  transient int requestCount;
  /** Cross-partition transactions this partition coordinates (an epoch in one stage). */
  transient boolean cross;
  /** The input partition it was routed from (its place in the epoch's order). */
  transient int source;
  /**
   * Slots a join left in the joined chunks' own arrays ({@link #concat(List, int, boolean[])}):
   * per slot, each part's column, or null; {@link #partStarts} the parts' first rows.
   */
  private transient long[][][] apart;
  private transient int[] partStarts;
  /** Its columns are {@link RecycledArrays}'s, to give back ({@link #recycled}). */
  private transient boolean recyclable;
  /** Its outcomes hold its ids, or its programs ({@link OutcomeChunk}): not given back. */
  transient boolean keptIds;
  transient boolean keptTypes;

  TxChunk(int slotCount, int capacity) {
    this(slotCount, capacity, new boolean[slotCount]);
  }

  /** A chunk whose slots marked in {@code none} get no column (a join holds them apart). */
  private TxChunk(int slotCount, int capacity, boolean[] none) {
    int c = Math.max(1, capacity);
    slots = new long[slotCount][];
    java.util.List<Runnable> fresh = new java.util.ArrayList<>(java.util.List.of(
        () -> txIds = new long[c], () -> types = new int[c], () -> status = new byte[c]));
    for (int s = 0; s < slotCount; s++) {
      int at = s;
      if (!none[at]) {
        fresh.add(() -> slots[at] = new long[c]);
      }
    }
    FreshArrays.together(c, fresh.toArray(new Runnable[0]));
  }

  /**
   * A chunk of {@code capacity} rows whose columns come from {@link RecycledArrays}, of
   * undefined contents (the caller writes every row of each: one epoch's decoding into one
   * chunk), and go back there at {@link #recycle}.
   */
  static TxChunk recycled(int slotCount, int capacity) {
    return recycled(slotCount, capacity, new boolean[slotCount]);
  }

  /** As {@link #recycled(int, int)}, the slots marked in {@code none} without a column. */
  private static TxChunk recycled(int slotCount, int capacity, boolean[] none) {
    int c = Math.max(1, capacity);
    TxChunk chunk = new TxChunk();
    chunk.slots = new long[slotCount][];
    Runnable[] take = new Runnable[slotCount + 3];
    for (int s = 0; s < slotCount; s++) {
      int at = s;
      take[s] = none[at] ? () -> { } : () -> chunk.slots[at] = RecycledArrays.longs(c);
    }
    take[slotCount] = () -> chunk.txIds = RecycledArrays.longs(c);
    take[slotCount + 1] = () -> chunk.types = RecycledArrays.ints(c);
    take[slotCount + 2] = () -> chunk.status = RecycledArrays.bytes(c);
    FreshArrays.together(c, take);
    chunk.recyclable = true;
    return chunk;
  }

  /**
   * A chunk of {@code capacity} rows whose every column {@link RecycledArrays} keeps, of
   * undefined contents, to give back at {@link #recycle}; null, taking nothing, when one is not
   * kept.
   */
  static TxChunk pooled(int slotCount, int capacity) {
    TxChunk chunk = new TxChunk();
    chunk.slots = new long[slotCount][];
    chunk.txIds = RecycledArrays.keptLongs(capacity);
    chunk.types = chunk.txIds == null ? null : RecycledArrays.keptInts(capacity);
    chunk.status = chunk.types == null ? null : RecycledArrays.keptBytes(capacity);
    boolean all = chunk.status != null;
    for (int s = 0; all && s < slotCount; s++) {
      chunk.slots[s] = RecycledArrays.keptLongs(capacity);
      all = chunk.slots[s] != null;
    }
    chunk.recyclable = true;
    if (!all) {
      chunk.recycle(); // what it took goes back
      return null;
    }
    return chunk;
  }

  /** Marks a chunk of fresh columns for {@link #recycle}: nothing else will read them after. */
  void markRecyclable() {
    recyclable = true;
  }

  /** An empty chunk, its columns set by the caller. */
  private TxChunk() {}

  /**
   * Gives a {@link #recycled} chunk's columns back, once its batch has run and nothing reads
   * them (its outcomes copy the status, and keep the ids and programs only where marked {@link
   * #keptIds}, {@link #keptTypes}); a no-op for any other chunk.
   */
  void recycle() {
    if (!recyclable) {
      return;
    }
    recyclable = false;
    for (long[] col : slots) {
      RecycledArrays.give(col);
    }
    RecycledArrays.give(status);
    if (!keptIds) {
      RecycledArrays.give(txIds);
    }
    if (!keptTypes) {
      RecycledArrays.give(types);
    }
    slots = null;
    status = null;
    txIds = null;
    types = null;
  }

  /**
   * Rows {@code from} to {@code to - 1} of key slot {@code s} into {@code dst} as their rows in
   * the store ({@code index}; -1 for a key it lacks), a column at a time; returns whether some
   * key was missing.
   */
  boolean localsInto(int s, int from, int to, BatchRunner.KeyIndex index, int[] dst) {
    int missing = 0;
    long[] own = slots[s];
    if (own != null) {
      for (int i = from; i < to; i++) {
        int local = index.local(own[i]);
        dst[i] = local;
        missing |= local;
      }
      return missing < 0;
    }
    for (int k = part(from), i = from; i < to; k++) {
      int first = partStarts[k];
      int end = Math.min(to, k + 1 < partStarts.length ? partStarts[k + 1] : n);
      long[] col = apart[s][k];
      for (; i < end; i++) {
        int local = index.local(col[i - first]);
        dst[i] = local;
        missing |= local;
      }
    }
    return missing < 0;
  }

  /** The part that holds row {@code i} of slots held apart. */
  private int part(int i) {
    int k = Arrays.binarySearch(partStarts, i);
    return k >= 0 ? k : -k - 2;
  }

  /**
   * A reader of the slots, wherever they are held (see {@link #apart}), for one thread walking
   * rows in order: the part that holds the rows is found once per part.
   */
  Slots slots() {
    return new Slots();
  }

  /** See {@link #slots()}. */
  final class Slots {
    private int first = 1;
    private int end;
    private int part;

    long get(int s, int i) {
      long[] own = slots[s];
      if (own != null) {
        return own[i];
      }
      if (i < first || i >= end) {
        part = part(i);
        first = partStarts[part];
        end = part + 1 < partStarts.length ? partStarts[part + 1] : n;
      }
      return apart[s][part][i - first];
    }
  }

  /** Copies the slots held apart into columns of this chunk's own (before it grows or leaves). */
  private void joinApart() {
    if (apart == null) {
      return;
    }
    for (int s = 0; s < slots.length; s++) {
      if (slots[s] == null) {
        long[] col = new long[txIds.length];
        for (int k = 0; k < partStarts.length; k++) {
          long[] part = apart[s][k];
          int end = k + 1 < partStarts.length ? partStarts[k + 1] : n;
          System.arraycopy(part, 0, col, partStarts[k], end - partStarts[k]);
        }
        slots[s] = col;
      }
    }
    apart = null;
    partStarts = null;
  }

  void add(long txId, int type, byte st, String cause, long[] values) {
    joinApart();
    if (n == txIds.length) {
      resize(n * 2);
    }
    txIds[n] = txId;
    types[n] = type;
    status[n] = st;
    if (cause != null) {
      if (causes == null) {
        causes = new String[txIds.length];
      }
      causes[n] = cause;
    }
    for (int s = 0; s < slots.length; s++) {
      slots[s][n] = values[s];
    }
    n++;
  }

  /** Room for {@code more} rows past {@code n}, grown at most once (at least doubling). */
  void reserve(int more) {
    joinApart(); // a chunk that grows holds every slot in its own columns
    if (n + more > txIds.length) {
      resize(Math.max(n + more, n * 2));
    }
  }

  void request(long key) {
    if (requestCount == requests.length) {
      requests = Arrays.copyOf(requests, Math.max(16, requestCount * 2));
    }
    requests[requestCount++] = key;
  }

  String cause(int row) {
    return causes == null ? null : causes[row];
  }

  /** The requested keys, sorted, without repeats. */
  long[] distinctRequests() {
    long[] r = Arrays.copyOf(requests, requestCount);
    Arrays.sort(r);
    int m = 0;
    for (int i = 0; i < r.length; i++) {
      if (m == 0 || r[m - 1] != r[i]) {
        r[m++] = r[i];
      }
    }
    return Arrays.copyOf(r, m);
  }

  /** Every per-transaction column at capacity {@code c}. */
  private void resize(int c) {
    joinApart();
    txIds = Arrays.copyOf(txIds, c);
    types = Arrays.copyOf(types, c);
    status = Arrays.copyOf(status, c);
    if (causes != null) {
      causes = Arrays.copyOf(causes, c);
    }
    for (int s = 0; s < slots.length; s++) {
      slots[s] = Arrays.copyOf(slots[s], c);
    }
  }

  /** Drops the unused capacity (before the chunk is shuffled). */
  /** Rows it holds before it grows. */
  int capacity() {
    return txIds.length;
  }

  TxChunk trim() {
    if (n < txIds.length) {
      resize(n);
    }
    requests = Arrays.copyOf(requests, requestCount);
    return this;
  }

  private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
    write(out);
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.IOException {
    readFields(in);
  }

  /** The whole chunk, in bulk: for Java serialization and task-to-task connections. */
  void write(java.io.DataOutput out) throws java.io.IOException {
    joinApart();
    out.writeInt(n);
    out.writeInt(requestCount);
    out.writeBoolean(cross);
    out.writeInt(source);
    int withCause = 0;
    for (int i = 0; causes != null && i < n; i++) {
      withCause += causes[i] != null ? 1 : 0;
    }
    out.writeInt(withCause);
    for (int i = 0; withCause > 0 && i < n; i++) {
      if (causes[i] != null) {
        out.writeInt(i);
        out.writeUTF(causes[i]);
      }
    }
    writeColumns(out);
  }

  /** A chunk as {@link #write} wrote it. */
  static TxChunk read(java.io.DataInput in) throws java.io.IOException {
    TxChunk c = new TxChunk(0, 1);
    c.readFields(in);
    return c;
  }

  private void readFields(java.io.DataInput in) throws java.io.IOException {
    n = in.readInt();
    requestCount = in.readInt();
    cross = in.readBoolean();
    source = in.readInt();
    int withCause = in.readInt();
    causes = withCause > 0 ? new String[Math.max(1, n)] : null;
    for (int k = 0; k < withCause; k++) {
      int i = in.readInt();
      causes[i] = in.readUTF();
    }
    readColumns(in);
  }

  // Narrowed: ids from one epoch's range, keys and amounts far inside a long's, mostly one
  // program and no early outcome take about a third of their raw bytes.
  private void writeColumns(java.io.DataOutput out) throws java.io.IOException {
    NarrowArrays.writeLongs(out, txIds, n);
    NarrowArrays.writeInts(out, types, n);
    NarrowArrays.writeBytes(out, status, n);
    out.writeInt(slots.length);
    for (long[] s : slots) {
      NarrowArrays.writeLongs(out, s, n);
    }
    NarrowArrays.writeLongs(out, requests, requestCount);
  }

  private void readColumns(java.io.DataInput in) throws java.io.IOException {
    txIds = NarrowArrays.readLongs(in);
    types = NarrowArrays.readInts(in);
    status = NarrowArrays.readBytes(in);
    slots = new long[in.readInt()][];
    for (int s = 0; s < slots.length; s++) {
      slots[s] = NarrowArrays.readLongs(in);
    }
    requests = NarrowArrays.readLongs(in);
  }

  /** The chunks as one, in order. */
  static TxChunk concat(List<TxChunk> chunks, int slotCount) {
    return concat(chunks, slotCount, null);
  }

  /**
   * The chunks as one, in order, the slots marked in {@code apart} (when not null) left in the
   * chunks' own arrays and read through {@link #slots()}: a one-partition state joins every input
   * partition's chunk, and its key slots are only read, once, to find each row's keys.
   */
  static TxChunk concat(List<TxChunk> chunks, int slotCount, boolean[] apart) {
    if (chunks.size() == 1) {
      return chunks.get(0);
    }
    int total = 0;
    List<TxChunk> parts = new java.util.ArrayList<>();
    for (TxChunk c : chunks) {
      c.joinApart(); // a part read whole
      total += c.n;
      if (c.n > 0) {
        parts.add(c);
      }
    }
    boolean[] keep = new boolean[slotCount];
    boolean anyApart = false;
    for (int s = 0; apart != null && s < slotCount; s++) {
      keep[s] = apart[s] && !parts.isEmpty();
      anyApart |= keep[s];
    }
    // Every row of the join's own columns is written below: recycled columns will do (given
    // back after the batch, by the caller), sparing an epoch's hundreds of MB of fresh memory.
    TxChunk out = RecycledArrays.keeps(total) ? recycled(slotCount, total, keep)
        : new TxChunk(slotCount, total, keep);
    int requests = 0;
    boolean causes = false;
    for (TxChunk c : chunks) {
      requests += c.requestCount;
      causes |= c.causes != null;
    }
    if (causes) {
      out.causes = new String[Math.max(1, total)];
    }
    out.requests = new long[requests];
    int[] rowAt = new int[chunks.size()];
    int[] requestAt = new int[chunks.size()];
    for (int k = 1; k < chunks.size(); k++) {
      rowAt[k] = rowAt[k - 1] + chunks.get(k - 1).n;
      requestAt[k] = requestAt[k - 1] + chunks.get(k - 1).requestCount;
    }
    if (anyApart) {
      out.apart = new long[slotCount][][];
      out.partStarts = new int[parts.size()];
      for (int k = 0, at = 0; k < parts.size(); at += parts.get(k).n, k++) {
        out.partStarts[k] = at;
      }
      for (int s = 0; s < slotCount; s++) {
        if (keep[s]) {
          out.apart[s] = new long[parts.size()][];
          for (int k = 0; k < parts.size(); k++) {
            out.apart[s][k] = parts.get(k).slots[s];
          }
        }
      }
    }
    // A one-partition state gathers every input partition's chunk here: ten million rows are
    // hundreds of MB, copied chunk by chunk on the executor's idle cores.
    IntStream ks = IntStream.range(0, chunks.size());
    (total >= PARALLEL_ROWS ? ks.parallel() : ks).forEach(k -> {
      TxChunk c = chunks.get(k);
      int f = rowAt[k];
      System.arraycopy(c.txIds, 0, out.txIds, f, c.n);
      System.arraycopy(c.types, 0, out.types, f, c.n);
      System.arraycopy(c.status, 0, out.status, f, c.n);
      if (c.causes != null) {
        System.arraycopy(c.causes, 0, out.causes, f, c.n);
      }
      for (int s = 0; s < slotCount; s++) {
        if (!keep[s]) {
          System.arraycopy(c.slots[s], 0, out.slots[s], f, c.n);
        }
      }
      System.arraycopy(c.requests, 0, out.requests, requestAt[k], c.requestCount);
    });
    out.n = total;
    out.requestCount = requests;
    out.cross = chunks.get(0).cross;
    return out;
  }
}
