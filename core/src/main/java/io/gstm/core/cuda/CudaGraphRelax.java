package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.engine.Resources;
import io.gstm.core.graph.RoundStats;
import io.gstm.core.store.TxStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Device-resident graph relaxation rounds ({@code graph_relax.cu}): the frontier stays on the
 * GPU as a queue of work items, each a chunk of at most {@value #CHUNK_EDGES} out-edges of one
 * vertex; each round is one launch of {@code gstm_graph_relax_round} (a warp per item, a PR-STM
 * transaction per edge that may improve its target) that relaxes the queue and fills the next
 * one, and the host reads back only the next queue's length.
 *
 * <p>Owns its queues, stamps and counters (device memory); the store stays owned by the caller.
 * {@link io.gstm.core.graph.GraphRelaxer} creates one per graph and closes it with itself.
 */
public final class CudaGraphRelax implements AutoCloseable {
  static final String MODULE = "graph_relax";
  static final String SYMBOL = "gstm_graph_relax_round";
  static final int ARGS_BYTES = 96;
  /** Out-edges of one vertex per work item ({@code kChunkEdges} in the kernel). */
  static final int CHUNK_EDGES = 256;
  private static final int STATS = 3;

  private final CudaEngine engine;
  private final CudaTxStore store;
  private final int[] offsets;
  private final int capacityItems;
  private final DeviceBuffer[] queues = new DeviceBuffer[2];
  private final DeviceBuffer count;
  private final DeviceBuffer stamps;
  private final DeviceBuffer counters;
  private final DeviceBuffer stats;
  /** A byte per vertex, 1 when a commit of the last run lowered it. */
  private final DeviceBuffer changed;
  private int stamp;
  private boolean closed;

  /**
   * Allocates two queues with room for every vertex's chunks once and one stamp per vertex, for
   * the graph of CSR {@code offsets}, on {@code store}'s engine. The caller closes the result.
   */
  public CudaGraphRelax(TxStore store, int[] offsets) {
    if (!(store instanceof CudaTxStore s)) {
      throw new IllegalArgumentException("store: not a CUDA store");
    }
    long items = 0;
    for (int v = 0; v + 1 < offsets.length; v++) {
      items += chunks(offsets, v);
    }
    if (items > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException("graph: " + items + " edge chunks exceed a queue");
    }
    this.store = s;
    this.engine = s.engine();
    engine.bind();
    this.offsets = offsets;
    this.capacityItems = (int) Math.max(1, items);
    int vertexCount = Math.max(1, offsets.length - 1);
    // Queues (two, swapped per round), the queue count, stamps, counters, statistics.
    DeviceBuffer[] held = DeviceBuffer.allocate(false, 8L * capacityItems, 8L * capacityItems, 4,
        4L * vertexCount, 8L * Counter.COUNT, 8L * STATS, vertexCount);
    Resources.closeOnExcept(Arrays.asList(held), all -> {
      held[3].zero();
      return all;
    });
    queues[0] = held[0];
    queues[1] = held[1];
    this.count = held[2];
    this.stamps = held[3];
    this.counters = held[4];
    this.stats = held[5];
    this.changed = held[6];
  }

  /**
   * Where the graph lies in the store: the indices of its regions.
   *
   * @param values vertex values (FLOAT64), updated by the rounds
   * @param targets edge targets, in CSR order
   * @param weights edge weights
   * @param offsets CSR offsets of each vertex's out-edges
   */
  public record Regions(int values, int targets, int weights, int offsets) {}

  /**
   * How the rounds run.
   *
   * @param components min label (connected components) instead of min distance
   * @param weighted shortest paths add the edge weights (else 1 per edge)
   * @param threadsPerBlock threads per block, rounded up to a warp, at most 256
   * @param maxRetries attempts of a transaction before its source is left to the next round
   * @param maxRounds rounds at most
   */
  public record Settings(boolean components, boolean weighted, int threadsPerBlock,
      int maxRetries, int maxRounds) {}

  private static int chunks(int[] offsets, int v) {
    return (offsets[v + 1] - offsets[v] + CHUNK_EDGES - 1) / CHUNK_EDGES;
  }

  /**
   * Runs rounds from the distinct vertices {@code frontier} until a round queues nothing or
   * {@code settings.maxRounds()} rounds ran; the values region must already hold the starting
   * values.
   *
   * @return the statistics
   */
  public RoundStats run(int[] frontier, Regions regions, Settings settings) {
    int valuesRegion = regions.values();
    int targetsRegion = regions.targets();
    int weightsRegion = regions.weights();
    int offsetsRegion = regions.offsets();
    boolean components = settings.components();
    boolean weighted = settings.weighted();
    int threadsPerBlock = settings.threadsPerBlock();
    int maxRetries = settings.maxRetries();
    int maxRounds = settings.maxRounds();
    if (closed) {
      throw new IllegalStateException("graph relaxation buffers are closed");
    }
    long total = 0;
    for (int u : frontier) {
      total += chunks(offsets, u);
    }
    if (total > capacityItems) {
      throw new IllegalArgumentException("frontier: " + total + " edge chunks exceed the queue of "
          + capacityItems + " (duplicate vertices?)");
    }
    int n = (int) total;
    int[] items = new int[2 * n];
    int at = 0;
    for (int u : frontier) {
      for (int e = offsets[u]; e < offsets[u + 1]; e += CHUNK_EDGES) {
        items[at++] = u;
        items[at++] = e;
      }
    }
    engine.bind();
    counters.zero();
    stats.zero();
    changed.zero();
    int tpb = Math.min(256, (threadsPerBlock + 31) / 32 * 32);
    int warpsPerBlock = tpb / 32;
    // Enough resident warps to fill every SM (2,048 threads each), a warp per queued vertex.
    int maxBlocks = engine.multiprocessors() * (2048 / tpb);
    CUfunction f = engine.function(MODULE, SYMBOL);
    byte[] view = CudaEngine.view(store);
    if (n > 0) {
      queues[0].upload(Pointer.to(items), 8L * n);
    }
    int in = 0;
    int rounds = 0;
    long kernelNanos = 0;
    int[] next = new int[1];
    while (n > 0 && rounds < maxRounds) {
      if (stamp == Integer.MAX_VALUE) {
        stamps.zero();
        stamp = 0;
      }
      stamp++;
      count.zero();
      byte[] args = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
          .putLong(queues[in].address()).putLong(queues[1 - in].address())
          .putLong(count.address()).putLong(stamps.address()).putLong(counters.address())
          .putLong(stats.address()).putInt(n).putInt(stamp).putInt(valuesRegion)
          .putInt(targetsRegion).putInt(weightsRegion).putInt(offsetsRegion)
          .putInt(components ? 1 : 0).putInt(weighted ? 1 : 0).putInt(maxRetries).putInt(0)
          .putLong(changed.address()).array();
      int blocks = (int) Math.min(maxBlocks, ((long) n + warpsPerBlock - 1) / warpsPerBlock);
      Pointer params = Pointer.to(Pointer.to(view), Pointer.to(args));
      kernelNanos += engine.timed(() -> CudaErrors.call("launch graph relaxation round",
          () -> cuLaunchKernel(f, blocks, 1, 1, tpb, 1, 1, 0, null, params, null)));
      count.download(Pointer.to(next), 4);
      n = next[0];
      in = 1 - in;
      rounds++;
    }
    long[] c = new long[Counter.COUNT];
    counters.download(Pointer.to(c), 8L * c.length);
    long[] s = new long[STATS];
    stats.download(Pointer.to(s), 8L * STATS);
    long aborts = 0;
    for (Counter k : Counter.values()) {
      if (k.isAbort()) {
        aborts += c[k.ordinal()];
      }
    }
    TxCounts tx = new TxCounts(s[0], c[Counter.COMMITS.ordinal()], aborts);
    return new RoundStats(rounds, n == 0, tx, s[1], s[2], kernelNanos);
  }

  /**
   * The vertices the last {@link #run} lowered, ascending: read from a byte per vertex that its
   * commits set, rather than by comparing every value before and after on the host.
   */
  public int[] changedVertices() {
    if (closed) {
      throw new IllegalStateException("graph relaxation buffers are closed");
    }
    int n = offsets.length - 1;
    if (n <= 0) {
      return new int[0];
    }
    engine.bind();
    byte[] flags = new byte[n];
    changed.download(Pointer.to(flags), n);
    int count = 0;
    for (byte f : flags) {
      count += f;
    }
    int[] out = new int[count];
    for (int v = 0, i = 0; i < count; v++) {
      if (flags[v] != 0) {
        out[i++] = v;
      }
    }
    return out;
  }

  @Override
  public void close() {
    if (closed) {
      throw new IllegalStateException("graph relaxation buffers already closed");
    }
    closed = true;
    engine.bind();
    DeviceBuffer.closeAll(List.of(queues[0], queues[1], count, stamps, counters,
        stats, changed));
  }
}
