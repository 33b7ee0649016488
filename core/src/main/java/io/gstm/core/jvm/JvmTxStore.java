package io.gstm.core.jvm;

import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import java.lang.ref.SoftReference;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A store on the Java heap: every word as raw bits in an {@link AtomicLongArray} (32-bit types
 * sign-extended, as the kernels read them), and the lock table as another.
 *
 * <p>The bulk writes ({@code writeInt32} and the others) are plain stores, not volatile ones (a
 * tenth of the cost: they upload whole regions, 1.5 million words per k-means step): a store is
 * written between batches by its owner, and {@link JvmEngine#run} hands each batch to its
 * workers through an executor, which orders those writes before every read of the batch.
 */
final class JvmTxStore implements TxStore {
  private final JvmEngine engine;
  private final StoreLayout layout;
  final AtomicLongArray locks;
  final AtomicLongArray[] data;
  private SoftReference<long[][]> snapshotBuffer;
  private boolean closed;

  JvmTxStore(JvmEngine engine, StoreLayout layout) {
    this.engine = engine;
    this.layout = layout;
    this.locks = new AtomicLongArray(layout.lockCount());
    this.data = new AtomicLongArray[layout.regionCount()];
    for (int r = 0; r < data.length; r++) {
      data[r] = new AtomicLongArray(layout.region(r).length());
    }
  }

  JvmEngine engine() {
    return engine;
  }

  /** Raw bits normalised to how the region stores them: 32-bit words sign-extended. */
  static long normalise(RegionType type, long bits) {
    return type.wordBytes() == 4 ? (long) (int) bits : bits;
  }

  @Override
  public StoreLayout layout() {
    return layout;
  }

  @Override
  public void writeInt32(int region, int[] values) {
    check(region, RegionType.INT32, values.length);
    for (int i = 0; i < values.length; i++) {
      data[region].setPlain(i, values[i]);
    }
  }

  @Override
  public void writeInt64(int region, long[] values) {
    check(region, RegionType.INT64, values.length);
    for (int i = 0; i < values.length; i++) {
      data[region].setPlain(i, values[i]);
    }
  }

  @Override
  public void writeFloat32(int region, float[] values) {
    check(region, RegionType.FLOAT32, values.length);
    for (int i = 0; i < values.length; i++) {
      data[region].setPlain(i, Float.floatToRawIntBits(values[i]));
    }
  }

  @Override
  public void writeFloat64(int region, double[] values) {
    check(region, RegionType.FLOAT64, values.length);
    for (int i = 0; i < values.length; i++) {
      data[region].setPlain(i, Double.doubleToRawLongBits(values[i]));
    }
  }

  @Override
  public int[] readInt32(int region) {
    int[] out = new int[check(region, RegionType.INT32)];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) data[region].get(i);
    }
    return out;
  }

  @Override
  public long[] readInt64(int region) {
    long[] out = new long[check(region, RegionType.INT64)];
    for (int i = 0; i < out.length; i++) {
      out[i] = data[region].get(i);
    }
    return out;
  }

  @Override
  public float[] readFloat32(int region) {
    float[] out = new float[check(region, RegionType.FLOAT32)];
    for (int i = 0; i < out.length; i++) {
      out[i] = Float.intBitsToFloat((int) data[region].get(i));
    }
    return out;
  }

  @Override
  public double[] readFloat64(int region) {
    double[] out = new double[check(region, RegionType.FLOAT64)];
    for (int i = 0; i < out.length; i++) {
      out[i] = Double.longBitsToDouble(data[region].get(i));
    }
    return out;
  }

  @Override
  public int[] lockVersions() {
    checkOpen();
    int[] out = new int[locks.length()];
    for (int i = 0; i < out.length; i++) {
      out[i] = LockWord.version(locks.get(i));
    }
    return out;
  }

  /**
   * A copy of every region's words, to put back if a batch fails half-way. Taken by the engine
   * before it starts the batch's workers (no writer is running: plain reads) into one buffer kept
   * with the store (softly: the collector may take it back) and overwritten by the next snapshot
   * (the engine runs one batch at a time), so that a batch does not allocate a copy of the whole
   * store.
   */
  long[][] snapshot() {
    long[][] buffer = snapshotBuffer == null ? null : snapshotBuffer.get();
    if (buffer == null) {
      buffer = new long[data.length][];
      for (int r = 0; r < data.length; r++) {
        buffer[r] = new long[data[r].length()];
      }
      snapshotBuffer = new SoftReference<>(buffer);
    }
    for (int r = 0; r < data.length; r++) {
      long[] copy = buffer[r];
      AtomicLongArray words = data[r];
      for (int i = 0; i < copy.length; i++) {
        copy[i] = words.getPlain(i);
      }
    }
    return buffer;
  }

  void restore(long[][] snapshot) {
    for (int r = 0; r < data.length; r++) {
      for (int i = 0; i < snapshot[r].length; i++) {
        data[r].set(i, snapshot[r][i]);
      }
    }
    unlockAll();
  }

  /** Releases every lock and pre-lock (after a failed batch), keeping the versions. */
  void unlockAll() {
    for (int i = 0; i < locks.length(); i++) {
      locks.set(i, LockWord.unlocked(LockWord.version(locks.get(i))));
    }
  }

  private void check(int region, RegionType type, int length) {
    checkOpen();
    TxStore.checkRegionWrite(layout, region, type, length);
  }

  private int check(int region, RegionType type) {
    checkOpen();
    RegionSpec spec = layout.region(region);
    TxStore.checkRegionWrite(layout, region, type, spec.length());
    return spec.length();
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
    snapshotBuffer = null;
  }
}
