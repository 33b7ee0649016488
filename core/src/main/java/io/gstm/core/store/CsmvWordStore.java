package io.gstm.core.store;

import io.gstm.core.engine.OpenState;

/**
 * What the two CSMV stores (heap and device) share: the layout check and the typed accessors.
 * CSMV versions 32-bit items ({@code gstm/csmv.cuh}), so a CSMV store holds INT32 and FLOAT32
 * regions only; a subclass keeps the words and differs only in where they live (and frees them
 * when closed).
 */
public abstract class CsmvWordStore implements TxStore {
  private final StoreLayout layout;
  private final Algorithm algorithm;
  private final OpenState open = new OpenState("store");

  protected CsmvWordStore(StoreLayout layout, Algorithm algorithm) {
    checkLayout(layout);
    this.layout = layout;
    this.algorithm = algorithm;
  }

  /** Throws an IllegalArgumentException naming the first region that holds 8-byte words. */
  public static void checkLayout(StoreLayout layout) {
    for (RegionSpec r : layout.regions()) {
      if (r.type().wordBytes() != 4) {
        throw new IllegalArgumentException("region '" + r.name() + "' holds " + r.type()
            + ": CSMV stores hold 4-byte words (INT32, FLOAT32) only");
      }
    }
  }

  /** Throws once the store is closed (engines check before they run a batch on it). */
  public final void checkOpen() {
    open.check();
  }

  /** Marks the store closed; a second close throws. A subclass then frees the words. */
  @Override
  public void close() {
    open.close();
  }

  /** Replaces region {@code region} (checked: open, type, length) by one version of each word. */
  protected abstract void putWords(int region, int[] bits);

  /** The newest version of every word of region {@code region} (checked: open, type). */
  protected abstract int[] getWords(int region);

  @Override
  public final StoreLayout layout() {
    return layout;
  }

  @Override
  public final Algorithm algorithm() {
    return algorithm;
  }

  private void put(int region, RegionType type, int[] bits) {
    checkOpen();
    TxStore.checkRegionWrite(layout, region, type, bits.length);
    putWords(region, bits);
  }

  private int[] get(int region, RegionType type) {
    checkOpen();
    TxStore.checkRegionWrite(layout, region, type, layout.region(region).length());
    return getWords(region);
  }

  @Override
  public final void writeInt32(int region, int[] values) {
    put(region, RegionType.INT32, values);
  }

  @Override
  public final void writeFloat32(int region, float[] values) {
    int[] bits = new int[values.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Float.floatToRawIntBits(values[i]);
    }
    put(region, RegionType.FLOAT32, bits);
  }

  @Override
  public final int[] readInt32(int region) {
    return get(region, RegionType.INT32);
  }

  @Override
  public final float[] readFloat32(int region) {
    int[] bits = get(region, RegionType.FLOAT32);
    float[] out = new float[bits.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = Float.intBitsToFloat(bits[i]);
    }
    return out;
  }

  // No region of a CSMV store holds 8-byte words (checkLayout): the 64-bit accessors can only
  // say so, naming the region and what it holds.

  @Override
  public final void writeInt64(int region, long[] values) {
    throw noWideRegion(region, RegionType.INT64);
  }

  @Override
  public final void writeFloat64(int region, double[] values) {
    throw noWideRegion(region, RegionType.FLOAT64);
  }

  @Override
  public final void writeFloat64At(int region, int offset, double[] values) {
    throw noWideRegion(region, RegionType.FLOAT64);
  }

  @Override
  public final long[] readInt64(int region) {
    throw noWideRegion(region, RegionType.INT64);
  }

  @Override
  public final double[] readFloat64(int region) {
    throw noWideRegion(region, RegionType.FLOAT64);
  }

  private IllegalArgumentException noWideRegion(int region, RegionType type) {
    RegionSpec spec = layout.region(region); // an index out of range throws here
    return new IllegalArgumentException("region " + region + " ('" + spec.name() + "') holds "
        + spec.type() + ", not " + type + ": CSMV stores hold 4-byte words only");
  }
}
