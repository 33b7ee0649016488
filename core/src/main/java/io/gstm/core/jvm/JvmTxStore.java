package io.gstm.core.jvm;

import io.gstm.core.engine.GstmException;
import io.gstm.core.engine.OpenState;
import io.gstm.core.store.Algorithm;
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
  /** The armed batch's copies, per region (those of {@link #copiedMask}); null between batches. */
  private final long[][] copies;
  private volatile boolean armed;
  /** Set when a batch fails: the workers still running end at their next transaction. */
  private volatile boolean stopping;
  /** Regions copied since the last {@link #arm}, one bit each. */
  private volatile long copiedMask;
  private final OpenState open = new OpenState("store");
  private final Algorithm algorithm;

  JvmTxStore(JvmEngine engine, StoreLayout layout) {
    this(engine, layout, Algorithm.prStm());
  }

  /** A lock-table store: PR-STM, GPU-STM, blocking or obstruction-free. */
  JvmTxStore(JvmEngine engine, StoreLayout layout, Algorithm algorithm) {
    this.algorithm = algorithm;
    this.engine = engine;
    this.layout = layout;
    this.locks = new AtomicLongArray(layout.lockCount());
    this.data = new AtomicLongArray[layout.regionCount()];
    this.copies = new long[layout.regionCount()][];
    for (int r = 0; r < data.length; r++) {
      data[r] = new AtomicLongArray(layout.region(r).length());
    }
  }

  JvmEngine engine() {
    return engine;
  }

  /** Word for word, in ranges on all cores, when {@code target} is another JVM store. */
  @Override
  public void copyTo(TxStore target) {
    if (!(target instanceof JvmTxStore t)) {
      TxStore.super.copyTo(target);
      return;
    }
    TxStore.checkCopy(this, target);
    copyRegions(t);
    copy(locks, t.locks);
  }

  /** Word for word onto the first words, in ranges on all cores, into another JVM store. */
  @Override
  public void copyInto(TxStore larger) {
    if (!(larger instanceof JvmTxStore t)) {
      TxStore.super.copyInto(larger);
      return;
    }
    TxStore.checkCopyInto(this, larger);
    copyRegions(t);
  }

  private void copyRegions(JvmTxStore t) {
    checkOpen();
    t.checkOpen();
    for (int r = 0; r < data.length; r++) {
      copy(data[r], t.data[r]);
    }
  }

  /** The words of {@code from} onto the first of {@code to} (as long or longer). */
  private static void copy(AtomicLongArray from, AtomicLongArray to) {
    int n = from.length();
    int chunk = 1 << 16;
    java.util.stream.IntStream ranges = java.util.stream.IntStream.range(0,
        (n + chunk - 1) / chunk);
    (n > chunk ? ranges.parallel() : ranges).forEach(c -> {
      for (int i = c * chunk, end = Math.min(n, i + chunk); i < end; i++) {
        to.setPlain(i, from.getPlain(i));
      }
    });
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
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
  public void writeFloat64At(int region, int offset, double[] values) {
    TxStore.checkRangeWrite(layout(), region, RegionType.FLOAT64, offset, values.length);
    for (int i = 0; i < values.length; i++) {
      data[region].setPlain(offset + i, Double.doubleToRawLongBits(values[i]));
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
   * Arms the failure snapshot of a batch: from now until {@link #disarm}, the first write of a
   * transaction to a region copies that region ({@link #beforeWrite}), so that {@link #restore}
   * can put back what the batch changed if it fails half-way. Only the regions a batch writes
   * are copied (a k-means batch writes its accumulators, not its points). The copies go to one
   * buffer kept with the store (softly: the collector may take it back) and reused by the next
   * batch (the engine runs one batch at a time). A store of more than 64 regions is copied whole
   * here instead. Called before the batch's workers start.
   */
  void arm() {
    stopping = false;
    copiedMask = 0;
    if (data.length > Long.SIZE) {
      for (int r = 0; r < data.length; r++) {
        copy(r);
      }
      copiedMask = -1L;
    }
    armed = true;
  }

  /**
   * Ends the batch's snapshot: writes no longer copy their region, and the copies are held only
   * softly again until the next batch.
   */
  void disarm() {
    armed = false;
    stopping = false;
    java.util.Arrays.fill(copies, null);
  }

  /** Asks the running batch's workers to end: their next transaction throws. */
  void stop() {
    stopping = true;
  }

  /** Lets transactions run again after {@link #stop}. */
  void resume() {
    stopping = false;
  }

  /** Throws if the running batch was stopped (called as a transaction begins). */
  void checkNotStopped() {
    if (stopping) {
      throw new GstmException("batch stopped: another worker failed or the caller was "
          + "interrupted");
    }
  }

  /**
   * Called by a committing transaction before it writes region {@code region}: while a snapshot
   * is armed, the region's first writer copies it (the others wait for the copy), so the copy
   * holds the region as the batch found it.
   */
  void beforeWrite(int region) {
    if (armed && (copiedMask & (1L << region)) == 0) {
      copyOnce(region);
    }
  }

  private synchronized void copyOnce(int region) {
    if ((copiedMask & (1L << region)) == 0) {
      copy(region);
      copiedMask |= 1L << region; // volatile: publishes the copy before any write goes ahead
    }
  }

  private void copy(int region) {
    long[][] buffer = snapshotBuffer == null ? null : snapshotBuffer.get();
    if (buffer == null) {
      buffer = new long[data.length][];
      snapshotBuffer = new SoftReference<>(buffer);
    }
    AtomicLongArray words = data[region];
    if (buffer[region] == null) {
      buffer[region] = new long[words.length()];
    }
    long[] copy = buffer[region];
    for (int i = 0; i < copy.length; i++) {
      copy[i] = words.getPlain(i);
    }
    copies[region] = copy; // strongly held until disarm
  }

  /**
   * Puts back every region the armed batch wrote (after its workers stopped) and releases every
   * lock, keeping the versions.
   */
  void restore() {
    long mask = copiedMask;
    for (int r = 0; r < data.length; r++) {
      if ((mask & (r < Long.SIZE ? 1L << r : -1L)) != 0) {
        long[] copy = copies[r];
        for (int i = 0; i < copy.length; i++) {
          data[r].set(i, copy[i]);
        }
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
    open.check();
  }

  @Override
  public void close() {
    open.close();
    snapshotBuffer = null;
  }
}
