package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import io.gstm.core.engine.OpenState;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Connected components of a symmetric graph by union-find on the device ({@code
 * graph_components.cu}), for a run of {@link CudaGraphRelax} whose frontier holds every vertex
 * with edges: each vertex ends with its component's lowest starting value, the fixpoint that
 * label propagation's rounds reach, and each vertex lowered is written in one PR-STM
 * transaction with its bit set in the run's {@code changed} bits. Most edges are never read:
 * every vertex links its first {@value #FIRST_NEIGHBOURS} neighbours, the most common root of
 * {@value #SAMPLES} sampled vertices is taken as the giant component's, and only the vertices
 * outside it link the rest of their edges (Sutton et al.'s Afforest, IPDPS 2018).
 *
 * <p>Owns its forest and keys on the device: 12 bytes per vertex. {@link CudaGraphRelax}
 * creates one at its first components run that qualifies and closes it with itself.
 */
final class CudaComponents implements AutoCloseable {
  static final String MODULE = "graph_components";
  static final String INIT = "gstm_components_init";
  static final String LINK_ONE = "gstm_components_link_one";
  static final String COMPRESS = "gstm_components_compress";
  static final String SAMPLE = "gstm_components_sample";
  static final String LINK_REST = "gstm_components_link_rest";
  static final String LOWEST = "gstm_components_lowest";
  static final String WRITE = "gstm_components_write";
  /** The kernels' symbols, for {@link CudaEngine#kernelSymbols()}. */
  static final List<String> SYMBOLS =
      List.of(INIT, LINK_ONE, COMPRESS, SAMPLE, LINK_REST, LOWEST, WRITE);
  static final int ARGS_BYTES = 88;
  /** Neighbours every vertex links before the sample. */
  static final int FIRST_NEIGHBOURS = 2;
  /** Vertices whose roots are sampled to find the giant component's. */
  static final int SAMPLES = 1024;
  private static final int THREADS = 256;
  /** No root skips its edges. */
  private static final int NO_SKIP = -1;

  private final CudaEngine engine;
  private final int vertexCount;
  private final DeviceBuffer parent;
  private final DeviceBuffer minKeys;
  private final DeviceBuffer samples;
  private final OpenState open = new OpenState("CUDA components");

  CudaComponents(CudaEngine engine, int vertexCount) {
    this.engine = engine;
    this.vertexCount = vertexCount;
    engine.bind();
    DeviceBuffer[] held = DeviceBuffer.allocate(false, 4L * Math.max(1, vertexCount),
        8L * Math.max(1, vertexCount), 4L * SAMPLES);
    this.parent = held[0];
    this.minKeys = held[1];
    this.samples = held[2];
  }

  /** Where a run reads and writes: device addresses, and the store's view and values region. */
  record Target(byte[] view, long offsets, long targets, int valuesRegion, long changed,
      long counters, long stats) {}

  /** What a run did: its GPU time, and the root whose vertices skipped their edges (-1: none). */
  record Ran(long kernelNanos, int skippedRoot) {}

  /**
   * Finds the components and lowers every vertex to its component's lowest value. The caller
   * zeroes {@code changed}, the counters and the stats before.
   */
  Ran run(Target t) {
    open.check();
    engine.bind();
    int blocks = (vertexCount + THREADS - 1) / THREADS;
    long nanos = engine.timed(() -> {
      launch(INIT, t, 0, NO_SKIP, blocks);
      for (int k = 0; k < FIRST_NEIGHBOURS; k++) {
        launch(LINK_ONE, t, k, NO_SKIP, blocks);
      }
      launch(COMPRESS, t, 0, NO_SKIP, blocks);
      launch(SAMPLE, t, 0, NO_SKIP, (SAMPLES + THREADS - 1) / THREADS);
    });
    int[] roots = new int[SAMPLES];
    samples.download(Pointer.to(roots), 4L * SAMPLES);
    int skip = mostCommon(roots);
    nanos += engine.timed(() -> {
      launch(LINK_REST, t, FIRST_NEIGHBOURS, skip, blocks);
      launch(COMPRESS, t, 0, NO_SKIP, blocks);
      launch(LOWEST, t, 0, NO_SKIP, blocks);
      launch(WRITE, t, 0, NO_SKIP, blocks);
    });
    return new Ran(nanos, skip);
  }

  /** The value most of {@code roots} hold (the lowest of those tied). */
  static int mostCommon(int[] roots) {
    int[] sorted = roots.clone();
    Arrays.sort(sorted);
    int best = sorted.length == 0 ? NO_SKIP : sorted[0];
    int bestRun = 0;
    for (int i = 0; i < sorted.length;) {
      int j = i;
      while (j < sorted.length && sorted[j] == sorted[i]) {
        j++;
      }
      if (j - i > bestRun) {
        bestRun = j - i;
        best = sorted[i];
      }
      i = j;
    }
    return best;
  }

  private void launch(String symbol, Target t, int neighbour, int skip, int blocks) {
    byte[] args = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(t.offsets()).putLong(t.targets()).putLong(parent.address())
        .putLong(minKeys.address()).putLong(samples.address()).putLong(t.changed())
        .putLong(t.counters()).putLong(t.stats())
        .putInt(vertexCount).putInt(t.valuesRegion()).putInt(neighbour).putInt(skip)
        .putInt(SAMPLES).putInt(0).array();
    CUfunction f = engine.function(MODULE, symbol);
    Pointer params = Pointer.to(Pointer.to(t.view()), Pointer.to(args));
    CudaErrors.call("launch " + symbol,
        () -> cuLaunchKernel(f, Math.max(1, blocks), 1, 1, THREADS, 1, 1, 0, null, params, null));
  }

  @Override
  public void close() {
    open.close();
    engine.bind();
    DeviceBuffer.closeAll(List.of(parent, minKeys, samples));
  }
}
