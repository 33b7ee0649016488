package io.gstm.core.store;

/**
 * Shared transactional state: typed regions plus one global lock table, resident on its engine
 * (device memory for the CUDA engine) across batches. Values go in and out as whole regions.
 *
 * <p>A store belongs to the engine that created it; close it before closing the engine. A second
 * {@link #close()} throws.
 */
public interface TxStore extends AutoCloseable {

  StoreLayout layout();

  /** The algorithm fixed at creation; PR-STM unless the store was created for another. */
  default Algorithm algorithm() {
    return Algorithm.prStm();
  }

  /** For a CSMV store, its memory against the paper's formula; null for other algorithms. */
  default CsmvMemory csmvMemory() {
    return null;
  }

  /** Replaces the contents of an INT32 region. */
  void writeInt32(int region, int[] values);

  /** Replaces the contents of an INT64 region. */
  void writeInt64(int region, long[] values);

  /** Replaces the contents of a FLOAT32 region. */
  void writeFloat32(int region, float[] values);

  /** Replaces the contents of a FLOAT64 region. */
  void writeFloat64(int region, double[] values);

  /**
   * Replaces words {@code offset .. offset + values.length - 1} of a FLOAT64 region, leaving the
   * others: a region filled from several arrays without first joining them into one.
   */
  void writeFloat64At(int region, int offset, double[] values);

  int[] readInt32(int region);

  long[] readInt64(int region);

  float[] readFloat32(int region);

  double[] readFloat64(int region);

  /**
   * As {@link #readFloat64(int)}, into {@code into} (one element per word of the region): a
   * caller that made the array ahead (allocating and zeroing a large one takes milliseconds)
   * reads into it.
   */
  default void readFloat64(int region, double[] into) {
    double[] values = readFloat64(region);
    if (into.length != values.length) {
      throw new IllegalArgumentException("into: region " + region + " holds " + values.length
          + " words, the array " + into.length);
    }
    System.arraycopy(values, 0, into, 0, values.length);
  }

  /**
   * The version field of every lock word (history mode starts from these); for a CSMV store, the
   * number of versions each item has had.
   */
  int[] lockVersions();

  /**
   * Overwrites {@code target}'s contents with this store's, between batches: an undo copy that
   * never leaves the engine (on the GPU a device-to-device copy of the regions and the lock
   * table). {@code target} has the same layout and algorithm, on the same engine. This default
   * goes through the host, region by region (the lock versions are not copied).
   *
   * @throws IllegalArgumentException if {@code target} has another layout
   */
  default void copyTo(TxStore target) {
    checkCopy(this, target);
    StoreLayout layout = layout();
    for (int r = 0; r < layout.regionCount(); r++) {
      switch (layout.region(r).type()) {
        case INT32 -> target.writeInt32(r, readInt32(r));
        case INT64 -> target.writeInt64(r, readInt64(r));
        case FLOAT32 -> target.writeFloat32(r, readFloat32(r));
        case FLOAT64 -> target.writeFloat64(r, readFloat64(r));
      }
    }
  }

  /**
   * Copies each region's words onto the first words of {@code larger}'s region of the same
   * index, between batches: a store that grows (on the GPU a device-to-device copy, where the
   * host's round trip took a 25 M-row state 0.3 s). {@code larger} is a store just created
   * (zeros), of the same algorithm, with as many regions, of the same types, each at least as
   * long; its other words stay zero and its lock table fresh. This default goes through the
   * host.
   *
   * @throws IllegalArgumentException if {@code larger} cannot hold this store's regions
   */
  default void copyInto(TxStore larger) {
    checkCopyInto(this, larger);
    StoreLayout layout = layout();
    for (int r = 0; r < layout.regionCount(); r++) {
      int length = larger.layout().region(r).length();
      switch (layout.region(r).type()) {
        case INT32 -> larger.writeInt32(r, java.util.Arrays.copyOf(readInt32(r), length));
        case INT64 -> larger.writeInt64(r, java.util.Arrays.copyOf(readInt64(r), length));
        case FLOAT32 -> larger.writeFloat32(r, java.util.Arrays.copyOf(readFloat32(r), length));
        case FLOAT64 -> larger.writeFloat64(r, java.util.Arrays.copyOf(readFloat64(r), length));
      }
    }
  }

  /** The checks of {@link #copyInto}. */
  static void checkCopyInto(TxStore from, TxStore larger) {
    if (larger == from) {
      throw new IllegalArgumentException("larger: a store cannot be copied into itself");
    }
    StoreLayout a = from.layout();
    StoreLayout b = larger.layout();
    boolean fits = a.regionCount() == b.regionCount();
    for (int r = 0; fits && r < a.regionCount(); r++) {
      fits = a.region(r).type() == b.region(r).type()
          && a.region(r).length() <= b.region(r).length();
    }
    if (!fits) {
      throw new IllegalArgumentException("larger: its layout " + b + " cannot hold this "
          + "store's " + a + " (as many regions, of the same types, each at least as long)");
    }
    if (!larger.algorithm().equals(from.algorithm())) {
      throw new IllegalArgumentException("larger: its algorithm " + larger.algorithm()
          + " differs from this store's " + from.algorithm());
    }
  }

  /** The checks of {@link #copyTo}: another store, of the same layout and algorithm. */
  static void checkCopy(TxStore from, TxStore target) {
    if (target == from) {
      throw new IllegalArgumentException("target: a store cannot be copied onto itself");
    }
    if (!target.layout().equals(from.layout())) {
      throw new IllegalArgumentException("target: its layout " + target.layout()
          + " differs from this store's " + from.layout());
    }
    if (!target.algorithm().equals(from.algorithm())) {
      throw new IllegalArgumentException("target: its algorithm " + target.algorithm()
          + " differs from this store's " + from.algorithm());
    }
  }

  @Override
  void close();

  /**
   * Checks that region {@code region} exists, has {@code type} and {@code length} words: the
   * region type check of {@link StoreLayout#checkRegion(int, RegionType, String)}, then the
   * length.
   */
  static void checkRegionWrite(StoreLayout layout, int region, RegionType type, int length) {
    layout.checkRegion(region, type, "values");
    RegionSpec spec = layout.region(region);
    if (length != spec.length()) {
      throw new IllegalArgumentException(
          "values: region " + region + " ('" + spec.name() + "') has " + spec.length()
              + " words, got " + length);
    }
  }

  /**
   * Checks that region {@code region} exists, has {@code type}, and holds words {@code offset ..
   * offset + length - 1}.
   */
  static void checkRangeWrite(StoreLayout layout, int region, RegionType type, int offset,
      int length) {
    layout.checkRegion(region, type, "values");
    RegionSpec spec = layout.region(region);
    if (offset < 0 || (long) offset + length > spec.length()) {
      throw new IllegalArgumentException("offset: words " + offset + ".." + ((long) offset
          + length - 1) + " are outside region " + region + " ('" + spec.name() + "') of "
          + spec.length() + " words");
    }
  }
}
