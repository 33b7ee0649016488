package io.gstm.core.cuda;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import java.util.List;
import jcuda.Pointer;

/**
 * A CSMV store in device memory: heads (4 B per item), version slots (8 B per item and version:
 * commit timestamp and value) and the global timestamp. Layout as {@code gstm/csmv.cuh} expects.
 */
final class CudaCsmvStore implements TxStore {
  private final CudaEngine engine;
  private final StoreLayout layout;
  private final Algorithm algorithm;
  final int versions;
  final long items;
  final DeviceBuffer heads;
  final DeviceBuffer slots;
  final DeviceBuffer gts;
  private boolean closed;

  CudaCsmvStore(CudaEngine engine, StoreLayout layout, Algorithm algorithm) {
    for (RegionSpec r : layout.regions()) {
      if (r.type().wordBytes() != 4) {
        throw new IllegalArgumentException("region '" + r.name() + "' holds " + r.type()
            + ": CSMV stores hold 4-byte words (INT32, FLOAT32) only");
      }
    }
    this.engine = engine;
    this.layout = layout;
    this.algorithm = algorithm;
    this.versions = algorithm.versions();
    this.items = layout.wordCount();
    DeviceBuffer[] held = DeviceBuffer.allocate(true, 4 * items, 8 * items * versions, 4);
    this.heads = held[0];
    this.slots = held[1];
    this.gts = held[2];
  }

  CudaEngine engine() {
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
    return CsmvMemory.of(items, 4, versions, heads.bytes() + slots.bytes());
  }

  private void put(int region, RegionType type, int[] bits) {
    checkOpen();
    TxStore.checkRegionWrite(layout, region, type, bits.length);
    engine.bind();
    long base = layout.wordBase(region);
    long[] words = new long[bits.length * versions];
    for (int i = 0; i < bits.length; i++) {
      words[i * versions] = bits[i] & 0xffffffffL;
    }
    heads.uploadAtByte(4 * base, Pointer.to(new int[bits.length]), 4L * bits.length);
    slots.uploadAtByte(8 * base * versions, Pointer.to(words), 8L * words.length);
  }

  private int[] get(int region, RegionType type) {
    checkOpen();
    RegionSpec spec = layout.region(region);
    TxStore.checkRegionWrite(layout, region, type, spec.length());
    engine.bind();
    long base = layout.wordBase(region);
    int n = spec.length();
    int[] h = new int[n];
    long[] words = new long[n * versions];
    heads.downloadAtByte(4 * base, Pointer.to(h), 4L * n);
    slots.downloadAtByte(8 * base * versions, Pointer.to(words), 8L * words.length);
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = (int) words[i * versions + Integer.remainderUnsigned(h[i], versions)];
    }
    return out;
  }

  @Override
  public void writeInt32(int region, int[] values) {
    put(region, RegionType.INT32, values);
  }

  @Override
  public void writeInt64(int region, long[] values) {
    TxStore.checkRegionWrite(layout, region, RegionType.INT64, values.length);
  }

  @Override
  public void writeFloat32(int region, float[] values) {
    int[] bits = new int[values.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Float.floatToRawIntBits(values[i]);
    }
    put(region, RegionType.FLOAT32, bits);
  }

  @Override
  public void writeFloat64(int region, double[] values) {
    TxStore.checkRegionWrite(layout, region, RegionType.FLOAT64, values.length);
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
    engine.bind();
    int[] out = new int[(int) items];
    heads.download(Pointer.to(out), 4L * out.length);
    return out;
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("store is closed");
    }
  }

  @Override
  public void close() {
    checkOpen();
    closed = true;
    engine.bind();
    DeviceBuffer.closeAll(List.of(heads, slots, gts));
  }
}
