package io.gstm.core.kmeans;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.cuda.CudaKMeans;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.GstmException;
import io.gstm.core.engine.OpenState;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * One k-means step's centroid update on one partition of points, with transactions. Each point
 * is assigned to its nearest centroid (squared Euclidean distance; ties go to the lowest index)
 * without transactions; then the points are cut into blocks of
 * {@link KMeansOptions#pointsPerTransaction()} and <b>one transaction adds one block's
 * contribution to one centroid</b>: the sum and count of the block's points assigned to that
 * centroid, added to the centroid's accumulators (a record of {@code dims + 1} FLOAT64 words
 * under one lock, {@link KMeansWorkload}). With {@code dims + 1} above the set capacity (16),
 * a contribution is split into one transaction per slice of 16 words. A caller that has assigned
 * the points already ({@link #assign}, e.g. to group them by centroid so that a block touches
 * few centroids) passes the assignment to {@link #update(double[], double[], int[])}, and the
 * points are not assigned a second time.
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
  private final OpenState open = new OpenState("k-means updater");
  /** The points of {@link #load}, in parts, or null. */
  private List<double[]> loaded;
  /** How many points {@link #load} loaded. */
  private int loadedPoints;
  /** The loaded parts as one array, joined when the JVM engine first needs them. */
  private double[] loadedJoined;
  /** Whether the store's points region holds {@link #loaded} (the device path). */
  private boolean loadedOnDevice;

  /** An updater for {@code k} centroids of {@code dims} dimensions on {@code engine}. */
  public KMeansUpdater(Engine engine, int k, int dims, KMeansOptions options) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.options = Objects.requireNonNull(options, "options");
    this.k = positive("k", k);
    this.dims = positive("dims", dims);
    if ((long) k * (dims + 1) > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("k * (dims + 1) = " + (long) k * (dims + 1)
          + " accumulator words exceed a region");
    }
  }

  /** {@code value}, or an error "name must be at least 1, got value". */
  private static int positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be at least 1, got " + value);
    }
    return value;
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
    open.check();
    check(points, centroids, k, dims);
    return updateChecked(points, centroids);
  }

  /**
   * Checks {@code points} once and keeps them for {@link #updateLoaded}: a fit runs every
   * iteration on the same points, so on the CUDA engine they are copied to the device here,
   * once, instead of at every update (16 MB for a million 2-D points, a few ms per iteration).
   * The caller must not modify the array while it is loaded.
   *
   * @param points row-major {@code n x dims}, finite
   * @throws IllegalArgumentException naming {@code points}
   */
  public void load(double[] points) {
    load(List.of(points));
  }

  /**
   * {@link #load(double[])} of the points of several arrays, in order, as if joined into one: on
   * the CUDA engine each array is copied to its place on the device, so a point set read in
   * blocks (100 M 8-D points: 6.4 GB) is never joined on the host. The caller must not modify
   * the arrays while they are loaded.
   *
   * @param parts row-major points, each a whole number of points of {@code dims}, finite
   * @throws IllegalArgumentException naming {@code points} (with the part's index) if a part is
   *     bad, or if the points together exceed a region
   */
  public void load(List<double[]> parts) {
    open.check();
    long words = 0;
    for (int i = 0; i < parts.size(); i++) {
      try {
        checkPoints(parts.get(i), dims);
      } catch (IllegalArgumentException e) {
        throw parts.size() == 1 ? e
            : new IllegalArgumentException("part " + i + " of the points: " + e.getMessage(), e);
      }
      words += parts.get(i).length;
    }
    if (words > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("points: " + words + " words exceed a region");
    }
    loaded = List.copyOf(parts);
    loadedPoints = (int) (words / dims);
    loadedJoined = null;
    loadedOnDevice = false;
    if (loadedPoints > 0 && assignsOnDevice()) {
      copyLoadedToDevice();
    }
  }

  private static double[] join(List<double[]> parts, int words) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    double[] all = new double[words];
    int at = 0;
    for (double[] part : parts) {
      System.arraycopy(part, 0, all, at, part.length);
      at += part.length;
    }
    return all;
  }

  /** Copies every loaded part to its place in the store's points region. */
  private void copyLoadedToDevice() {
    TxStore s = storeFor(loadedPoints);
    int at = 0;
    for (double[] part : loaded) {
      s.writeFloat64At(POINTS, at, part);
      at += part.length;
    }
    loadedOnDevice = true;
  }

  /**
   * {@link #update(double[], double[])} of the points given to {@link #load}, which are neither
   * checked nor copied again.
   *
   * @throws IllegalStateException if no points were loaded
   */
  public KMeansPartial updateLoaded(double[] centroids) {
    open.check();
    if (loaded == null) {
      throw new IllegalStateException("updateLoaded: no points loaded (call load(points) first)");
    }
    checkCentroids(centroids, k, dims);
    int n = loadedPoints;
    if (n > 0 && assignsOnDevice()) {
      if (!loadedOnDevice) { // an update(points, ...) since replaced them
        copyLoadedToDevice();
      }
      return runOnDevice(centroids, n);
    }
    if (loadedJoined == null) {
      loadedJoined = join(loaded, loadedPoints * dims);
    }
    return updateChecked(loadedJoined, centroids);
  }

  private KMeansPartial updateChecked(double[] points, double[] centroids) {
    int n = points.length / dims;
    if (n == 0) {
      return KMeansPartial.empty(k, dims);
    }
    if (assignsOnDevice()) {
      return updateOnDevice(points, centroids, n);
    }
    int[] assign = new int[n];
    double cost = assign(points, dims, centroids, assign);
    return updateOnJvm(points, assign, cost);
  }

  /**
   * As {@link #update(double[], double[])}, with every point's nearest centroid already known:
   * {@code assignment[i]} is the centroid of point {@code i}, as {@link #assign} computes it (a
   * caller that assigns the points anyway, for instance to group them by centroid, saves the
   * updater's own assignment pass). The transactions add each point to the centroid the
   * assignment names, and the partial's cost is the sum of the squared distances of the points to
   * those centroids; with the nearest assignment the result equals {@code update(points,
   * centroids)}'s.
   *
   * <p>On the CUDA engine ({@link #assignsOnDevice()}) the assignment is checked but not used:
   * the kernel assigns the points itself in the same launch, with the same rule (nearest, ties to
   * the lowest index), so an assignment that is not the nearest one gives different results on
   * the two engines. Inputs are not modified.
   *
   * @param points row-major {@code n x dims}, finite
   * @param centroids row-major {@code k x dims}, finite
   * @param assignment {@code n} centroid indices in {@code [0, k)}
   * @throws IllegalArgumentException naming {@code points}, {@code centroids} or
   *     {@code assignment}
   * @throws GstmException if a transaction did not commit within the retry limit
   */
  public KMeansPartial update(double[] points, double[] centroids, int[] assignment) {
    open.check();
    check(points, centroids, k, dims);
    int n = points.length / dims;
    checkAssignment(assignment, n, k);
    if (n == 0) {
      return KMeansPartial.empty(k, dims);
    }
    if (assignsOnDevice()) {
      return updateOnDevice(points, centroids, n);
    }
    return updateOnJvm(points, assignment, cost(points, dims, centroids, assignment));
  }

  /**
   * True when {@link #update} runs on the CUDA engine, where one launch assigns the points and
   * runs the transactions (a given assignment is not used there); false on the JVM engine, and
   * on the CUDA engine for shapes {@link CudaKMeans} does not take, where the points are assigned
   * on the host.
   */
  public boolean assignsOnDevice() {
    return engine instanceof CudaEngine && CudaKMeans.fits(k, dims);
  }

  private KMeansPartial updateOnJvm(double[] points, int[] assign, double cost) {
    int n = assign.length;
    int capacity = TxBatch.capacityFor(Math.min(dims + 1, KMeansWorkload.CAPACITY));
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
    Arrays.fill(types, KMeansWorkload.Type.ADD.code()); // every transaction adds to one centroid
    int[] centroid = new int[m];
    int[] first = new int[m];
    int[] count = new int[m];
    int[] firstWord = new int[m];
    int t = 0;
    for (int b = 0; b < blocks; b++) {
      int from = b * ppt;
      int to = Math.min(n, from + ppt);
      Arrays.fill(present, false);
      for (int p = from; p < to; p++) {
        present[assign[p]] = true;
      }
      for (int c = 0; c < k; c++) {
        if (!present[c]) {
          continue;
        }
        for (int s = 0; s < slices; s++) {
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
    loadedOnDevice = false;
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
    storeFor(n).writeFloat64(POINTS, points);
    loadedOnDevice = false;
    return runOnDevice(centroids, n);
  }

  /** One launch over the points the store holds. */
  private KMeansPartial runOnDevice(double[] centroids, int n) {
    TxStore s = storeFor(n);
    if (device == null) {
      device = new CudaKMeans(s, k, dims);
    }
    s.writeFloat64(ACC, new double[k * (dims + 1)]);
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
    return new KMeansPartial(k, dims, sums, counts, cost,
        new TxCounts(transactions, commits, aborts), kernelNanos);
  }

  private static int distinct(int[] assign, int from, int to, boolean[] present) {
    Arrays.fill(present, false);
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
    StoreLayout layout = KMeansWorkload.layout(n, dims, k);
    store = engine.createStore(layout);
    storePoints = n;
    loadedOnDevice = false;
    return store;
  }

  /**
   * The exact sequential reference: assigns every point as {@link #update} does and sums in
   * point order, without transactions. {@code k = centroids.length / dims}.
   */
  public static KMeansPartial sequential(double[] points, int dims, double[] centroids) {
    positive("dims", dims);
    if (centroids == null || centroids.length == 0 || centroids.length % dims != 0) {
      throw new IllegalArgumentException("centroids: expected k * dims values with k >= 1, got "
          + (centroids == null ? "null" : centroids.length));
    }
    int k = centroids.length / dims;
    check(points, centroids, k, dims);
    int n = points.length / dims;
    int[] assign = new int[n];
    double cost = assign(points, dims, centroids, assign);
    double[] sums = new double[k * dims];
    long[] counts = new long[k];
    for (int p = 0; p < n; p++) {
      int c = assign[p];
      counts[c]++;
      for (int d = 0; d < dims; d++) {
        sums[c * dims + d] += points[p * dims + d];
      }
    }
    return new KMeansPartial(k, dims, sums, counts, cost, TxCounts.NONE, 0);
  }

  /**
   * Writes each point's nearest centroid (squared Euclidean distance, ties to the lowest index)
   * into {@code assignment}; returns the sum of the squared distances (in point order). Every
   * distance is summed over the dimensions in order, so the assignment and the cost are the same
   * bits on every call. {@code assignment.length} points are assigned,
   * {@code k = centroids.length / dims}. The values must be finite; only the shapes are checked
   * here ({@link #update} checks the values).
   *
   * <p>The search is branch-free: a squared distance is never negative, so its raw bits order as
   * longs as the doubles do, and the running minimum and its index are selected with a mask
   * ({@code (d - best) >> 63}) instead of a comparison whose outcome a branch predictor cannot
   * guess. The result is exactly that of the plain loop with {@code if (d < best)}.
   *
   * @throws IllegalArgumentException naming {@code points}, {@code centroids} or
   *     {@code assignment} when the shapes do not fit
   */
  public static double assign(double[] points, int dims, double[] centroids, int[] assignment) {
    checkShapes(points, dims, centroids, assignment);
    int n = assignment.length;
    int k = centroids.length / dims;
    if (dims == 2) {
      return assign2(points, centroids, k, assignment);
    }
    double cost = 0;
    for (int p = 0; p < n; p++) {
      int best = 0;
      long bestBits = Long.MAX_VALUE;
      for (int c = 0; c < k; c++) {
        double dist = 0;
        for (int d = 0; d < dims; d++) {
          double diff = points[p * dims + d] - centroids[c * dims + d];
          dist += diff * diff;
        }
        long gap = Double.doubleToRawLongBits(dist) - bestBits;
        long closer = gap >> 63; // all ones when strictly closer
        bestBits += gap & closer;
        best ^= (best ^ c) & (int) closer;
      }
      assignment[p] = best;
      cost += Double.longBitsToDouble(bestBits);
    }
    return cost;
  }

  /**
   * {@link #assign} for two dimensions: the same distances ({@code 0 + x*x + y*y} is
   * {@code x*x + y*y}, bit for bit) without the inner loop, the centroids' coordinates in two
   * arrays, and two points searched side by side (two independent chains of selections for the
   * processor to overlap); the cost still adds the points in order.
   */
  private static double assign2(double[] points, double[] centroids, int k, int[] assignment) {
    double[] cx = new double[k];
    double[] cy = new double[k];
    for (int c = 0; c < k; c++) {
      cx[c] = centroids[2 * c];
      cy[c] = centroids[2 * c + 1];
    }
    int n = assignment.length;
    double cost = 0;
    for (int p = 0; p < n; p += 2) {
      // With n odd the last point is searched beside itself, and kept once.
      int q = Math.min(p + 1, n - 1);
      double ax = points[2 * p];
      double ay = points[2 * p + 1];
      double bx = points[2 * q];
      double by = points[2 * q + 1];
      int bestA = 0;
      int bestB = 0;
      long bitsA = Long.MAX_VALUE;
      long bitsB = Long.MAX_VALUE;
      for (int c = 0; c < k; c++) {
        double x = ax - cx[c];
        double y = ay - cy[c];
        long gap = Double.doubleToRawLongBits(x * x + y * y) - bitsA;
        long closer = gap >> 63;
        bitsA += gap & closer;
        bestA ^= (bestA ^ c) & (int) closer;
        x = bx - cx[c];
        y = by - cy[c];
        gap = Double.doubleToRawLongBits(x * x + y * y) - bitsB;
        closer = gap >> 63;
        bitsB += gap & closer;
        bestB ^= (bestB ^ c) & (int) closer;
      }
      assignment[p] = bestA;
      cost += Double.longBitsToDouble(bitsA);
      if (q != p) {
        assignment[q] = bestB;
        cost += Double.longBitsToDouble(bitsB);
      }
    }
    return cost;
  }

  /** Sum over the points of the squared distance to their assigned centroid (in point order). */
  static double cost(double[] points, int dims, double[] centroids, int[] assignment) {
    int n = assignment.length;
    double cost = 0;
    if (dims == 2) {
      for (int p = 0; p < n; p++) {
        int c = assignment[p];
        double x = points[2 * p] - centroids[2 * c];
        double y = points[2 * p + 1] - centroids[2 * c + 1];
        cost += x * x + y * y; // the general loop's 0 + x*x + y*y, bit for bit
      }
      return cost;
    }
    for (int p = 0; p < n; p++) {
      int c = assignment[p];
      double dist = 0;
      for (int d = 0; d < dims; d++) {
        double diff = points[p * dims + d] - centroids[c * dims + d];
        dist += diff * diff;
      }
      cost += dist;
    }
    return cost;
  }

  private static void checkShapes(double[] points, int dims, double[] centroids,
      int[] assignment) {
    positive("dims", dims);
    if (centroids == null || centroids.length == 0 || centroids.length % dims != 0) {
      throw new IllegalArgumentException("centroids: expected k * dims values with k >= 1, got "
          + (centroids == null ? "null" : centroids.length));
    }
    if (assignment == null) {
      throw new IllegalArgumentException("assignment must not be null");
    }
    if (points == null || (long) assignment.length * dims > points.length) {
      throw new IllegalArgumentException("points: " + assignment.length + " points of " + dims
          + " dims need " + (long) assignment.length * dims + " values, got "
          + (points == null ? "null" : points.length));
    }
  }

  /** An assignment of {@code n} points to centroids {@code 0..k-1}, or an error naming it. */
  static void checkAssignment(int[] assignment, int n, int k) {
    if (assignment == null) {
      throw new IllegalArgumentException("assignment must not be null");
    }
    if (assignment.length != n) {
      throw new IllegalArgumentException("assignment: expected one centroid per point, n = " + n
          + " entries, got " + assignment.length);
    }
    for (int i = 0; i < n; i++) {
      if (assignment[i] < 0 || assignment[i] >= k) {
        throw new IllegalArgumentException("assignment[" + i + "] = " + assignment[i]
            + " is not a centroid: centroids 0.." + (k - 1));
      }
    }
  }

  static void check(double[] points, double[] centroids, int k, int dims) {
    checkPoints(points, dims);
    checkCentroids(centroids, k, dims);
  }

  private static void checkPoints(double[] points, int dims) {
    if (points == null) {
      throw new IllegalArgumentException("points must not be null");
    }
    if (points.length % dims != 0) {
      throw new IllegalArgumentException("points: " + points.length
          + " values are not whole points of dims = " + dims);
    }
    // Large sets (a GPU's point set: 800 M values for 100 M 8-D points) are checked on all
    // cores, in slices; the first bad value found by index is the one reported.
    int slice = 1 << 22;
    int slices = (points.length + slice - 1) / slice;
    int bad = IntStream.range(0, slices).parallel().map(s -> {
      for (int i = s * slice, end = (int) Math.min(points.length, (long) (s + 1) * slice);
          i < end; i++) {
        if (!Double.isFinite(points[i])) {
          return i;
        }
      }
      return -1;
    }).filter(i -> i >= 0).min().orElse(-1);
    if (bad >= 0) {
      throw new IllegalArgumentException("points[" + bad + "] = " + points[bad]
          + " is not finite");
    }
  }

  private static void checkCentroids(double[] centroids, int k, int dims) {
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
  }

  /** Frees the store. A second close throws. */
  @Override
  public void close() {
    open.close();
    try (TxStore s = store) { // closed (when made) even when the device's buffers fail to close
      if (device != null) {
        device.close();
      }
    }
  }
}
