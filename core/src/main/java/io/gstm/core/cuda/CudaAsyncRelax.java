package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchCooperativeKernel;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * A relaxation with no rounds ({@code gstm_graph_relax_async} in {@code graph_relax.cu}): one
 * cooperative launch of persistent warps that take vertices from priority buckets kept in rings
 * on the device ({@code bucket_rings.cuh}), relax their out-edges (a PR-STM transaction each, as
 * the rounds) and queue what they lower, with no grid-wide barrier. On a graph of high diameter
 * (a grid, a road network: thousands of rounds of a few hundred vertices) a lowered vertex is
 * relaxed from as soon as a warp is free instead of a round later.
 *
 * <p>Owns the rings, their control block and a bucket flag per vertex (device memory, from the
 * engine's pool). {@link CudaGraphRelax} makes one at its first asynchronous run and runs each
 * launch through {@link #launch}; a launch that gives up (a ring full) leaves the values valid
 * (each an upper bound reached by real paths) and this object reset, and the caller starts over
 * from them. Tuning (system properties, read at each launch): {@code gstm.graph.asyncBlocksPerSm}
 * (blocks of 256 threads per SM, default {@value #DEFAULT_BLOCKS_PER_SM}), {@code
 * gstm.graph.asyncBatch} (vertices a warp takes at a time, 1..32, default {@value
 * #DEFAULT_BATCH}), {@code gstm.graph.asyncLookahead} (buckets past the current one an idle warp
 * takes from, default {@value #DEFAULT_LOOKAHEAD}).
 */
final class CudaAsyncRelax implements AutoCloseable {
  static final String SYMBOL = "gstm_graph_relax_async";
  static final String INIT_SYMBOL = "gstm_graph_async_init";
  static final int ARGS_BYTES = 184;
  /** Rings: the window holds one bucket fewer (bucket_rings.cuh). */
  static final int SLOTS = 8;
  private static final int LINE = 32;
  private static final int HEADER_WORDS = 4 * LINE;
  private static final int RING_WORDS = 3 * LINE;
  private static final int THREADS = 256;
  private static final int ABORT_FULL = 1;
  private static final int ABORT_LIMIT = 2;
  static final int DEFAULT_BLOCKS_PER_SM = 2;
  static final int DEFAULT_BATCH = 8;
  static final int DEFAULT_LOOKAHEAD = 1;
  /** Cells per ring at least and at most (a bucket of a road network holds a few thousand). */
  private static final int MIN_CAPACITY = 1 << 12;
  private static final int MAX_CAPACITY = 1 << 21;

  private final CudaEngine engine;
  private final int vertexCount;
  private final int capacity;
  private final DeviceBuffer cells;
  private final DeviceBuffer seqs;
  private final DeviceBuffer ctl;
  private final DeviceBuffer flags;

  /** Rings for a graph of {@code vertexCount} vertices, empty. */
  CudaAsyncRelax(CudaEngine engine, int vertexCount) {
    this.engine = engine;
    this.vertexCount = vertexCount;
    this.capacity = capacityFor(vertexCount);
    DeviceBuffer[] held = engine.bufferPool().takeAll(false, 8L * SLOTS * capacity,
        4L * SLOTS * capacity, 4L * (HEADER_WORDS + SLOTS * RING_WORDS),
        4L * Math.max(1, vertexCount));
    cells = held[0];
    seqs = held[1];
    ctl = held[2];
    flags = held[3];
    try {
      reset();
    } catch (RuntimeException e) {
      engine.bufferPool().giveAll(List.of(held));
      throw e;
    }
  }

  /**
   * Cells per ring: an eighth of the vertices, a power of two within the bounds; {@code
   * gstm.graph.asyncCapacity} (a power of two, at least 32) sets it, for tests of full rings.
   */
  static int capacityFor(int vertexCount) {
    int want = Math.max(MIN_CAPACITY, Math.min(MAX_CAPACITY, vertexCount / 8));
    int set = Integer.getInteger("gstm.graph.asyncCapacity", Integer.highestOneBit(want - 1) << 1);
    if (set < 32 || Integer.bitCount(set) != 1) {
      throw new IllegalArgumentException(
          "gstm.graph.asyncCapacity: expected a power of two, at least 32, got " + set);
    }
    return set;
  }

  /** Empty rings (every cell free for its first lap) and no vertex queued. */
  private void reset() {
    flags.fill32(-1, Math.max(1, vertexCount));
    ctl.zero();
    int n = SLOTS * capacity;
    CUfunction init = engine.function(CudaGraphRelax.MODULE, INIT_SYMBOL);
    Pointer params = Pointer.to(Pointer.to(new long[] {seqs.address()}),
        Pointer.to(new int[] {n}), Pointer.to(new int[] {capacity - 1}));
    CudaErrors.call("launch graph relaxation rings init", () -> cuLaunchKernel(init,
        (n + THREADS - 1) / THREADS, 1, 1, THREADS, 1, 1, 0, null, params, null));
  }

  /**
   * One launch's inputs: the seeds (the rounds' work items and a far list), where vertices past
   * the window go, the caller's counters, and the buckets.
   *
   * @param seedItems work items (vertex, first edge) on the device, or 0 with none
   * @param seedFar far vertices on the device
   * @param far the far list this launch fills, and {@code farCount} its length (zeroed)
   * @param base where bucket 0 starts; {@code width} a bucket's width (+infinity: one bucket)
   * @param maxBuckets the launch gives up on reaching this bucket
   */
  record Launch(long seedItems, int seedItemCount, long seedFar, int seedFarCount, long far,
      long farCount, long farStamps, long farMin, long counters, long stats, long changed,
      double base, double width, int maxBuckets, int farEpoch) {}

  /**
   * What a launch came to.
   *
   * @param buckets the buckets it went through
   * @param full a ring ran full: the run must start over from the values (this object is reset)
   * @param limit it reached {@code maxBuckets} with work left
   */
  record Ran(int buckets, boolean full, boolean limit, long kernelNanos) {}

  Ran launch(byte[] view, Launch l, CudaGraphRelax.Regions regions,
      CudaGraphRelax.Settings settings) {
    int blocks = blocks();
    int[] header = new int[HEADER_WORDS];
    header[3 * LINE] = blocks;  // seeding blocks
    ctl.upload(Pointer.to(header), 4L * HEADER_WORDS);
    byte[] args = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(l.seedItems()).putLong(l.seedFar()).putLong(cells.address())
        .putLong(seqs.address()).putLong(ctl.address()).putLong(flags.address())
        .putLong(l.counters()).putLong(l.stats()).putLong(l.changed()).putLong(l.far())
        .putLong(l.farCount()).putLong(l.farStamps()).putLong(l.farMin())
        .putDouble(l.base()).putDouble(l.width())
        .putInt(l.seedItemCount()).putInt(l.seedFarCount()).putInt(capacity).putInt(SLOTS)
        .putInt(setting("gstm.graph.asyncLookahead", DEFAULT_LOOKAHEAD, 0, SLOTS - 2))
        .putInt(l.maxBuckets()).putInt(l.farEpoch())
        .putInt(regions.values()).putInt(regions.targets()).putInt(regions.weights())
        .putInt(regions.offsets()).putInt(settings.components() ? 1 : 0)
        .putInt(settings.weighted() ? 1 : 0).putInt(settings.maxRetries())
        .putInt(setting("gstm.graph.asyncBatch", DEFAULT_BATCH, 1, 32)).putInt(0).array();
    CUfunction f = engine.function(CudaGraphRelax.MODULE, SYMBOL);
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(args));
    long nanos = engine.timed(() -> CudaErrors.call("launch asynchronous graph relaxation",
        () -> cuLaunchCooperativeKernel(f, blocks, 1, 1, THREADS, 1, 1, 0, null, params)));
    ctl.download(Pointer.to(header), 4L * HEADER_WORDS);
    int abort = header[2 * LINE];
    if (abort != 0) {
      reset();
    }
    return new Ran(header[0] + 1, (abort & ABORT_FULL) != 0, (abort & ABORT_LIMIT) != 0, nanos);
  }

  /** Blocks of the launch: all resident at once (warps wait on each other's items). */
  private int blocks() {
    int[] perSm = new int[1];
    CUfunction f = engine.function(CudaGraphRelax.MODULE, SYMBOL);
    CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
        () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(perSm, f, THREADS, 0));
    int want = setting("gstm.graph.asyncBlocksPerSm", DEFAULT_BLOCKS_PER_SM, 1, 64);
    return Math.max(1, Math.min(perSm[0], want)) * engine.multiprocessors();
  }

  private static int setting(String name, int fallback, int min, int max) {
    int v = Integer.getInteger(name, fallback);
    if (v < min || v > max) {
      throw new IllegalArgumentException(name + ": expected " + min + ".." + max + ", got " + v);
    }
    return v;
  }

  @Override
  public void close() {
    engine.bufferPool().giveAll(List.of(cells, seqs, ctl, flags));
  }
}
