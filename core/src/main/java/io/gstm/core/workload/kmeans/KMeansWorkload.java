package io.gstm.core.workload.kmeans;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.ValueChecks;
import io.gstm.core.workload.NamedWorkload;
import java.util.ArrayList;
import java.util.List;

/**
 * The k-means centroid update of the JPDC PR-STM paper, with the points of one transaction
 * aggregated first: one transaction adds the contribution of a block of points (only those
 * assigned to one centroid) to that centroid's accumulators. Twin of
 * {@code gstm/workloads/kmeans.cuh}; {@link io.gstm.core.kmeans.KMeansUpdater} builds the batches.
 *
 * <p>Store: a FLOAT64 accumulator region of {@code k} records of {@code dims + 1} words
 * ({@code [count, sum_0, .., sum_{dims-1}]}, the count as an exact double), one lock per record;
 * a read-only FLOAT64 region of points (row-major, {@code dims} per point) and a read-only INT32
 * region with each point's assigned centroid, both read with {@link TxContext#readShared}.
 *
 * <p>Batch encoding: type {@link #ADD}; column 0 the centroid {@code c}, column 1 the block's
 * first point, column 2 its point count, column 3 the first record word of the slice this
 * transaction updates (records longer than the set capacity are split into slices of
 * {@code capacity} words, each its own transaction); {@code params = {accRegion, pointsRegion,
 * assignRegion, dims}}.
 *
 * <p>Body: for every word {@code j} of its slice, sums over the block's points assigned to
 * {@code c} (1 per point for the count, coordinate {@code j - 1} for a sum; one pass over the
 * block reads each point's assignment once, every sum still adds its points in order), then
 * reads the word and writes it back increased by that sum. Returns 0.
 */
public final class KMeansWorkload extends NamedWorkload {
  public static final String NAME = "kmeans";
  public static final KMeansWorkload INSTANCE = new KMeansWorkload();

  public static final int ADD = 0;
  /**
   * Largest set capacity, accumulator words per transaction, on every engine: the commit kernel
   * is instantiated for it ({@code gstm_kmeans_commit_s16} in {@code kmeans_update.cu}).
   */
  public static final int CAPACITY = 16;
  public static final int COL_CENTROID = 0;
  public static final int COL_FIRST_POINT = 1;
  public static final int COL_POINT_COUNT = 2;
  public static final int COL_FIRST_WORD = 3;
  public static final int COLUMNS = 4;
  public static final int PARAM_ACC_REGION = 0;
  public static final int PARAM_POINTS_REGION = 1;
  public static final int PARAM_ASSIGN_REGION = 2;
  public static final int PARAM_DIMS = 3;
  public static final int PARAMS = 4;

  private KMeansWorkload() {
    super(NAME, 0);
  }

