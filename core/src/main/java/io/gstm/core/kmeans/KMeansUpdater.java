package io.gstm.core.kmeans;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.cuda.CudaKMeans;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.GstmException;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import java.util.Objects;

/**
 * One k-means step's centroid update on one partition of points, with transactions. Each point
 * is assigned to its nearest centroid (squared Euclidean distance; ties go to the lowest index)
 * without transactions; then the points are cut into blocks of
 * {@link KMeansOptions#pointsPerTransaction()} and <b>one transaction adds one block's
 * contribution to one centroid</b>: the sum and count of the block's points assigned to that
 * centroid, added to the centroid's accumulators (a record of {@code dims + 1} FLOAT64 words
 * under one lock, {@link KMeansWorkload}). With {@code dims + 1} above the set capacity (16),
 * a contribution is split into one transaction per slice of 16 words.
 *
 * <p>On the {@link CudaEngine} one launch does it all ({@link CudaKMeans}): a small persistent
 * grid, each block with at least {@code pointsPerTransaction} points, sums its points per
 * centroid on chip, then runs one transaction per centroid (and record slice) with points; the
 * same kind of transaction as on the JVM engine, over larger blocks of points (a centroid
 * record is the hot spot that every block commits to, so fewer, larger blocks commit faster).
 *
 * <p>The accumulator store stays resident across calls; the points' store regions are
 * reallocated when the point count changes. Not thread-safe. The caller closes the updater
 * (before the engine).
 */
public final class KMeansUpdater implements AutoCloseable {
  /** Largest set capacity: accumulator words per transaction. */
  public static final int MAX_CAPACITY = 16;

  static final int ACC = 0;
  static final int POINTS = 1;
  static final int ASSIGN = 2;

  private final Engine engine;
  private final int k;
  private final int dims;
  private final KMeansOptions options;
  private TxStore store;
  private int storePoints = -1;
  private CudaKMeans device;
  private boolean closed;

