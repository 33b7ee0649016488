package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.GraphTestGraphs;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.kmeans.KMeansData;
import io.gstm.core.kmeans.KMeansOptions;
import io.gstm.core.kmeans.KMeansPartial;
import io.gstm.core.kmeans.KMeansUpdater;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import io.gstm.core.testing.KMeansChecks;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Graph relaxation and k-means on the GPU and the JVM engine, same seeded inputs: both pass the
 * exact verifiers, shortest paths and components are equal, k-means partials equal the
 * sequential reference within 1e-9 relative.
 */
@EnabledIfGpu
class CudaGraphKMeansTest {
  private static CudaEngine gpu;
  private static JvmEngine jvm;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
    jvm = new JvmEngine(4);
  }

  @AfterAll
  static void close() {
    jvm.close();
    gpu.close();
  }

  /**
   * From 2^18 vertices (GraphRelaxer.AHEAD_VALUES) the result is read into an array made
   * beside the run, and the active list range-checked on all cores.
   */
  @ParameterizedTest(name = "{0} on {1} vertices / {2} edges, {3} parts, coverage {4}")
  @CsvSource({"SHORTEST_PATHS, 2000, 20000, 3, 1, 1", "SHORTEST_PATHS, 5000, 60000, 1, 4, 2",
      "CONNECTED_COMPONENTS, 3000, 6000, 5, 1, 3", "SHORTEST_PATHS, 1, 0, 1, 1, 4",
      "CONNECTED_COMPONENTS, 100, 0, 1, 1, 5", "RMAT_SSSP, 4096, 65536, 1, 1, 6",
      "RMAT_CC, 4096, 65536, 1, 2, 7", "RMAT_SSSP, 262144, 2097152, 1, 1, 8",
      "RMAT_CC, 262144, 2097152, 1, 1, 9", "HUBS_SSSP, 20000, 200000, 1, 1, 10",
      "HUBS_CC, 20000, 200000, 1, 1, 11"})
  void gpuEqualsJvmAndTheVerifier(String what, int n, int m, int parts, int coverage,
      long seed) {
    RelaxationKind kind = what.endsWith("CC") || what.startsWith("CONNECTED")
        ? RelaxationKind.CONNECTED_COMPONENTS : RelaxationKind.SHORTEST_PATHS;
    // HUBS: every edge but loops into the first 5,000 vertices, integer weights: a warp's edges
    // often share a target, with equal candidates (a warp runs one transaction per target).
    CsrGraph g = what.startsWith("RMAT")
        ? RmatGenerator.generate(Integer.numberOfTrailingZeros(n), m, seed, true).toCsr()
        : what.startsWith("HUBS")
        ? GraphTestGraphs.hubsLoopsAndDuplicates(n, m, true, false, seed).toCsr()
        : GraphTestGraphs.random(n, m, parts, seed).toCsr();
    if (kind == RelaxationKind.CONNECTED_COMPONENTS) {
      g = g.undirected();
    }
    double[] init = RelaxationVerifier.initialValues(kind, n, 0);
    int[] active = kind == RelaxationKind.SHORTEST_PATHS ? new int[] {0}
        : IntStream.range(0, n).toArray();
    RelaxOptions opts = RelaxOptions.defaults().withLockCoverage(coverage);
    RelaxResult onGpu;
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, opts)) {
      onGpu = r.relax(init, active);
      // A second call on the resident graph gives the same fixpoint.
      assertThat(r.relax(init, active).values()).isEqualTo(onGpu.values());
    }
    assertVerifiedAndEqualToTheJvmEngine(onGpu, g, kind, opts, init, active);
  }

  /**
   * High-diameter graphs on the GPU's near-far buckets (a path's distances span about 20 bucket
   * widths): the values and changed vertices equal the JVM engine's and the verifier's, also
   * when the relaxation starts from values an earlier superstep left (active vertices whose
   * values lie several buckets above the lowest, so the first split keeps them far). From a
   * single source the buckets keep the work near Dijkstra's: at most 3 edge relaxations per
   * edge (issue 12's bound), at the default width, a very narrow one and a wide one.
   */
  @ParameterizedTest(name = "{0}, seed {1}, buckets of {2} mean weights")
  @CsvSource({"grid, 11, 8", "road, 12, 8", "path, 13, 8", "grid-resumed, 14, 8",
      "path-resumed, 15, 8", "path-all-active, 16, 8", "grid-512, 17, 8", "grid, 18, 0.25",
      "path, 19, 0.25", "grid, 20, 32", "grid-duplicates, 21, 8"})
  void bucketedRoundsEqualTheJvmEngineOnHighDiameterGraphs(String what, long seed,
      double bucketEdges) {
    EdgeList edges = switch (what) {
      case "grid-512" -> GridGenerator.grid(512, 512, seed);
      case "grid", "grid-resumed", "grid-duplicates" -> GridGenerator.grid(96, 96, seed);
      case "road" -> GridGenerator.roadLike(96, 96, seed, 0.1, 16);
      default -> GraphTestGraphs.path(3000, seed);
    };
    CsrGraph g = GridGenerator.shuffled(edges, seed).toCsr();
    int n = g.vertexCount();
    RelaxationKind kind = RelaxationKind.SHORTEST_PATHS;
    double[] init = RelaxationVerifier.initialValues(kind, n, 0);
    int[] active = {0};
    if (what.endsWith("resumed")) {
      // Upper bounds an earlier superstep could have left: exact distances plus noise on a
      // random tenth of the vertices, all of them active.
      double[] exact = RelaxationVerifier.dijkstra(g, init.clone());
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int v = 0; v < n; v++) {
        init[v] = rnd.nextInt(10) == 0 && Double.isFinite(exact[v])
            ? exact[v] + rnd.nextInt(40_000) : Double.POSITIVE_INFINITY;
      }
      init[0] = 0;
      active = IntStream.range(0, n).filter(v -> Double.isFinite(init[v])).toArray();
    } else if (what.endsWith("duplicates")) {
      // The device takes the list as it is (no sorting on the host): each vertex once.
      active = new int[] {0, 7, 0, 7, 95, 0};
    } else if (what.endsWith("all-active")) {
      // Every vertex active, all but the source at +infinity: nothing to relax from those.
      active = IntStream.range(0, n).toArray();
    }
    RelaxOptions opts = RelaxOptions.defaults().withBucketEdges(bucketEdges);
    RelaxResult onGpu;
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, opts)) {
      onGpu = r.relax(init, active);
    }
    assertVerifiedAndEqualToTheJvmEngine(onGpu, g, kind, opts, init, active);
    if (active.length == 1 && bucketEdges <= 8) {
      assertThat(onGpu.stats().edgeRelaxations()).as("edge relaxations of %,d edges",
          g.edgeCount()).isLessThanOrEqualTo(3L * g.edgeCount());
    }
  }

  /**
   * The rounds give the same fixpoint wherever their loop runs: on the host (a launch per round),
   * on the device from the start (one cooperative launch) and handed over after 16 rounds (the
   * default): shortest paths on a grid, a road-like grid, a path, a resumed path and R-MAT (which
   * ends before the hand-over), components that pull on a grid; and a run cut by maxRounds ends
   * after exactly that many rounds, unconverged, in each. "device:8" sets the hops a warp follows
   * within a round of the device's loop (4 by default; 0: none), "device:8:rounds" runs each
   * bucket's rounds where the default ({@code -Dgstm.graph.drain=bucket}) drains them.
   */
  @ParameterizedTest(name = "{0}, seed {1}, loop on the {2}")
  @CsvSource({"grid, 41, device", "grid, 41, auto", "grid, 41, host", "road, 42, device",
      "road, 42, auto", "path, 43, device", "path, 43, auto", "path-resumed, 44, device",
      "path-resumed, 44, auto", "rmat, 45, device", "rmat, 45, auto", "grid-components, 46, device",
      "grid-components, 46, auto", "path-cut, 47, device", "path-cut, 47, auto",
      "path-cut, 47, host", "grid, 50, device:0", "grid, 50, auto:2", "road, 51, auto:8",
      "path, 52, device:64", "path-resumed, 53, auto:0", "rmat, 54, device:8",
      "grid-components, 55, device:16", "path-cut, 47, device:0", "grid, 60, device:8:rounds",
      "road, 61, auto:8:rounds", "path, 62, device:8:rounds", "path-resumed, 63, auto:8:rounds",
      "path-cut, 47, device:8:rounds", "grid, 64, device:8:bucket"})
  void everyLoopReachesTheSameFixpoint(String what, long seed, String loop) {
    EdgeList edges = switch (what) {
      case "grid", "grid-components" -> GridGenerator.grid(96, 96, seed);
      case "road" -> GridGenerator.roadLike(96, 96, seed, 0.1, 16);
      case "rmat" -> RmatGenerator.generate(12, 1 << 15, seed, true);
      default -> GraphTestGraphs.path(3000, seed);
    };
    CsrGraph directed = GridGenerator.shuffled(edges, seed).toCsr();
    boolean components = what.endsWith("components");
    RelaxationKind kind = components ? RelaxationKind.CONNECTED_COMPONENTS
        : RelaxationKind.SHORTEST_PATHS;
    CsrGraph g = components ? directed.undirected() : directed;
    int n = g.vertexCount();
    double[] init = RelaxationVerifier.initialValues(kind, n, 0);
    int[] active = components ? IntStream.range(0, n).toArray() : new int[] {0};
    if (what.endsWith("resumed")) {
      double[] exact = RelaxationVerifier.dijkstra(g, init.clone());
      SplittableRandom rnd = new SplittableRandom(seed);
      for (int v = 0; v < n; v++) {
        init[v] = rnd.nextInt(10) == 0 ? exact[v] + rnd.nextInt(40_000) : Double.POSITIVE_INFINITY;
      }
      init[0] = 0;
      active = IntStream.range(0, n).filter(v -> Double.isFinite(init[v])).toArray();
    }
    RelaxOptions opts = RelaxOptions.defaults().withSymmetric(components);
    String before = System.getProperty("gstm.graph.loop");
    String drainBefore = System.getProperty("gstm.graph.drain");
    // "device:8": the device's loop, warps following up to 8 hops within a round;
    // "device:8:rounds": its buckets' rounds, not drained (gstm.graph.drain).
    String[] how = loop.split(":");
    System.setProperty("gstm.graph.loop", how[0]);
    if (how.length > 1) {
      System.setProperty("gstm.graph.chain", how[1]);
    }
    if (how.length > 2) {
      System.setProperty("gstm.graph.drain", how[2]);
    }
    try {
      if (what.endsWith("cut")) {
        RelaxOptions cut = opts.withMaxRounds(40);
        try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, cut)) {
          double[] start = init;
          int[] from = active;
          assertThatThrownBy(() -> r.relax(start, from))
              .isInstanceOf(IllegalStateException.class)
              .hasMessage("maxRounds: no fixpoint after 40 rounds");
        }
        return;
      }
      RelaxResult onGpu;
      try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, opts)) {
        onGpu = r.relax(init, active);
        // A second run on the same relaxer: stamps and far epochs carry on from the first.
        RelaxResult again = r.relax(init, active);
        assertThat(again.values()).isEqualTo(onGpu.values());
      }
      assertVerifiedAndEqualToTheJvmEngine(onGpu, g, kind, opts, init, active);
    } finally {
      System.clearProperty("gstm.graph.chain");
      if (drainBefore == null) {
        System.clearProperty("gstm.graph.drain");
      } else {
        System.setProperty("gstm.graph.drain", drainBefore);
      }
      if (before == null) {
        System.clearProperty("gstm.graph.loop");
      } else {
        System.setProperty("gstm.graph.loop", before);
      }
    }
  }

  /**
   * Components whose first round pulls (a symmetric graph, every vertex active) reach the
   * fixpoint of pushed rounds, the JVM engine's and the verifier's: on random graphs, R-MAT
   * (hubs), grids and long paths. A frontier that misses a vertex or lists one twice must push
   * (pulling at those vertices alone would skip edges): equal to the JVM engine from the same
   * partial frontier. On R-MAT the pulled round runs fewer transactions than pushing.
   */
  @ParameterizedTest(name = "{0}, seed {1}")
  @CsvSource({"random, 31", "rmat, 32", "grid, 33", "path, 34", "some-active, 35",
      "duplicates, 36"})
  void pulledComponentsEqualPushedOnes(String what, long seed) {
    EdgeList edges = switch (what) {
      case "rmat" -> RmatGenerator.generate(14, 1 << 15, seed, false);
      case "grid" -> GridGenerator.shuffled(GridGenerator.grid(128, 128, seed), seed);
      case "path" -> GraphTestGraphs.path(5000, seed);
      default -> GraphTestGraphs.random(6000, 9000, 7, seed);
    };
    CsrGraph g = edges.toCsr().undirected();
    int n = g.vertexCount();
    RelaxationKind kind = RelaxationKind.CONNECTED_COMPONENTS;
    double[] init = RelaxationVerifier.initialValues(kind, n, 0);
    int[] active = IntStream.range(0, n).toArray();
    if (what.equals("some-active")) {
      active = IntStream.range(0, n).filter(v -> v % 3 != 0).toArray();
    } else if (what.equals("duplicates")) {
      // As many entries as vertices, but a vertex with edges is missing.
      int missing = IntStream.range(0, n).filter(v -> g.degree(v) > 0).findFirst().orElseThrow();
      active[missing] = (missing + 1) % n;
    }
    RelaxOptions pushed = RelaxOptions.defaults();
    RelaxResult push;
    RelaxResult pull;
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, pushed)) {
      push = r.relax(init, active);
    }
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, pushed.withSymmetric(true))) {
      pull = r.relax(init, active);
    }
    RelaxResult onJvm;
    try (GraphRelaxer r = new GraphRelaxer(jvm, g, kind, pushed)) {
      onJvm = r.relax(init, active);
    }
    assertThat(pull.values()).isEqualTo(onJvm.values()).isEqualTo(push.values());
    assertThat(pull.changedVertices()).isEqualTo(onJvm.changedVertices());
    if (active.length == n && !what.equals("duplicates")) {
      RelaxationVerifier.Report report = RelaxationVerifier.check(g, kind, init, pull.values());
      assertThat(report.ok()).as(report.toString()).isTrue();
    }
    if (what.equals("rmat")) {
      assertThat(pull.stats().transactions()).as("transactions pulled vs pushed")
          .isLessThan(push.stats().transactions());
    }
  }

  /**
   * The GPU's relaxation passes the verifier, and its values and changed vertices equal the JVM
   * engine's on the same input.
   */
  private static void assertVerifiedAndEqualToTheJvmEngine(RelaxResult onGpu, CsrGraph g,
      RelaxationKind kind, RelaxOptions opts, double[] init, int[] active) {
    RelaxResult onJvm;
    try (GraphRelaxer r = new GraphRelaxer(jvm, g, kind, opts)) {
      onJvm = r.relax(init, active);
    }
    RelaxationVerifier.Report report = RelaxationVerifier.check(g, kind, init, onGpu.values());
    assertThat(report.ok()).as(report.toString()).isTrue();
    assertThat(onGpu.values()).isEqualTo(onJvm.values());
    assertThat(onGpu.changedVertices()).isEqualTo(onJvm.changedVertices());
  }

  /**
   * NaN starting values are found on the device and refused naming the first one; the relaxer
   * still gives the right fixpoint afterwards.
   */
  @Test
  void nanValuesAreRefusedNamingTheFirstOne() {
    CsrGraph g = GridGenerator.grid(64, 64, 7).toCsr();
    RelaxationKind kind = RelaxationKind.SHORTEST_PATHS;
    double[] init = RelaxationVerifier.initialValues(kind, g.vertexCount(), 0);
    double[] bad = init.clone();
    bad[1234] = Double.NaN;
    bad[3000] = Double.NaN;
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, RelaxOptions.defaults())) {
      assertThatThrownBy(() -> r.relax(bad, new int[] {0}))
          .isInstanceOf(IllegalArgumentException.class).hasMessage("values[1234] is NaN");
      RelaxResult after = r.relax(init, new int[] {0});
      assertVerifiedAndEqualToTheJvmEngine(after, g, kind, RelaxOptions.defaults(), init,
          new int[] {0});
    }
  }

  @ParameterizedTest(name = "n={0} dims={1} k={2} ppt={3}")
  @CsvSource({"100000, 2, 16, 4096", "50000, 3, 7, 64", "20000, 20, 4, 1000", "5, 2, 3, 4096",
      "200000, 8, 64, 4096", "30000, 5, 20, 64", "20000, 16, 9, 1000"})
  void kmeansGpuEqualsSequentialAndJvm(int n, int dims, int k, int ppt) {
    double[] points = KMeansData.blobs(n, dims, k, n + k);
    double[] centroids = KMeansData.firstPoints(points, dims, Math.min(k, n));
    int kk = centroids.length / dims;
    KMeansOptions opts = KMeansOptions.defaults().withPointsPerTransaction(ppt);
    KMeansPartial expected = KMeansUpdater.sequential(points, dims, centroids);
    KMeansPartial onGpu;
    KMeansPartial onJvm;
    try (KMeansUpdater u = new KMeansUpdater(gpu, kk, dims, opts)) {
      onGpu = u.update(points, centroids);
    }
    try (KMeansUpdater u = new KMeansUpdater(jvm, kk, dims, opts)) {
      onJvm = u.update(points, centroids);
    }
    for (KMeansPartial p : new KMeansPartial[] {onGpu, onJvm}) {
      KMeansChecks.assertMatches(p, expected);
      assertThat(p.commits()).isEqualTo(p.transactions());
    }
  }

  /**
   * Loaded points stay on the device across updates: iterations with moving centroids equal
   * updates that copy the points each time, also after an update of other points (which
   * overwrites the device's copy) and a point count that reallocates the store.
   */
  @Test
  void loadedPointsEqualCopiedPointsAcrossIterations() {
    double[] points = KMeansData.blobs(60_000, 2, 8, 5);
    double[] other = KMeansData.blobs(30_000, 2, 8, 6);
    double[] centroids = KMeansData.firstPoints(points, 2, 8);
    KMeansOptions opts = KMeansOptions.defaults().withPointsPerTransaction(1024);
    try (KMeansUpdater loaded = new KMeansUpdater(gpu, 8, 2, opts);
        KMeansUpdater copied = new KMeansUpdater(gpu, 8, 2, opts)) {
      assertThat(loaded.assignsOnDevice()).isTrue();
      loaded.load(points);
      for (int it = 0; it < 4; it++) {
        if (it == 2) {
          KMeansChecks.assertMatches(loaded.update(other, centroids), copied.update(other,
              centroids));
        }
        KMeansPartial p = loaded.updateLoaded(centroids);
        KMeansChecks.assertMatches(p, copied.update(points, centroids));
        KMeansChecks.assertMatches(p, KMeansUpdater.sequential(points, 2, centroids));
        centroids = p.centroids(centroids);
      }
    }
  }

  /**
   * Points loaded in parts (a point set's blocks, each copied to its place on the device, one
   * over several staging chunks) update as the same points loaded whole.
   */
  @Test
  void pointsLoadedInPartsEqualPointsLoadedWhole() {
    double[] points = KMeansData.blobs(400_000, 8, 16, 12);
    double[] centroids = KMeansData.firstPoints(points, 8, 16);
    int[] cuts = {0, 8 * 3, 8 * 150_000, 8 * 150_001, points.length};
    java.util.List<double[]> parts = new java.util.ArrayList<>();
    for (int c = 0; c + 1 < cuts.length; c++) {
      parts.add(java.util.Arrays.copyOfRange(points, cuts[c], cuts[c + 1]));
    }
    KMeansOptions opts = KMeansOptions.defaults();
    try (KMeansUpdater inParts = new KMeansUpdater(gpu, 16, 8, opts);
        KMeansUpdater whole = new KMeansUpdater(gpu, 16, 8, opts)) {
      inParts.load(parts);
      whole.load(points);
      for (int it = 0; it < 3; it++) {
        KMeansPartial p = inParts.updateLoaded(centroids);
        KMeansChecks.assertMatches(p, whole.updateLoaded(centroids));
        KMeansChecks.assertMatches(p, KMeansUpdater.sequential(points, 8, centroids));
        centroids = p.centroids(centroids);
      }
    }
  }
}
