package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import io.gstm.core.batch.Counter;
import io.gstm.core.engine.OpenState;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed launch of {@code gstm_kmeans_update_s16(StoreView view, KMeansArgs args)} from
 * {@code kmeans_update.cu}: assignment, per-block aggregation (registers, then shared memory) and one
 * transaction per (centroid, record slice) and block of a small persistent grid, in one launch.
 *
 * <p>Owns its small device buffers (centroids, cost, counters); the store stays owned by the
 * caller. {@link io.gstm.core.kmeans.KMeansUpdater} creates one and closes it with itself.
 */
public final class CudaKMeans implements AutoCloseable {
  static final String MODULE = "kmeans_update";
  static final String SYMBOL = "gstm_kmeans_commit_s" + KMeansWorkload.CAPACITY;
  static final String ASSIGN_SYMBOL = "gstm_kmeans_assign";
  static final int ARGS_BYTES = 80;
  /** Most threads per block the kernel is compiled for. */
  static final int MAX_THREADS = 512;
  /** System property: blocks of the persistent grid (0 or absent: {@link #gridBlocks}). */
  public static final String BLOCKS_PROPERTY = "gstm.kmeans.blocks";

  /**
   * Blocks of the assign launch: two per SM (assignment wants every SM; the partials of all
   * blocks are combined before the one commit per centroid), or {@value #BLOCKS_PROPERTY}.
   */
  static int gridBlocks(int multiprocessors) {
    int forced = Integer.getInteger(BLOCKS_PROPERTY, 0);
    return forced > 0 ? Math.min(forced, maxBlocks(multiprocessors))
        : 2 * Math.max(1, multiprocessors);
  }

  /** Most blocks the scratch memory is sized for. */
  static int maxBlocks(int multiprocessors) {
    return 8 * Math.max(1, multiprocessors);
  }

  /** Dynamic shared memory a launch may take without opting in. */
  public static final int MAX_SHARED_BYTES = 48 * 1024;

  /**
   * What a launch did.
   *
   * @param transactions transactions run
   * @param commits committed transactions
   * @param aborts aborted attempts
   * @param abandoned transactions that reached the retry limit (their contribution is lost)
   * @param cost sum of squared distances to the nearest centroid
   * @param kernelNanos GPU time
   */
  public record Stats(long transactions, long commits, long aborts, long abandoned, double cost,
      long kernelNanos) {}

  private final CudaEngine engine;
  private final CudaTxStore store;
  private final int k;
  private final int dims;
  private final DeviceBuffer centroids;
  private final DeviceBuffer cost;
  private final DeviceBuffer counters;
  private final DeviceBuffer stats;
  private final DeviceBuffer partials;
  private final DeviceBuffer partialCost;
  private final OpenState open = new OpenState("CUDA k-means");

  /** True when k centroids of dims dimensions fit the kernel's shared memory. */
  public static boolean fits(int k, int dims) {
    return 8L * ((long) k * dims + (long) k * (dims + 1)) <= MAX_SHARED_BYTES;
  }

  /** Buffers for {@code k} centroids of {@code dims} on {@code store}'s engine; caller closes. */
  public CudaKMeans(TxStore store, int k, int dims) {
    if (!(store instanceof CudaTxStore s)) {
      throw new IllegalArgumentException("store: not a CUDA store");
    }
    if (!fits(k, dims)) {
      throw new IllegalArgumentException("k * (2 * dims + 1) doubles exceed the kernel's "
          + MAX_SHARED_BYTES + " bytes of shared memory");
    }
    this.store = s;
    this.engine = s.engine();
    this.k = k;
    this.dims = dims;
    engine.bind();
    int scratchBlocks = maxBlocks(engine.multiprocessors());
    DeviceBuffer[] held = DeviceBuffer.allocate(false, 8L * k * dims, 8, 8L * Counter.COUNT, 8,
        8L * scratchBlocks * k * (dims + 1), 8L * scratchBlocks);
    centroids = held[0];
    cost = held[1];
    counters = held[2];
    stats = held[3];
    partials = held[4];
    partialCost = held[5];
  }

  /**
   * Runs one update over the first {@code n} points of the points region; the accumulator
   * region must be zero (or hold what to add to).
   */
  public Stats run(double[] centroidValues, int n, int pointsPerGroup, int accRegion,
      int pointsRegion, int threadsPerBlock, int maxRetries) {
    open.check();
    if (centroidValues.length != k * dims) {
      throw new IllegalArgumentException("centroids: expected " + k * dims + " values");
    }
    engine.bind();
    centroids.upload(Pointer.to(centroidValues), 8L * centroidValues.length);
    cost.zero();
    counters.zero();
    stats.zero();
    int tpb = Math.min(MAX_THREADS, (threadsPerBlock + 31) / 32 * 32);
    long groups = ((long) n + pointsPerGroup - 1) / pointsPerGroup;
    int blocks = (int) Math.max(1, Math.min(groups, gridBlocks(engine.multiprocessors())));
    int assignShared = 8 * (k * dims + k * (dims + 1));
    int commitShared = 8 * k * (dims + 1);
    byte[] args = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(centroids.address()).putLong(cost.address()).putLong(counters.address())
        .putLong(stats.address()).putInt(n).putInt(dims).putInt(k).putInt(pointsPerGroup)
        .putInt(accRegion).putInt(pointsRegion).putInt(maxRetries).putInt(blocks)
        .putLong(partials.address()).putLong(partialCost.address()).array();
    byte[] view = CudaEngine.view(store);
    CUfunction assign = engine.function(MODULE, ASSIGN_SYMBOL);
    CUfunction commit = engine.function(MODULE, SYMBOL);
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(args));
    // Both launches on the default stream: the commit sees every block's partials.
    long nanos = engine.timed(() -> {
      CudaErrors.call("launch k-means assignment",
          () -> cuLaunchKernel(assign, blocks, 1, 1, tpb, 1, 1, assignShared, null, params, null));
      CudaErrors.call("launch k-means commit",
          () -> cuLaunchKernel(commit, 1, 1, 1, 256, 1, 1, commitShared, null, params, null));
    });
    long[] c = new long[Counter.COUNT];
    counters.download(Pointer.to(c), 8L * c.length);
    long[] s = new long[1];
    stats.download(Pointer.to(s), 8);
    double[] total = new double[1];
    cost.download(Pointer.to(total), 8);
    long aborts = 0;
    for (Counter x : Counter.values()) {
      if (x.isAbort()) {
        aborts += c[x.ordinal()];
      }
    }
    return new Stats(s[0], c[Counter.COMMITS.ordinal()], aborts,
        c[Counter.ABANDONED.ordinal()], total[0], nanos);
  }

  @Override
  public void close() {
    open.close();
    engine.bind();
    DeviceBuffer.closeAll(List.of(centroids, cost, counters, stats, partials, partialCost));
  }
}
