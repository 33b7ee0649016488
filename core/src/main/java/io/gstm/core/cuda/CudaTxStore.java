package io.gstm.core.cuda;

import io.gstm.core.engine.OpenState;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;

/**
 * A store in device memory: one buffer per region and one for the lock table, zero-filled at
 * creation and resident across batches. The lock table serves PR-STM, GPU-STM and Cederman's
 * STMs alike; the algorithm chooses the kernels. Owned by its {@link CudaEngine}.
 */
final class CudaTxStore implements TxStore {
  private final CudaEngine engine;
  private final StoreLayout layout;
  private final Algorithm algorithm;
  final DeviceBuffer locks;
  final DeviceBuffer[] regions;
  /** Each region's bytes (its buffer, from the engine's pool, may be larger). */
  final long[] regionBytes;
  private final OpenState open = new OpenState("store");

  CudaTxStore(CudaEngine engine, StoreLayout layout, Algorithm algorithm) {
    this.engine = engine;
    this.layout = layout;
    this.algorithm = algorithm;
    long[] bytes = new long[1 + layout.regionCount()];
    bytes[0] = 8L * layout.lockCount();
    for (int r = 0; r < layout.regionCount(); r++) {
      RegionSpec spec = layout.region(r);
      bytes[1 + r] = (long) spec.type().wordBytes() * spec.length();
    }
    // From the engine's pool (a graph relaxer's store of GBs is made for every Spark run):
    // a buffer may be larger than its region, whose own size is kept here.
    DeviceBuffer[] held = engine.bufferPool().takeAll(true, bytes);
    this.locks = held[0];
    this.regions = Arrays.copyOfRange(held, 1, held.length);
    this.regionBytes = Arrays.copyOfRange(bytes, 1, bytes.length);
  }

  CudaEngine engine() {
    return engine;
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public StoreLayout layout() {
    return layout;
  }

  @Override
  public void writeInt32(int region, int[] values) {
    put(region, RegionType.INT32, values.length, Pointer.to(values),
        (b, from, n) -> b.asIntBuffer().put(values, from, n));
  }

  @Override
  public void writeInt64(int region, long[] values) {
    put(region, RegionType.INT64, values.length, Pointer.to(values),
        (b, from, n) -> b.asLongBuffer().put(values, from, n));
  }

  @Override
  public void writeFloat32(int region, float[] values) {
    put(region, RegionType.FLOAT32, values.length, Pointer.to(values),
        (b, from, n) -> b.asFloatBuffer().put(values, from, n));
  }

  @Override
  public void writeFloat64(int region, double[] values) {
    put(region, RegionType.FLOAT64, values.length, Pointer.to(values),
        (b, from, n) -> b.asDoubleBuffer().put(values, from, n));
  }

  @Override
  public void writeFloat64At(int region, int offset, double[] values) {
    checkOpen();
    TxStore.checkRangeWrite(layout, region, RegionType.FLOAT64, offset, values.length);
    engine.bind();
    engine.staging().uploadArrayAt(regions[region], 8L * offset, 8L * values.length, 8,
        Pointer.to(values), (b, from, n) -> b.asDoubleBuffer().put(values, from, n));
  }

  @Override
  public int[] readInt32(int region) {
    int[] out = new int[length(region, RegionType.INT32)];
    get(region, Pointer.to(out), 4, (b, from, n) -> b.asIntBuffer().get(out, from, n));
    return out;
  }

  @Override
  public long[] readInt64(int region) {
    long[] out = new long[length(region, RegionType.INT64)];
    get(region, Pointer.to(out), 8, (b, from, n) -> b.asLongBuffer().get(out, from, n));
    return out;
  }

  @Override
  public float[] readFloat32(int region) {
    float[] out = new float[length(region, RegionType.FLOAT32)];
    get(region, Pointer.to(out), 4, (b, from, n) -> b.asFloatBuffer().get(out, from, n));
    return out;
  }

  @Override
  public double[] readFloat64(int region) {
    double[] out = new double[length(region, RegionType.FLOAT64)];
    readFloat64(region, out);
    return out;
  }

  @Override
  public void readFloat64(int region, double[] into) {
    int n = length(region, RegionType.FLOAT64);
    if (into.length != n) {
      throw new IllegalArgumentException("into: region " + region + " holds " + n
          + " words, the array " + into.length);
    }
    get(region, Pointer.to(into), 8, (b, from, k) -> b.asDoubleBuffer().get(into, from, k));
  }

  @Override
  public int[] lockVersions() {
    checkOpen();
    engine.bind();
    long[] words = new long[layout.lockCount()];
    locks.download(Pointer.to(words), 8L * words.length);
    int[] versions = new int[words.length];
    for (int i = 0; i < words.length; i++) {
      versions[i] = (int) (words[i] >>> 32);
    }
    return versions;
  }

  /** On the device when {@code target} is another store of this engine. */
  @Override
  public void copyTo(TxStore target) {
    checkOpen();
    if (!sameEngine(target)) {
      TxStore.super.copyTo(target);
      return;
    }
    TxStore.checkCopy(this, target);
    CudaTxStore t = (CudaTxStore) target;
    copyRegions(t);
    locks.copyTo(t.locks, 8L * layout.lockCount());
  }

  /** On the device when {@code larger} is another store of this engine. */
  @Override
  public void copyInto(TxStore larger) {
    checkOpen();
    if (!sameEngine(larger)) {
      TxStore.super.copyInto(larger);
      return;
    }
    TxStore.checkCopyInto(this, larger);
    copyRegions((CudaTxStore) larger);
  }

  private boolean sameEngine(TxStore other) {
    return other instanceof CudaTxStore t && t.engine == engine;
  }

  /** Each region onto the first bytes of {@code t}'s, device to device. */
  private void copyRegions(CudaTxStore t) {
    t.checkOpen();
    engine.bind();
    // On the default stream, as the staging buffer's DMAs: ordered after the writes before it.
    for (int r = 0; r < regions.length; r++) {
      regions[r].copyTo(t.regions[r], regionBytes[r]);
    }
  }

  /** Writes a region from an array ({@code host} points at it, {@code part} copies a chunk). */
  private void put(int region, RegionType type, int length, Pointer host,
      PinnedStaging.Part part) {
    checkOpen();
    TxStore.checkRegionWrite(layout, region, type, length);
    engine.bind();
    engine.staging().uploadArray(regions[region], (long) length * type.wordBytes(),
        type.wordBytes(), host, part);
  }

  private int length(int region, RegionType type) {
    checkOpen();
    RegionSpec spec = layout.region(region);
    TxStore.checkRegionWrite(layout, region, type, spec.length());
    return spec.length();
  }

  /** Reads a region into an array, as {@link #put} writes one. */
  private void get(int region, Pointer host, int wordBytes, PinnedStaging.Part part) {
    engine.bind();
    engine.staging().downloadArray(regions[region], regionBytes[region], wordBytes, host,
        part);
  }

  void checkOpen() {
    open.check();
  }

  @Override
  public void close() {
    open.close();
    engine.bind();
    List<DeviceBuffer> all = new ArrayList<>(Arrays.asList(regions));
    all.add(locks);
    engine.bufferPool().giveAll(all);
  }
}
