package io.gstm.core.workload.memcached;

import io.gstm.core.batch.Grid;
import io.gstm.core.batch.GridBuilder;
import io.gstm.core.batch.OnGrid;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.ValueChecks;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A memcached run: cache geometry, the initial (pre-filled) cache and a seeded batch of GETs and
 * PUTs whose keys follow a Zipfian distribution over {@code keys} keys (key 0 the most popular).
 *
 * @param sets sets, at least 1
 * @param ways associativity, 1..{@value #MAX_WAYS}
 * @param keys key space, at least 1
 * @param getFraction share of GETs, 0..1 (MemcachedGPU: 0.998)
 * @param zipfTheta Zipf exponent, 0 (uniform) ..below 1 is typical; 0.99 by default
 * @param grid 1..256 threads per block, at least 1 block, at least 1 transaction per thread
 * @param seed random seed
 */
public record MemcachedConfig(int sets, int ways, int keys, double getFraction, double zipfTheta,
    Grid grid, long seed) implements OnGrid {
  public static final int MAX_WAYS = 256;
  public static final double DEFAULT_GET_FRACTION = 0.998;
  public static final double DEFAULT_THETA = 0.99;

  public MemcachedConfig {
    Objects.requireNonNull(grid, "grid");
    ValueChecks.inRange("ways", ways, 1, MAX_WAYS);
    if (sets < 1 || (long) sets * ways > Integer.MAX_VALUE / 64) {
      throw new IllegalArgumentException("sets must be in 1.." + Integer.MAX_VALUE / 64 / ways
          + " for " + ways + " ways, got " + sets);
    }
    ValueChecks.inRange("keys", keys, 1, Integer.MAX_VALUE - 1);
    ValueChecks.fraction("getFraction", getFraction);
    if (!(zipfTheta >= 0 && zipfTheta < 5)) {
      throw new IllegalArgumentException("zipfTheta must be in 0..5, got " + zipfTheta);
    }
    ValueChecks.grid(grid);
  }

  /**
   * A builder with the paper's geometry for 2^20 items in sets of 8 ways (as {@link #of}), the
   * default get share and skew, 132 blocks of 256 threads, 4 transactions per thread, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** The paper's geometry: {@code capacity} items in sets of {@code ways}, twice as many keys. */
  public static MemcachedConfig of(int capacity, int ways, int threadsPerBlock, int blocks,
      int txPerThread, long seed) {
    int sets = Math.max(1, capacity / ways);
    return new MemcachedConfig(sets, ways, 2 * sets * ways, DEFAULT_GET_FRACTION, DEFAULT_THETA,
        new Grid(threadsPerBlock, blocks, txPerThread), seed);
  }

  public StoreLayout layout() {
    int slots = sets * ways;
    return StoreLayout.of(new RegionSpec("tags", RegionType.INT32, slots, 1),
        new RegionSpec("values", RegionType.INT32, slots, 1),
        new RegionSpec("lru", RegionType.INT32, slots, 1),
        new RegionSpec("clock", RegionType.INT32, sets, 1));
  }

  /**
   * The initial cache, one array per region: the most popular keys first, each in the first free
   * way of its set (value stamp = key), until the cache is full or the keys run out.
   */
  public int[][] initialState() {
    int slots = sets * ways;
    int[] tags = new int[slots];
    int[] values = new int[slots];
    int[] fill = new int[sets];
    int placed = 0;
    for (int key = 0; key < keys && placed < slots; key++) {
      int s = MemcachedWorkload.setOf(key, sets);
      if (fill[s] < ways) {
        tags[s * ways + fill[s]] = key + 1;
        values[s * ways + fill[s]] = key;
        fill[s]++;
        placed++;
      }
    }
    return new int[][] {tags, values, new int[slots], new int[sets]};
  }

  /** The seeded batch. */
  public TxBatch batch() {
    int n = txCount();
    SplittableRandom rnd = new SplittableRandom(seed);
    Zipf zipf = new Zipf(keys, zipfTheta);
    int[] types = new int[n];
    int[] key = new int[n];
    int[] value = new int[n];
    for (int t = 0; t < n; t++) {
      MemcachedWorkload.Type type = rnd.nextDouble() < getFraction
          ? MemcachedWorkload.Type.GET : MemcachedWorkload.Type.PUT;
      types[t] = type.code();
      key[t] = zipf.next(rnd);
      value[t] = rnd.nextInt(Integer.MAX_VALUE);
    }
    return new TxBatch(MemcachedWorkload.NAME, types, new int[][] {key, value},
        new int[] {sets, ways}, threadsPerBlock(), blocks(), 16);
  }

  /** Zipfian ranks 0..n-1 by inverting the cumulative distribution (binary search). */
  static final class Zipf {
    private final double[] cdf;

    Zipf(int n, double theta) {
      int m = Math.min(n, 1 << 22);
      cdf = new double[m];
      double sum = 0;
      for (int i = 0; i < m; i++) {
        sum += 1 / Math.pow(i + 1, theta);
        cdf[i] = sum;
      }
      for (int i = 0; i < m; i++) {
        cdf[i] /= sum;
      }
    }

    /** The first rank whose cumulative probability reaches a uniform draw. */
    int next(SplittableRandom rnd) {
      double u = rnd.nextDouble();
      int i = Arrays.binarySearch(cdf, u);
      if (i < 0) {
        return Math.min(-i - 1, cdf.length - 1);
      }
      while (i > 0 && cdf[i - 1] == u) {
        i--; // rounding can repeat a value: the first rank of the run, as a lower bound gives
      }
      return i;
    }
  }

  /** Named settings of a {@link MemcachedConfig}; {@link #build} checks them. */
  public static final class Builder extends GridBuilder<Builder> {
    private int sets = 1 << 17;
    private int ways = 8;
    private int keys = 1 << 21;
    private double getFraction = DEFAULT_GET_FRACTION;
    private double zipfTheta = DEFAULT_THETA;

    private Builder() {
      super(256, 132, 4);
    }

    /** Sets, at least 1; sets * ways at most 2^31 / 64. */
    public Builder sets(int value) {
      sets = value;
      return this;
    }

    /** Ways per set, 1..{@link #MAX_WAYS}. */
    public Builder ways(int value) {
      ways = value;
      return this;
    }

    /** Distinct keys, 1..2^31 - 2. */
    public Builder keys(int value) {
      keys = value;
      return this;
    }

    /** Share of GETs, 0..1. */
    public Builder getFraction(double value) {
      getFraction = value;
      return this;
    }

    /** Zipf skew of the keys, 0..5. */
    public Builder zipfTheta(double value) {
      zipfTheta = value;
      return this;
    }

    /** The configuration; an IllegalArgumentException names a bad value and its limit. */
    public MemcachedConfig build() {
      return new MemcachedConfig(sets, ways, keys, getFraction, zipfTheta,
          grid(), seed());
    }
  }
}
