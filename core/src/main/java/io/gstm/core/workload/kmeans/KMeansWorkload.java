package io.gstm.core.workload.kmeans;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.ValueChecks;
import io.gstm.core.workload.NamedWorkload;
import io.gstm.core.workload.ColumnSlot;
import io.gstm.core.workload.ParamSlot;
import io.gstm.core.workload.TxType;
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
 * <p>Batch encoding: type {@link Type#ADD}; column 0 the centroid {@code c}, column 1 the block's
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

  /** The one transaction type. */
  public enum Type implements TxType { ADD }

  /**
   * Largest set capacity, accumulator words per transaction, on every engine: the commit kernel
   * is instantiated for it ({@code gstm_kmeans_commit_s16} in {@code kmeans_update.cu}).
   */
  public static final int CAPACITY = 16;

  /** The columns, one value per transaction. */
  public enum Column implements ColumnSlot { CENTROID, FIRST_POINT, POINT_COUNT, FIRST_WORD }

  /** The slots of {@code params}. */
  public enum Param implements ParamSlot { ACC_REGION, POINTS_REGION, ASSIGN_REGION, DIMS }

  private KMeansWorkload() {
    super(NAME, 0);
  }

  /**
   * The store {@link #batch} runs on: the accumulators (count and sums per centroid, a lock per
   * record), the points and their assignment, read-only (one lock each region).
   */
  public static StoreLayout layout(int n, int dims, int k) {
    return StoreLayout.of(
        new RegionSpec("accumulators", RegionType.FLOAT64, k * (dims + 1), dims + 1),
        new RegionSpec("points", RegionType.FLOAT64, n * dims, n * dims),
        new RegionSpec("assignment", RegionType.INT32, n, n));
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
    int[][] cols = new int[Column.values().length][m];
    for (int t = 0; t < m; t++) {
      for (int j = 0; j < cols.length; j++) {
        cols[j][t] = rows.get(t)[j];
      }
    }
    return new TxBatch(NAME, new int[m], cols, new int[] {0, 1, 2, dims}, threadsPerBlock,
        (m + threadsPerBlock - 1) / threadsPerBlock, capacity);
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "kmeans", Param.values());
    int acc = Param.ACC_REGION.region(batch, layout, RegionType.FLOAT64);
    int points = Param.POINTS_REGION.region(batch, layout, RegionType.FLOAT64);
    int assign = Param.ASSIGN_REGION.region(batch, layout, RegionType.INT32);
    int dims = Param.DIMS.of(batch);
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
    BatchChecks.columns(batch, "kmeans", Column.values());
    BatchChecks.types(batch, "kmeans", Type.values());
    int[] centroid = Column.CENTROID.of(batch);
    int[] first = Column.FIRST_POINT.of(batch);
    int[] count = Column.POINT_COUNT.of(batch);
    int[] firstWord = Column.FIRST_WORD.of(batch);
    for (int t = 0; t < batch.txCount(); t++) {
      BatchChecks.index(centroid[t], k, t, "centroid", "centroids");
      long end = (long) first[t] + count[t];
      if (first[t] < 0 || count[t] < 1 || end > pointCount) {
        throw new IllegalArgumentException("points " + first[t] + ".." + (end - 1)
            + " (transaction " + t + ") are out of range: points 0.." + (pointCount - 1));
      }
      int w = firstWord[t];
      if (w < 0 || w >= record || w % batch.capacity() != 0) {
        throw new IllegalArgumentException("firstWord " + w + " (transaction " + t
            + ") must be a multiple of the capacity " + batch.capacity() + " below " + record);
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int acc = Param.ACC_REGION.of(batch);
    int points = Param.POINTS_REGION.of(batch);
    int assign = Param.ASSIGN_REGION.of(batch);
    int dims = Param.DIMS.of(batch);
    int c = Column.CENTROID.of(batch)[t];
    int first = Column.FIRST_POINT.of(batch)[t];
    int end = first + Column.POINT_COUNT.of(batch)[t];
    int w0 = Column.FIRST_WORD.of(batch)[t];
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
