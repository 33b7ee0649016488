package io.gstm.core.jvm;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A CSMV store on the heap: per item (every 32-bit word of every region) a head (the position of
 * its newest version; position p lives in ring slot p mod N) and N slots, each one 64-bit word
 * {@code commitTimestamp << 32 | value} so that a value and its timestamp are always read
 * together; the global timestamp; and the commit record (write sets of the last R commits).
 * Twin of {@code gstm/csmv.cuh}: the same ring protocol.
 */
final class JvmCsmvStore implements TxStore {
  private final JvmEngine engine;
  private final StoreLayout layout;
  private final Algorithm algorithm;
  final int versions;
  final int items;
  final AtomicIntegerArray heads;
  final AtomicLongArray slots;
  final AtomicInteger gts = new AtomicInteger();
  /** Commit record: the items commit c wrote sit at c mod R. Guarded by {@link #commitLock}. */
  final int[][] record;
  final ReentrantLock commitLock = new ReentrantLock();
  private boolean closed;

  JvmCsmvStore(JvmEngine engine, StoreLayout layout, Algorithm algorithm) {
    checkLayout(layout);
    this.engine = engine;
    this.layout = layout;
    this.algorithm = algorithm;
    this.versions = algorithm.versions();
    this.items = (int) layout.wordCount();
    this.heads = new AtomicIntegerArray(items);
    this.slots = new AtomicLongArray(Math.multiplyExact(items, versions));
    this.record = new int[algorithm.recordEntries()][];
  }

  /** CSMV items are 32-bit words; a store needs addressable items. */
  static void checkLayout(StoreLayout layout) {
    for (RegionSpec r : layout.regions()) {
      if (r.type().wordBytes() != 4) {
        throw new IllegalArgumentException("region '" + r.name() + "' holds " + r.type()
            + ": CSMV stores hold 4-byte words (INT32, FLOAT32) only");
      }
    }
    if (layout.wordCount() > Integer.MAX_VALUE / Algorithm.MAX_VERSIONS) {
      throw new IllegalArgumentException("regions: " + layout.wordCount() + " words exceed the "
          + "CSMV limit of " + Integer.MAX_VALUE / Algorithm.MAX_VERSIONS + " items");
    }
  }

  JvmEngine engine() {
    return engine;
  }

  @Override
  public StoreLayout layout() {
    return layout;
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public CsmvMemory csmvMemory() {
    // heads (4 B) + slots (8 B each): the paper's 4 + (4 + 4) x N per 4-byte item.
    return CsmvMemory.of(items, 4, versions, 4L * heads.length() + 8L * slots.length());
  }

  int item(int region, int index) {
    return (int) layout.wordBase(region) + index;
  }

  /** The newest value of an item (outside transactions). */
  int newest(int item) {
    return (int) slots.get(item * versions + heads.get(item) % versions);
  }

  /** Replaces an item by one version at timestamp 0 (outside transactions, between batches). */
  private void reset(int item, int bits) {
    heads.set(item, 0);
    for (int v = 0; v < versions; v++) {
      slots.set(item * versions + v, 0L);
    }
    slots.set(item * versions, bits & 0xffffffffL);
  }

  private void put(int region, RegionType type, int length, java.util.function.IntUnaryOperator f) {
    checkOpen();
    TxStore.checkRegionWrite(layout, region, type, length);
    int base = item(region, 0);
    for (int i = 0; i < length; i++) {
      reset(base + i, f.applyAsInt(i));
    }
  }

  @Override
  public void writeInt32(int region, int[] values) {
    put(region, RegionType.INT32, values.length, i -> values[i]);
  }

  @Override
  public void writeInt64(int region, long[] values) {
    TxStore.checkRegionWrite(layout, region, RegionType.INT64, values.length);
  }

  @Override
  public void writeFloat32(int region, float[] values) {
    put(region, RegionType.FLOAT32, values.length, i -> Float.floatToRawIntBits(values[i]));
  }

  @Override
  public void writeFloat64(int region, double[] values) {
    TxStore.checkRegionWrite(layout, region, RegionType.FLOAT64, values.length);
  }

  private int[] get(int region, RegionType type) {
    checkOpen();
    RegionSpec spec = layout.region(region);
    TxStore.checkRegionWrite(layout, region, type, spec.length());
    int[] out = new int[spec.length()];
    int base = item(region, 0);
    for (int i = 0; i < out.length; i++) {
      out[i] = newest(base + i);
    }
    return out;
  }

  @Override
  public int[] readInt32(int region) {
    return get(region, RegionType.INT32);
  }

  @Override
  public long[] readInt64(int region) {
    get(region, RegionType.INT64);
    return new long[0];
  }

  @Override
  public float[] readFloat32(int region) {
    int[] bits = get(region, RegionType.FLOAT32);
    float[] out = new float[bits.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Float.intBitsToFloat(bits[i]);
    }
    return out;
  }

  @Override
  public double[] readFloat64(int region) {
    get(region, RegionType.FLOAT64);
    return new double[0];
  }

  @Override
  public int[] lockVersions() {
    checkOpen();
    int[] out = new int[items];
    for (int i = 0; i < items; i++) {
      out[i] = heads.get(i);
    }
    return out;
  }

  /** Everything a failed batch must put back. */
  record Snapshot(int[] heads, long[] slots, int gts, int[][] record) {}

  Snapshot snapshot() {
    long[] s = new long[slots.length()];
    for (int i = 0; i < s.length; i++) {
      s[i] = slots.get(i);
    }
    return new Snapshot(lockVersions(), s, gts.get(), record.clone());
  }

  void restore(Snapshot snap) {
    for (int i = 0; i < items; i++) {
      heads.set(i, snap.heads()[i]);
    }
    for (int i = 0; i < snap.slots().length; i++) {
      slots.set(i, snap.slots()[i]);
    }
    gts.set(snap.gts());
    System.arraycopy(snap.record(), 0, record, 0, record.length);
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store is closed");
    }
  }

  @Override
  public void close() {
    if (closed) {
      throw new IllegalStateException("store already closed");
    }
    closed = true;
  }
}
