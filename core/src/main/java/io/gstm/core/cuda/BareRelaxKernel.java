package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import io.gstm.core.engine.OpenState;
import io.gstm.core.engine.Resources;
import io.gstm.core.graph.CsrGraph;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * The bare relaxation bound of {@code gstm bench-graph} ({@code bare_relax.cu}): data-driven
 * Bellman-Ford with a 64-bit atomicMin on the values and no isolation, a warp per frontier
 * vertex, one launch per round; the host reads back only the next frontier's length. What
 * gstm's transactional kernel costs is its time over this one's on the same graph in the same
 * run.
 *
 * <p>Owns the graph's copy on the device, the values, the frontiers, the stamps and the
 * counter; the caller closes it (before the engine).
 */
public final class BareRelaxKernel implements AutoCloseable {
  static final String MODULE = "bare_relax";
  static final String SYMBOL = "gstm_bare_relax_round";
  static final int ARGS_BYTES = 88;
  private static final int THREADS_PER_BLOCK = 256;

  /**
   * What one run did.
   *
   * @param values the fixpoint, one value per vertex
   * @param rounds launches
   * @param examined edges examined, re-relaxations included
   * @param kernelNanos GPU time of the launches
   * @param totalNanos wall time of the run, uploads, host work between rounds and download
   *     included
   */
  public record Result(double[] values, int rounds, long examined, long kernelNanos,
      long totalNanos) {}

  private final CudaEngine engine;
  private final int vertexCount;
  private final boolean components;
  private final boolean weighted;
  private final List<DeviceBuffer> owned = new ArrayList<>();
  private final DeviceBuffer offsets;
  private final DeviceBuffer targets;
  private final DeviceBuffer weights;
  private final DeviceBuffer values;
  private final DeviceBuffer[] frontiers = new DeviceBuffer[2];
  private final DeviceBuffer count;
  private final DeviceBuffer stamps;
  private final DeviceBuffer examined;
  private int stamp;
  private final OpenState open = new OpenState("bare relaxation kernel");

  /**
   * Uploads {@code graph} to {@code engine}'s device. {@code components}: labels (weight 0);
   * else shortest paths, with the graph's weights when it has them (else weight 1).
   */
  public BareRelaxKernel(CudaEngine engine, CsrGraph graph, boolean components) {
    this.engine = engine;
    this.vertexCount = graph.vertexCount();
    this.components = components;
    this.weighted = !components && graph.weights() != null;
    engine.bind();
    int n = Math.max(1, vertexCount);
    int m = graph.edgeCount();
    DeviceBuffer[] held = DeviceBuffer.allocate(false, 4L * (vertexCount + 1),
        4L * Math.max(1, m), weighted ? 8L * Math.max(1, m) : 8, 8L * n, 4L * n, 4L * n, 4,
        4L * n, 8);
    owned.addAll(Arrays.asList(held));
    offsets = held[0];
    targets = held[1];
    weights = held[2];
    values = held[3];
    frontiers[0] = held[4];
    frontiers[1] = held[5];
    count = held[6];
    stamps = held[7];
    examined = held[8];
    Resources.closeOnExcept(owned, all -> {
      offsets.upload(Pointer.to(graph.offsets()), 4L * (vertexCount + 1));
      if (m > 0) {
        targets.upload(Pointer.to(graph.targets()), 4L * m);
        if (weighted) {
          weights.upload(Pointer.to(graph.weights()), 8L * m);
        }
      }
      stamps.zero();
      return all;
    });
  }

  /**
   * Relaxes from {@code initial} (non-negative values, +infinity for unreached), starting with
   * the out-edges of the distinct vertices {@code frontier}, until a round lowers nothing or
   * {@code maxRounds} rounds ran.
   */
  public Result run(double[] initial, int[] frontier, int maxRounds) {
    open.check();
    if (initial.length != vertexCount) {
      throw new IllegalArgumentException("initial: expected one value per vertex ("
          + vertexCount + "), got " + initial.length);
    }
    if (frontier.length > vertexCount) {
      throw new IllegalArgumentException("frontier: more vertices than the graph has");
    }
    long start = System.nanoTime();
    engine.bind();
    if (vertexCount > 0) {
      values.upload(Pointer.to(initial), 8L * vertexCount);
    }
    examined.zero();
    int n = frontier.length;
    if (n > 0) {
      frontiers[0].upload(Pointer.to(frontier), 4L * n);
    }
    CUfunction f = engine.function(MODULE, SYMBOL);
    int maxBlocks = engine.multiprocessors() * 8;
    int warpsPerBlock = THREADS_PER_BLOCK / 32;
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
          .putLong(offsets.address()).putLong(targets.address()).putLong(weights.address())
          .putLong(values.address()).putLong(frontiers[in].address())
          .putLong(frontiers[1 - in].address()).putLong(count.address())
          .putLong(stamps.address()).putLong(examined.address())
          .putInt(n).putInt(stamp).putInt(components ? 1 : 0).putInt(weighted ? 1 : 0)
          .array();
      // A warp per frontier vertex.
      int blocks = (int) Math.max(1, Math.min(maxBlocks,
          ((long) n + warpsPerBlock - 1) / warpsPerBlock));
      Pointer params = Pointer.to(Pointer.to(args));
      kernelNanos += engine.timed(() -> CudaErrors.call("launch bare relaxation round",
          () -> cuLaunchKernel(f, blocks, 1, 1, THREADS_PER_BLOCK, 1, 1, 0, null, params,
              null)));
      count.download(Pointer.to(next), 4);
      n = next[0];
      in = 1 - in;
      rounds++;
    }
    double[] out = new double[vertexCount];
    if (vertexCount > 0) {
      values.download(Pointer.to(out), 8L * vertexCount);
    }
    long[] e = new long[1];
    examined.download(Pointer.to(e), 8);
    return new Result(out, rounds, e[0], kernelNanos, System.nanoTime() - start);
  }

  @Override
  public void close() {
    open.close();
    engine.bind();
    DeviceBuffer.closeAll(owned);
  }
}