  /**
   * The batch of one update (the JPDC one) of the points assigned by {@code assign} (a centroid
   * in {@code 0..k-1} per point): one transaction per block of {@code pointsPerTx} points,
   * centroid present in the block and record slice of {@code capacity} words, in that order; for
   * a store whose regions 0, 1 and 2 are the accumulators, the points and the assignment.
   */
  public static TxBatch batch(int[] assign, int k, int dims, int pointsPerTx, int capacity,
      int threadsPerBlock) {
    int n = assign.length;
    int slices = (dims + 1 + capacity - 1) / capacity;
    List<int[]> rows = new ArrayList<>();
    for (int from = 0; from < n; from += pointsPerTx) {
      int to = Math.min(n, from + pointsPerTx);
      boolean[] present = new boolean[k];
      for (int p = from; p < to; p++) {
        present[assign[p]] = true;
      }
      for (int c = 0; c < k; c++) {
        for (int s = 0; present[c] && s < slices; s++) {
          rows.add(new int[] {c, from, to - from, s * capacity});
        }
      }
    }
    int m = rows.size();
    int[][] cols = new int[COLUMNS][m];
    for (int t = 0; t < m; t++) {
      for (int j = 0; j < COLUMNS; j++) {
        cols[j][t] = rows.get(t)[j];
      }
    }
    return new TxBatch(NAME, new int[m], cols, new int[] {0, 1, 2, dims}, threadsPerBlock,
        (m + threadsPerBlock - 1) / threadsPerBlock, capacity);
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "kmeans", "{accRegion, pointsRegion, assignRegion, dims}, "
        + PARAMS + " values", PARAMS);
    int[] params = batch.params();
    int acc = params[PARAM_ACC_REGION];
    int points = params[PARAM_POINTS_REGION];
    int assign = params[PARAM_ASSIGN_REGION];
    int dims = params[PARAM_DIMS];
    layout.checkRegion(acc, RegionType.FLOAT64, "accRegion");
    layout.checkRegion(points, RegionType.FLOAT64, "pointsRegion");
    layout.checkRegion(assign, RegionType.INT32, "assignRegion");
    if (acc == points) {
      throw new IllegalArgumentException("accRegion: must differ from pointsRegion");
    }
    ValueChecks.atLeast("dims", dims, 1);
    int record = dims + 1;
    int accWords = layout.region(acc).length();
    if (accWords % record != 0) {
      throw new IllegalArgumentException("accRegion: " + accWords + " words are not whole "
          + "records of dims + 1 = " + record + " words");
    }
    int k = accWords / record;
    int pointCount = layout.region(assign).length();
    if ((long) pointCount * dims > layout.region(points).length()) {
      throw new IllegalArgumentException("pointsRegion: " + pointCount + " points of " + dims
          + " dims need " + (long) pointCount * dims + " words, the region has "
          + layout.region(points).length());
    }
    BatchChecks.columns(batch, "kmeans", COLUMNS, "centroid, firstPoint, pointCount, "
        + "firstWord");
    BatchChecks.types(batch, "kmeans", "add");
    int[] types = batch.types();
    int[][] cols = batch.columns();
    for (int t = 0; t < types.length; t++) {
      BatchChecks.index(cols[COL_CENTROID][t], k, t, "centroid", "centroids");
      long end = (long) cols[COL_FIRST_POINT][t] + cols[COL_POINT_COUNT][t];
      if (cols[COL_FIRST_POINT][t] < 0 || cols[COL_POINT_COUNT][t] < 1 || end > pointCount) {
        throw new IllegalArgumentException("points " + cols[COL_FIRST_POINT][t] + ".."
            + (end - 1) + " (transaction " + t + ") are out of range: points 0.."
            + (pointCount - 1));
      }
      int w = cols[COL_FIRST_WORD][t];
      if (w < 0 || w >= record || w % batch.capacity() != 0) {
        throw new IllegalArgumentException("firstWord " + w + " (transaction " + t
            + ") must be a multiple of the capacity " + batch.capacity() + " below " + record);
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int[] params = batch.params();
    int acc = params[PARAM_ACC_REGION];
    int points = params[PARAM_POINTS_REGION];
    int assign = params[PARAM_ASSIGN_REGION];
    int dims = params[PARAM_DIMS];
    int[][] cols = batch.columns();
    int c = cols[COL_CENTROID][t];
    int first = cols[COL_FIRST_POINT][t];
    int end = first + cols[COL_POINT_COUNT][t];
    int w0 = cols[COL_FIRST_WORD][t];
    int w1 = Math.min(w0 + batch.capacity(), dims + 1);
    int base = c * (dims + 1);
    // One pass over the block: each point's assignment read once, its coordinates of the slice
    // added to the slice's sums (each sum still adds the points in order).
    double[] sums = new double[w1 - w0];
    int firstCoord = Math.max(w0, 1);
    for (int p = first; p < end; p++) {
      if ((int) tx.readShared(assign, p) == c) {
        if (w0 == 0) {
          sums[0] += 1.0;
        }
        for (int j = firstCoord; j < w1; j++) {
          sums[j - w0] += Double.longBitsToDouble(tx.readShared(points, p * dims + j - 1));
        }
      }
    }
    for (int j = w0; j < w1; j++) {
      double old = Double.longBitsToDouble(tx.read(acc, base + j));
      tx.write(acc, base + j, Double.doubleToRawLongBits(old + sums[j - w0]));
    }
    return 0;
  }
}