  /** An updater for {@code k} centroids of {@code dims} dimensions on {@code engine}. */
  public KMeansUpdater(Engine engine, int k, int dims, KMeansOptions options) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.options = Objects.requireNonNull(options, "options");
    if (k < 1) {
      throw new IllegalArgumentException("k must be at least 1, got " + k);
    }
    if (dims < 1) {
      throw new IllegalArgumentException("dims must be at least 1, got " + dims);
    }
    if ((long) k * (dims + 1) > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("k * (dims + 1) = " + (long) k * (dims + 1)
          + " accumulator words exceed a region");
    }
    this.k = k;
    this.dims = dims;
  }

  public int k() {
    return k;
  }

  public int dims() {
    return dims;
  }

  /**
   * Assigns every point to its nearest centroid and adds it to that centroid's sums and count
   * under the STM. Inputs are not modified.
   *
   * @param points row-major {@code n x dims}, finite
   * @param centroids row-major {@code k x dims}, finite
   * @throws IllegalArgumentException naming {@code points} or {@code centroids}
   * @throws GstmException if a transaction did not commit within the retry limit
   */
  public KMeansPartial update(double[] points, double[] centroids) {
    checkOpen();
    check(points, centroids, k, dims);
    int n = points.length / dims;
    if (n == 0) {
      return KMeansPartial.empty(k, dims);
    }
    if (engine instanceof CudaEngine && CudaKMeans.fits(k, dims)) {
      return updateOnDevice(points, centroids, n);
    }
    int[] assign = new int[n];
    double cost = assign(points, dims, centroids, k, assign);

    int capacity = TxBatch.capacityFor(Math.min(dims + 1, MAX_CAPACITY));
    int slices = (dims + 1 + capacity - 1) / capacity;
    int ppt = options.pointsPerTransaction();
    int blocks = (n + ppt - 1) / ppt;
    boolean[] present = new boolean[k];
    long txs = 0;
    for (int b = 0; b < blocks; b++) {
      txs += distinct(assign, b * ppt, Math.min(n, (b + 1) * ppt), present) * (long) slices;
    }
    if (txs > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("points: " + txs + " transactions exceed a batch; "
          + "raise pointsPerTransaction");
    }
    int m = (int) txs;
    int[] types = new int[m];
    int[] centroid = new int[m];
    int[] first = new int[m];
    int[] count = new int[m];
    int[] firstWord = new int[m];
    int t = 0;
    for (int b = 0; b < blocks; b++) {
      int from = b * ppt;
      int to = Math.min(n, from + ppt);
      java.util.Arrays.fill(present, false);
      for (int p = from; p < to; p++) {
        present[assign[p]] = true;
      }
      for (int c = 0; c < k; c++) {
        if (!present[c]) {
          continue;
        }
        for (int s = 0; s < slices; s++) {
          types[t] = KMeansWorkload.ADD;
          centroid[t] = c;
          first[t] = from;
          count[t] = to - from;
          firstWord[t] = s * capacity;
          t++;
        }
      }
    }
    TxStore s = storeFor(n);
    s.writeFloat64(ACC, new double[k * (dims + 1)]);
    s.writeFloat64(POINTS, points);
    s.writeInt32(ASSIGN, assign);
    int tpb = options.threadsPerBlock();
    TxBatch batch = new TxBatch(KMeansWorkload.NAME, types,
        new int[][] {centroid, first, count, firstWord}, new int[] {ACC, POINTS, ASSIGN, dims},
        tpb, (m + tpb - 1) / tpb, capacity);
    BatchResult r = engine.run(s, batch, options.run());
    for (int i = 0; i < m; i++) {
      if (r.outcome(i) != Outcome.COMMITTED) {
        throw new GstmException("kmeans: transaction " + i + " ended " + r.outcome(i)
            + "; raise RunOptions.maxRetries");
      }
    }
    return partial(s.readFloat64(ACC), cost, m, r.commits(), r.aborts(), r.kernelNanos());
  }

  private KMeansPartial updateOnDevice(double[] points, double[] centroids, int n) {
    TxStore s = storeFor(n);
    if (device == null) {
      device = new CudaKMeans(s, k, dims);
    }
    s.writeFloat64(ACC, new double[k * (dims + 1)]);
    s.writeFloat64(POINTS, points);
    CudaKMeans.Stats st = device.run(centroids, n, options.pointsPerTransaction(), ACC, POINTS,
        options.threadsPerBlock(), options.run().maxRetries());
    if (st.abandoned() > 0) {
      throw new GstmException("kmeans: " + st.abandoned() + " transaction(s) reached the retry "
          + "limit; raise RunOptions.maxRetries");
    }
    return partial(s.readFloat64(ACC), st.cost(), st.transactions(), st.commits(), st.aborts(),
        st.kernelNanos());
  }

  private KMeansPartial partial(double[] acc, double cost, long transactions, long commits,
      long aborts, long kernelNanos) {
    double[] sums = new double[k * dims];
    long[] counts = new long[k];
    for (int c = 0; c < k; c++) {
      counts[c] = (long) acc[c * (dims + 1)];
      System.arraycopy(acc, c * (dims + 1) + 1, sums, c * dims, dims);
    }
    return new KMeansPartial(k, dims, sums, counts, cost, transactions, commits, aborts,
        kernelNanos);
  }

  private static int distinct(int[] assign, int from, int to, boolean[] present) {
    java.util.Arrays.fill(present, false);
    int d = 0;
    for (int p = from; p < to; p++) {
      if (!present[assign[p]]) {
        present[assign[p]] = true;
        d++;
      }
    }
    return d;
  }

  private TxStore storeFor(int n) {
    if (store != null && storePoints == n) {
      return store;
    }
    if (device != null) {
      CudaKMeans old = device;
      device = null;
      old.close();
    }
    if (store != null) {
      TxStore old = store;
      store = null;
      old.close();
    }
    if ((long) n * dims > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("points: " + (long) n * dims + " words exceed a region");
    }
    StoreLayout layout = StoreLayout.of(
        new RegionSpec("accumulators", RegionType.FLOAT64, k * (dims + 1), dims + 1),
        new RegionSpec("points", RegionType.FLOAT64, n * dims, n * dims),
        new RegionSpec("assignment", RegionType.INT32, n, n));
    store = engine.createStore(layout);
    storePoints = n;
    return store;
  }

  /**
   * The exact sequential reference: assigns every point as {@link #update} does and sums in
   * point order, without transactions. {@code k = centroids.length / dims}.
   */
  public static KMeansPartial sequential(double[] points, int dims, double[] centroids) {
    if (dims < 1) {
      throw new IllegalArgumentException("dims must be at least 1, got " + dims);
    }
    if (centroids == null || centroids.length == 0 || centroids.length % dims != 0) {
      throw new IllegalArgumentException("centroids: expected k * dims values with k >= 1, got "
          + (centroids == null ? "null" : centroids.length));
    }
    int k = centroids.length / dims;
    check(points, centroids, k, dims);
    int n = points.length / dims;
    int[] assign = new int[n];
    double cost = assign(points, dims, centroids, k, assign);
    double[] sums = new double[k * dims];
    long[] counts = new long[k];
    for (int p = 0; p < n; p++) {
      int c = assign[p];
      counts[c]++;
      for (int d = 0; d < dims; d++) {
        sums[c * dims + d] += points[p * dims + d];
      }
    }
    return new KMeansPartial(k, dims, sums, counts, cost, 0, 0, 0, 0);
  }

  /**
   * Writes each point's nearest centroid (ties to the lowest index) into {@code assign};
   * returns the sum of the squared distances.
   */
  static double assign(double[] points, int dims, double[] centroids, int k, int[] assign) {
    int n = assign.length;
    double cost = 0;
    for (int p = 0; p < n; p++) {
      int best = 0;
      double bestDist = Double.POSITIVE_INFINITY;
      for (int c = 0; c < k; c++) {
        double dist = 0;
        for (int d = 0; d < dims; d++) {
          double diff = points[p * dims + d] - centroids[c * dims + d];
          dist += diff * diff;
        }
        if (dist < bestDist) {
          bestDist = dist;
          best = c;
        }
      }
      assign[p] = best;
      cost += bestDist;
    }
    return cost;
  }

  static void check(double[] points, double[] centroids, int k, int dims) {
    if (points == null) {
      throw new IllegalArgumentException("points must not be null");
    }
    if (points.length % dims != 0) {
      throw new IllegalArgumentException("points: " + points.length
          + " values are not whole points of dims = " + dims);
    }
    if (centroids == null || centroids.length != k * dims) {
      throw new IllegalArgumentException("centroids: expected k * dims = " + k * dims
          + " values, got " + (centroids == null ? "null" : centroids.length));
    }
    for (int i = 0; i < centroids.length; i++) {
      if (!Double.isFinite(centroids[i])) {
        throw new IllegalArgumentException("centroids[" + i + "] = " + centroids[i]
            + " is not finite");
      }
    }
    for (int i = 0; i < points.length; i++) {
      if (!Double.isFinite(points[i])) {
        throw new IllegalArgumentException("points[" + i + "] = " + points[i]
            + " is not finite");
      }
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("k-means updater is closed");
    }
  }

  /** Frees the store. A second close throws. */
  @Override
  public void close() {
    if (closed) {
      throw new IllegalStateException("k-means updater already closed");
    }
    closed = true;
    try {
      if (device != null) {
        device.close();
      }
    } finally {
      device = null;
      if (store != null) {
        store.close();
        store = null;
      }
    }
  }
}
