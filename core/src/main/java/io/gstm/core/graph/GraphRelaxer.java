package io.gstm.core.graph;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.cuda.CudaGraphRelax;
import io.gstm.core.cuda.DeviceCsr;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.OpenState;
import io.gstm.core.engine.Resources;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.jvm.JvmGraphRelax;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.graph.GraphRelaxWorkload;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Relaxes the vertex values of one graph (one Spark partition's subgraph) to a local fixpoint
 * with transactions: in each round, every active vertex's out-edges are split into chunks of at
 * most {@link GraphRelaxWorkload#CHUNK} edges, one transaction per chunk ({@link GraphRelaxWorkload}); the
 * vertices whose value dropped in a round are the next round's active vertices, until none
 * drops.
 *
 * <p>On the {@link CudaEngine} the rounds stay on the device ({@link CudaGraphRelax}): the
 * frontier is a device queue of work items, each up to 256 out-edges of one vertex relaxed by a
 * warp, and a lane first drops its edge if a plain read shows it cannot improve its target
 * (values only decrease); an edge left runs one transaction (the target read and written, the
 * source's value as the filter read it an input), so most edges run none. On the {@link JvmEngine}
 * its workers relax in priority order instead of rounds ({@link JvmGraphRelax}: smallest value
 * first, so the work stays near Dijkstra's on graphs of any diameter): PR-STM transactions over
 * the store's values, the edges read from the graph's arrays, no batch built. On other engines
 * every chunk is one transaction of a {@link TxBatch} per round.
 *
 * <p>The constructor uploads the graph once into a store on {@code engine} (on the JVM engine
 * only the values: the edges stay in the graph's arrays); the store stays resident across
 * {@link #relax} calls. Not thread-safe: one relax at a time. The caller closes
 * the relaxer (before the engine); closing it frees the store.
 */
public final class GraphRelaxer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GraphRelaxer.class);
  private static final int CAPACITY = GraphRelaxWorkload.CAPACITY;
  private static final int CHUNK = GraphRelaxWorkload.CHUNK;

  /** The store's regions, in the order of its layout. */
  private static final CudaGraphRelax.Regions REGIONS = new CudaGraphRelax.Regions(0, 1, 2, 3);
  private static final int VALUES = REGIONS.values();

  private final Engine engine;
  /** The graph on the host; null when it came from a {@link DeviceCsr}. */
  private final CsrGraph graph;
  private final int vertexCount;
  private final int edgeCount;
  private final int[] offsets;
  private final RelaxationKind kind;
  private final RelaxOptions options;
  private final TxStore store;
  private final boolean weighted;
  /**
   * The GPU's near-far bucket width: {@link RelaxOptions#bucketEdges()} mean edge weights for
   * shortest paths, +infinity (one bucket) for components, whose labels do not add up along
   * paths.
   */
  private final double bucketWidth;
  /** The CUDA engine's device-resident rounds; null on other engines. */
  private CudaGraphRelax device;
  /** The JVM engine's rounds; null on other engines. */
  private final JvmGraphRelax jvm;
  /** The last GPU result's changed vertices while the device still holds their bits. */
  private ChangedVertices pending;
  private final OpenState open = new OpenState("graph relaxer");

  /**
   * Uploads {@code graph} into a new store on {@code engine}. The engine stays owned by the
   * caller and must outlive this relaxer.
   *
   * @throws IllegalArgumentException if the graph is too large for one store
   */
  public GraphRelaxer(Engine engine, CsrGraph graph, RelaxationKind kind, RelaxOptions options) {
    this(engine, Objects.requireNonNull(graph, "graph"), null, kind, options);
  }

  /**
   * A relaxer of a CSR built on the GPU ({@link DeviceCsr}), on the engine that built it: its
   * targets and weights are copied into the store on the device, never through the host. The
   * device CSR stays its caller's (to close once this has copied it).
   */
  public static GraphRelaxer onDevice(DeviceCsr csr, RelaxationKind kind, RelaxOptions options) {
    return new GraphRelaxer(Objects.requireNonNull(csr, "csr").engine(), null, csr, kind,
        options);
  }

  private GraphRelaxer(Engine engine, CsrGraph graph, DeviceCsr onDevice, RelaxationKind kind,
      RelaxOptions options) {
    this.engine = Objects.requireNonNull(engine, "engine");
    this.graph = graph;
    this.vertexCount = graph != null ? graph.vertexCount() : onDevice.vertexCount();
    this.edgeCount = graph != null ? graph.edgeCount() : onDevice.edgeCount();
    this.offsets = graph != null ? graph.offsets() : onDevice.offsets();
    this.kind = Objects.requireNonNull(kind, "kind");
    this.options = Objects.requireNonNull(options, "options");
    boolean hasWeights = graph != null ? graph.weights() != null : onDevice.weighted();
    this.weighted = kind == RelaxationKind.SHORTEST_PATHS && hasWeights;
    double mean = !weighted ? 1.0
        : graph != null ? meanWeight(graph.weights()) : onDevice.meanWeight();
    this.bucketWidth = kind == RelaxationKind.CONNECTED_COMPONENTS ? Double.POSITIVE_INFINITY
        : options.bucketEdges() * mean;
    // The JVM engine's rounds read the edges from the graph's arrays: its store holds only the
    // values (the edge regions shrink to one word each).
    long t0 = System.nanoTime();
    boolean onJvm = engine instanceof JvmEngine;
    int edgeWords = onJvm ? 1 : Math.max(1, edgeCount);
    int weightWords = weighted ? edgeWords : 1;
    // Edge data is read-only: one lock covers each of those regions, and it is never taken.
    StoreLayout layout = StoreLayout.of(
        new RegionSpec("values", RegionType.FLOAT64, Math.max(1, vertexCount),
            options.lockCoverage()),
        new RegionSpec("targets", RegionType.INT32, edgeWords, edgeWords),
        new RegionSpec("weights", RegionType.FLOAT64, weightWords, weightWords),
        new RegionSpec("offsets", RegionType.INT32, vertexCount + 1, vertexCount + 1));
    TxStore s = engine.createStore(layout);
    this.jvm = Resources.closeOnExcept(s, st -> {
      if (onDevice != null) {
        onDevice.copyInto(st, REGIONS.targets(), weighted ? REGIONS.weights() : -1);
      } else if (edgeCount > 0 && !onJvm) {
        st.writeInt32(REGIONS.targets(), graph.targets());
        if (weighted) {
          st.writeFloat64(REGIONS.weights(), graph.weights());
        }
      }
      st.writeInt32(REGIONS.offsets(), offsets);
      return onJvm
          ? new JvmGraphRelax(st, VALUES, graph.offsets(), graph.targets(), graph.weights())
          : null;
    });
    this.store = s;
    if (engine instanceof CudaEngine) {
      device = Resources.closeOnExcept(s, st -> new CudaGraphRelax(st, offsets));
    }
    if (LOG.isDebugEnabled()) {
      LOG.debug("graph of {} vertices and {} edges on {} in {} ms{}", vertexCount, edgeCount,
          engine.name(), ms(System.nanoTime() - t0), onDevice != null ? " (from the GPU)" : "");
    }
  }

  /**
   * Relaxes from {@code values}, starting with the out-edges of {@code activeVertices}, until no
   * vertex improves. Inputs are not modified. For a fixpoint over the whole graph, the active
   * vertices must include every vertex whose value is not already consistent with its
   * in-neighbours (for a first call: the sources, or every vertex for components).
   *
   * @param values one value per vertex, not NaN (+infinity means unreached)
   * @param activeVertices vertices whose out-edges to relax first; duplicates are ignored
   * @throws IllegalArgumentException naming {@code values} or {@code activeVertices}
   * @throws IllegalStateException if no fixpoint is reached within {@code maxRounds}
   */
  public RelaxResult relax(double[] values, int[] activeVertices) {
    if (activeVertices == null) {
      throw new IllegalArgumentException("activeVertices must not be null");
    }
    return run(values, activeVertices);
  }

  /**
   * As {@link #relax} with every vertex active (components from scratch, or a fixpoint over
   * values that may be inconsistent anywhere), without a list to make, check or send: the GPU
   * takes every vertex from its own index, and components over a {@linkplain
   * RelaxOptions#symmetric() symmetric} graph go straight to union-find.
   *
   * @throws IllegalArgumentException naming {@code values}
   * @throws IllegalStateException if no fixpoint is reached within {@code maxRounds}
   */
  public RelaxResult relaxAll(double[] values) {
    return run(values, null);
  }

  /** A relax from {@code activeVertices}, or from every vertex when it is null. */
  private RelaxResult run(double[] values, int[] activeVertices) {
    checkOpen();
    long start = System.nanoTime();
    int n = vertexCount;
    // The last result's changed vertices, if not yet listed, keep a copy of the bits this run
    // clears.
    detachChanged();
    if (activeVertices != null) {
      checkInputs(values, activeVertices, n);
    } else {
      checkValues(values, n);
    }
    if (device == null) {
      checkNotNaN(values);
    }
    // The device's first split takes each vertex once whatever the list holds (its stamps), so
    // a list no longer than the graph goes as it is: sorting out the duplicates of every vertex
    // active (components) cost 14-45 ms at 2^22 on the host. Every vertex goes as no list.
    int[] frontier = activeVertices == null
        ? (device != null ? null : java.util.stream.IntStream.range(0, n).toArray())
        : device != null && activeVertices.length <= n ? activeVertices
        : dedupe(activeVertices, n);
    long checked = System.nanoTime();
    // The result's array is made (and zeroed) on another core while the values go up and the
    // rounds run: 32 MB of it took milliseconds on the critical path.
    CompletableFuture<double[]> ahead = device != null && n >= AHEAD_VALUES
        ? CompletableFuture.supplyAsync(() -> new double[n]) : null;
    if (n > 0) {
      store.writeFloat64(VALUES, values);
    }
    if (device != null) {
      // The device scans the values it now holds; the host finds which one is NaN.
      if (device.anyNaN(VALUES)) {
        checkNotNaN(values);
      }
      long uploaded = System.nanoTime();
      RelaxResult r = relaxOnDevice(values, frontier, start, ahead);
      if (LOG.isDebugEnabled()) {
        LOG.debug("relax on the GPU: checks {} ms, values up {} ms, rounds and values down {} ms"
            + " (kernels {} ms), total {} ms", ms(checked - start), ms(uploaded - checked),
            ms(System.nanoTime() - uploaded), ms(r.stats().kernelNanos()),
            ms(r.stats().totalNanos()));
      }
      return r;
    }
    if (jvm != null) {
      return relaxOnJvm(values, frontier, start);
    }
    double[] current = values.clone();
    int type = kind == RelaxationKind.SHORTEST_PATHS
        ? GraphRelaxWorkload.SHORTEST_PATHS : GraphRelaxWorkload.COMPONENTS;
    int[] params = {VALUES, REGIONS.targets(), REGIONS.weights(), weighted ? 1 : 0};
    int rounds = 0;
    long transactions = 0;
    long commits = 0;
    long aborts = 0;
    long relaxations = 0;
    long improved = 0;
    long kernelNanos = 0;
    int[] mark = new int[n];
    int[] offsets = graph.offsets();
    while (frontier.length > 0) {
      long chunks = 0;
      for (int u : frontier) {
        chunks += (graph.degree(u) + CHUNK - 1) / CHUNK;
      }
      if (chunks == 0) {
        break;
      }
      if (rounds == options.maxRounds()) {
        throw new IllegalStateException("maxRounds: no fixpoint after " + rounds
            + " rounds (" + frontier.length + " vertices still active)");
      }
      if (chunks > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("activeVertices: " + chunks + " edge chunks in one "
            + "round exceed a batch");
      }
      int m = (int) chunks;
      int[] types = new int[m];
      Arrays.fill(types, type); // every chunk relaxes the same way
      int[] vertex = new int[m];
      int[] first = new int[m];
      int[] count = new int[m];
      int t = 0;
      for (int u : frontier) {
        for (int e = offsets[u]; e < offsets[u + 1]; e += CHUNK) {
          vertex[t] = u;
          first[t] = e;
          count[t] = Math.min(CHUNK, offsets[u + 1] - e);
          t++;
        }
      }
      int tpb = options.threadsPerBlock();
      TxBatch batch = new TxBatch(GraphRelaxWorkload.NAME, types,
          new int[][] {vertex, first, count}, params, tpb, (m + tpb - 1) / tpb, CAPACITY);
      BatchResult r = engine.run(store, batch, options.run());
      rounds++;
      transactions += m;
      commits += r.commits();
      aborts += r.aborts();
      kernelNanos += r.kernelNanos();
      double[] after = store.readFloat64(VALUES);
      int next = 0;
      int[] nextFrontier = new int[Math.min(n, 1024)];
      int stamp = rounds;
      for (int v = 0; v < n; v++) {
        if (after[v] < current[v]) {
          nextFrontier = add(nextFrontier, next++, v);
          mark[v] = stamp;
        }
      }
      improved += next;
      // A chunk that did not commit (retry limit) relaxed nothing: its vertex stays active.
      for (int i = 0; i < m; i++) {
        if (r.outcome(i) == Outcome.COMMITTED) {
          relaxations += count[i];
        } else if (mark[vertex[i]] != stamp) {
          mark[vertex[i]] = stamp;
          nextFrontier = add(nextFrontier, next++, vertex[i]);
        }
      }
      frontier = Arrays.copyOf(nextFrontier, next);
      current = after;
    }
    RelaxStats stats = new RelaxStats(rounds, new TxCounts(transactions, commits, aborts),
        relaxations, improved, kernelNanos, System.nanoTime() - start);
    return new RelaxResult(current, changed(values, current), stats);
  }

  /**
   * The graph on the host: the one given, or the targets and weights read back from the store
   * (for a relaxer made {@link #onDevice}).
   */
  public CsrGraph graph() {
    checkOpen();
    if (graph != null) {
      return graph;
    }
    int[] targets = edgeCount > 0 ? store.readInt32(REGIONS.targets()) : new int[0];
    double[] weights = null;
    if (weighted) { // shortest paths over weights: the store holds them
      weights = edgeCount > 0 ? store.readFloat64(REGIONS.weights()) : new double[0];
    }
    return CsrGraph.ofBuiltArrays(vertexCount, offsets, targets, weights);
  }

  /** Active lists from this many ids are range-checked on all cores. */
  static final int PARALLEL_CHECK = 1 << 18;
  /** Graphs from this many vertices get the result's array made beside the run. */
  static final int AHEAD_VALUES = 1 << 18;

  /** Weights summed per block in parallel, then the blocks in order: the same sum every run. */
  private static final int MEAN_BLOCK = 1 << 20;

  /**
   * The mean edge weight, for the bucket width. On all cores: one pass over the 263 M weights of
   * an R-MAT graph of 2^24 vertices took 0.4 s of a Spark superstep (docs/benchmark-log.md).
   */
  static double meanWeight(double[] weights) {
    int blocks = (int) ((weights.length + (long) MEAN_BLOCK - 1) / MEAN_BLOCK);
    double[] sums = new double[blocks];
    java.util.stream.IntStream.range(0, blocks).parallel().forEach(b -> {
      double sum = 0;
      int end = (int) Math.min(weights.length, (long) b * MEAN_BLOCK + MEAN_BLOCK);
      for (int i = b * MEAN_BLOCK; i < end; i++) {
        sum += weights[i];
      }
      sums[b] = sum;
    });
    double sum = 0;
    for (double s : sums) {
      sum += s;
    }
    // A graph of zero-weight edges still needs a positive width.
    return weights.length == 0 || sum <= 0 ? 1.0 : sum / weights.length;
  }

  private static String ms(long nanos) {
    return String.format("%.2f", nanos / 1e6);
  }

  /** The relaxer's run, from {@code frontier} (null: every vertex). */
  private RelaxResult relaxOnDevice(double[] values, int[] frontier, long start,
      CompletableFuture<double[]> ahead) {
    // The first bucket starts at the lowest active value; one bucket (components) needs none.
    double lowest = Double.isInfinite(bucketWidth) ? 0 : Double.POSITIVE_INFINITY;
    if (!Double.isInfinite(bucketWidth)) {
      if (frontier == null) {
        lowest = java.util.Arrays.stream(values).parallel().min().orElse(lowest);
      } else {
        for (int u : frontier) {
          lowest = Math.min(lowest, values[u]);
        }
      }
    }
    return finish(values, device.run(frontier, lowest,
        REGIONS,
        new CudaGraphRelax.Settings(kind == RelaxationKind.CONNECTED_COMPONENTS, weighted,
            options.threadsPerBlock(), options.run().maxRetries(), options.maxRounds(),
            bucketWidth, options.symmetric())), start, ahead);
  }

  private RelaxResult relaxOnJvm(double[] values, int[] frontier, long start) {
    return finish(values, jvm.run(frontier, kind == RelaxationKind.CONNECTED_COMPONENTS,
        weighted, options.run().maxRetries(), options.maxRounds()), start, null);
  }

  /** The values the engine's rounds left, the vertices they lowered and the statistics. */
  private RelaxResult finish(double[] values, RoundStats st, long start,
      CompletableFuture<double[]> ahead) {
    if (!st.converged()) {
      throw new IllegalStateException("maxRounds: no fixpoint after " + st.rounds() + " rounds");
    }
    long t0 = System.nanoTime();
    double[] current;
    if (ahead != null) {
      current = ahead.join();
      store.readFloat64(VALUES, current);
    } else {
      current = vertexCount > 0 ? store.readFloat64(VALUES) : new double[0];
    }
    long t1 = System.nanoTime();
    if (device != null) {
      // The device marks what its commits lowered; the list is made when the caller asks.
      pending = new ChangedVertices(device, vertexCount);
      LOG.debug("after {} rounds: values down {} ms", st.rounds(), ms(t1 - t0));
      return new RelaxResult(current, pending, st.withTotal(System.nanoTime() - start));
    }
    int[] changed = changed(values, current);
    if (LOG.isDebugEnabled()) {
      LOG.debug("after {} rounds: values down {} ms, changed vertices {} ms", st.rounds(),
          ms(t1 - t0), ms(System.nanoTime() - t1));
    }
    return new RelaxResult(current, changed, st.withTotal(System.nanoTime() - start));
  }

  /** Lets the last GPU result keep its changed bits before a run or the close clears them. */
  private void detachChanged() {
    if (pending != null) {
      pending.detach();
      pending = null;
    }
  }

  private static int[] changed(double[] values, double[] current) {
    int n = values.length;
    int changed = 0;
    for (int v = 0; v < n; v++) {
      if (current[v] < values[v]) {
        changed++;
      }
    }
    int[] changedVertices = new int[changed];
    changed = 0;
    for (int v = 0; v < n; v++) {
      if (current[v] < values[v]) {
        changedVertices[changed++] = v;
      }
    }
    return changedVertices;
  }

  private static int[] add(int[] array, int at, int value) {
    if (at == array.length) {
      array = Arrays.copyOf(array, Math.max(16, array.length * 2));
    }
    array[at] = value;
    return array;
  }

  /** Shapes and ranges of a relax call's inputs (NaN values are checked where they lie). */
  static void checkInputs(double[] values, int[] activeVertices, int n) {
    checkValues(values, n);
    if (activeVertices == null) {
      throw new IllegalArgumentException("activeVertices must not be null");
    }
    if (activeVertices.length >= PARALLEL_CHECK && allInRange(activeVertices, n)) {
      return;
    }
    for (int i = 0; i < activeVertices.length; i++) {
      if (activeVertices[i] < 0 || activeVertices[i] >= n) {
        throw new IllegalArgumentException("activeVertices[" + i + "] = " + activeVertices[i]
            + " is out of range: vertices 0.." + (n - 1));
      }
    }
  }

  private static void checkValues(double[] values, int n) {
    if (values == null) {
      throw new IllegalArgumentException("values must not be null");
    }
    if (values.length != n) {
      throw new IllegalArgumentException(
          "values: expected one per vertex (" + n + "), got " + values.length);
    }
  }

  /**
   * Whether every id lies in {@code [0, n)}, checked on all cores (every vertex active, as
   * components start, is 4 M ids at 2^22: 5 ms on one core); the caller finds the first that
   * does not.
   */
  private static boolean allInRange(int[] ids, int n) {
    int slices = (ids.length + PARALLEL_CHECK - 1) / PARALLEL_CHECK;
    return java.util.stream.IntStream.range(0, slices).parallel().allMatch(s -> {
      int end = (int) Math.min(ids.length, (long) (s + 1) * PARALLEL_CHECK);
      boolean ok = true;
      for (int i = s * PARALLEL_CHECK; i < end; i++) {
        ok &= ids[i] >= 0 & ids[i] < n;
      }
      return ok;
    });
  }

  private static void checkNotNaN(double[] values) {
    for (int v = 0; v < values.length; v++) {
      if (Double.isNaN(values[v])) {
        throw new IllegalArgumentException("values[" + v + "] is NaN");
      }
    }
  }

  /** The distinct vertices of {@code active}, ascending. */
  static int[] dedupe(int[] active, int n) {
    if (active.length < n / 64) {
      // A few sources (shortest paths): sorting them beats a pass over every vertex.
      return VertexIds.sortDistinct(active.clone());
    }
    boolean[] seen = new boolean[n];
    int count = 0;
    for (int v : active) {
      if (!seen[v]) {
        seen[v] = true;
        count++;
      }
    }
    int[] out = new int[count];
    int i = 0;
    for (int v = 0; v < n && i < count; v++) {
      if (seen[v]) {
        out[i++] = v;
      }
    }
    return out;
  }

  private void checkOpen() {
    open.check();
  }

  /** Frees the store (the last result keeps its changed vertices). A second close throws. */
  @Override
  public void close() {
    open.close();
    try (store) { // closed even when the device's buffers fail to close
      if (device != null) {
        try {
          detachChanged();
        } finally {
          device.close();
        }
      }
    }
  }
}
