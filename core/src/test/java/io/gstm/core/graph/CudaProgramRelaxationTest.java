package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.Program;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import io.gstm.core.workload.graph.GraphPrograms;
import org.junit.jupiter.api.AfterAll;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * User-written relaxations on the GPU, their rounds on the device (CudaProgramRelax): the same
 * programs and graphs as {@link ProgramRelaxationTest}, widest paths equal to the serial
 * fixpoint, shortest paths equal to Dijkstra's with a consistent parent and hop count; hubs of
 * more out-edges than a work item holds; relaxations given up under contention running again;
 * the round limit; the vertices taken in an order (near-far buckets); and the same values as
 * the JVM engine and as the batch-per-round path.
 */
@EnabledIfGpu
class CudaProgramRelaxationTest {
  private static CudaEngine gpu;
  private static JvmEngine jvm;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
    jvm = new JvmEngine(4);
  }

  @AfterAll
  static void close() {
    gpu.close();
    jvm.close();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void widestPathsEqualTheSerialFixpoint(long seed) {
    CsrGraph g = ProgramRelaxationTest.graph(20_000, 4, seed);
    assertThat(ProgramRelaxationTest.widest(gpu, g))
        .isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
  }

  /** A graph with hubs: vertex 0 and a few others have thousands of out-edges. */
  private static CsrGraph hubs(int n, int m, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = i < 3_000 ? 0 : rnd.nextInt(4) == 0 ? rnd.nextInt(5) : rnd.nextInt(n);
      dst[i] = rnd.nextInt(n);
      w[i] = 1 + rnd.nextInt(1000) / 7.0;
    }
    return CsrGraph.fromEdges(n, src, dst, w);
  }

  /** Widest paths from vertex 0 (listed twice: taken once). */
  private static ProgramRelaxation.Result widestOn(Engine engine, TxStore store, CsrGraph g,
      RunOptions o) {
    double[] width = new double[g.vertexCount()];
    width[0] = Double.POSITIVE_INFINITY;
    store.writeFloat64(0, width);
    return ProgramRelaxation.relax(engine, store, g,
        Program.parse(GraphPrograms.WIDEST).get(0), new int[] {0, 0}, 10_000, o);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2})
  void hubsRunOnTheDeviceWithTheJvmEnginesValues(long seed) {
    CsrGraph g = hubs(30_000, 400_000, seed);
    StoreLayout layout = ProgramRelaxationTest.widestLayout(g.vertexCount());
    try (TxStore onGpu = gpu.createStore(layout); TxStore onJvm = jvm.createStore(layout)) {
      ProgramRelaxation.Result r = widestOn(gpu, onGpu, g, RunOptions.defaults());
      ProgramRelaxation.Result j = widestOn(jvm, onJvm, g, RunOptions.defaults());
      // The device's rounds: edges looked at and skipped, GPU time measured.
      assertThat(r.skipped()).as("edges skipped after a look").isPositive();
      assertThat(r.kernelNanos()).isPositive();
      assertThat(r.transactions() + r.skipped()).isGreaterThanOrEqualTo(g.edgeCount() / 2);
      assertThat(j.skipped()).isZero();
      assertThat(onGpu.readFloat64(0)).isEqualTo(onJvm.readFloat64(0))
          .isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
    }
  }

  /** History asked for: a program batch per round, the same fixpoint. */
  @Test
  void withHistoryEachRoundIsABatchWithTheSameValues() {
    CsrGraph g = ProgramRelaxationTest.graph(5_000, 4, 7);
    try (TxStore store = gpu.createStore(ProgramRelaxationTest.widestLayout(5_000))) {
      ProgramRelaxation.Result r = widestOn(gpu, store, g, RunOptions.defaults().withHistory(true));
      assertThat(r.skipped()).isZero();
      assertThat(store.readFloat64(0)).isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
    }
  }

  /**
   * Edges crowding onto few targets with a retry limit of 1: relaxations the GPU gives up run
   * again (in the next round, or drained, back in the ring), so the fixpoint is still the serial
   * one. 400 vertices of 500 edges each run rounds; 4,000 vertices of 40 (the source 200) fit
   * one work item each, so their buckets are drained.
   */
  @ParameterizedTest(name = "{0} vertices, {1} edges each")
  @CsvSource({"400, 500, 5", "4000, 40, 6"})
  void relaxationsGivenUpUnderContentionRunAgain(int n, int degree, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int m = n * degree;
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = i < 5 * degree ? 0 : i / degree;
      dst[i] = rnd.nextInt(8) == 0 ? rnd.nextInt(n) : rnd.nextInt(4);
      w[i] = 1 + rnd.nextInt(100_000);
    }
    CsrGraph g = CsrGraph.fromEdges(n, src, dst, w);
    try (TxStore store = gpu.createStore(ProgramRelaxationTest.widestLayout(n))) {
      ProgramRelaxation.Result r = widestOn(gpu, store, g, RunOptions.defaults().withMaxRetries(1));
      assertThat(r.skipped()).isPositive();
      assertThat(store.readFloat64(0)).isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
    }
  }

  /**
   * Buckets drained without rounds (the default where every vertex's edges fit one work item)
   * and in rounds ({@code -Dgstm.graph.drain=rounds}) reach the same fixpoint: shortest paths
   * with parents and hops on a grid and a road-like grid, in order and as they come (Dijkstra's
   * distances, a consistent tree), and widest paths (the serial fixpoint).
   */
  @ParameterizedTest(name = "{0}, seed {1}, {2}")
  @CsvSource({"grid, 11, ordered", "grid, 12, as they come", "road, 13, ordered",
      "road, 14, as they come", "random, 15, widest"})
  void drainedBucketsReachTheFixpointOfRounds(String graph, long seed, String how) {
    CsrGraph g = switch (graph) {
      case "grid" -> ProgramRelaxationTest.grid(90, seed);
      case "road" -> GridGenerator.roadLike(90, 90, seed, 0.1, 16).toCsr();
      default -> ProgramRelaxationTest.graph(20_000, 4, seed);
    };
    String before = System.getProperty("gstm.graph.drain");
    try {
      for (String drain : new String[] {"bucket", "rounds"}) {
        System.setProperty("gstm.graph.drain", drain);
        if (how.equals("widest")) {
          assertThat(ProgramRelaxationTest.widest(gpu, g)).as(drain)
              .isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
          continue;
        }
        ProgramRelaxation.Order order =
            how.equals("ordered") ? ProgramRelaxation.Order.ascending("dist") : null;
        Object[] r = ProgramRelaxationTest.paths(gpu, g, order);
        assertThat((double[]) r[0]).as(drain).isEqualTo(ProgramRelaxationTest.dijkstra(g, 0));
        ProgramRelaxationTest.assertConsistentTree(g, (double[]) r[0], (int[]) r[1],
            (int[]) r[2]);
      }
    } finally {
      if (before == null) {
        System.clearProperty("gstm.graph.drain");
      } else {
        System.setProperty("gstm.graph.drain", before);
      }
    }
  }

  /**
   * Every vertex listed twice as active: each is taken once (a drained bucket's ring holds every
   * vertex at most once), and the fixpoint is the serial one.
   */
  @Test
  void everyVertexListedTwiceIsTakenOnce() {
    CsrGraph g = GridGenerator.roadLike(60, 60, 9, 0.1, 16).toCsr();
    int n = g.vertexCount();
    int[] twice = IntStream.range(0, 2 * n).map(i -> i % n).toArray();
    try (TxStore store = gpu.createStore(ProgramRelaxationTest.widestLayout(n))) {
      double[] width = new double[n];
      width[0] = Double.POSITIVE_INFINITY;
      store.writeFloat64(0, width);
      ProgramRelaxation.relax(gpu, store, g, Program.parse(GraphPrograms.WIDEST).get(0), twice,
          10_000, RunOptions.defaults());
      assertThat(store.readFloat64(0)).isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
    }
  }

  /** A relaxation that never stops improving: every round raises a value. */
  private static final Program UP = Program.parse("""
      program up(src: int32, dst: int32) regions width: float64 outputs changed: int32 {
        width[dst] = width[src] + 1.0;
        changed = 1;
      }
      """).get(0);

  /** A relaxation that never stops improving ends at the round limit, naming it. */
  @Test
  void theRoundLimitIsNamed() {
    CsrGraph ring = CsrGraph.fromEdges(2, new int[] {0, 1}, new int[] {1, 0}, null);
    try (TxStore store = gpu.createStore(ProgramRelaxationTest.widestLayout(2))) {
      assertThatThrownBy(() -> ProgramRelaxation.relax(gpu, store, ring, UP, new int[] {0}, 50,
          RunOptions.defaults()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("after 50 rounds (maxRounds)");
      // Each commit raised a value to one more than the other's: at least once a round.
      double[] v = store.readFloat64(0);
      assertThat(Math.abs(v[0] - v[1])).isEqualTo(1.0);
      assertThat(Math.max(v[0], v[1])).isGreaterThanOrEqualTo(50.0);
    }
  }

  /**
   * Taken lowest distance first (near-far buckets on the device: the far piles, the bound
   * moved past their lowest value), in buckets of several widths, shortest paths on a grid of
   * high diameter reach Dijkstra's distances with a consistent tree, with fewer transactions
   * than taken as they come.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2})
  void orderedShortestPathsReachDijkstrasWithLessWork(long seed) {
    CsrGraph g = ProgramRelaxationTest.grid(200, seed);
    double[] expected = ProgramRelaxationTest.dijkstra(g, 0);
    Object[] asTheyCome = ProgramRelaxationTest.paths(gpu, g, null);
    assertThat((double[]) asTheyCome[0]).isEqualTo(expected);
    for (double width : new double[] {Double.NaN, 1, 200}) {
      ProgramRelaxation.Order order = ProgramRelaxation.Order.ascending("dist").withWidth(width);
      Object[] r = ProgramRelaxationTest.paths(gpu, g, order);
      assertThat((double[]) r[0]).as("width %s", width).isEqualTo(expected);
      ProgramRelaxationTest.assertConsistentTree(g, (double[]) r[0], (int[]) r[1], (int[]) r[2]);
      assertThat((long) r[3]).as("transactions, width %s", width)
          .isLessThan((long) asTheyCome[3]);
    }
  }

  /**
   * Widest paths with hubs (vertices of many work items, deferred as one), taken highest width
   * first and, against their order, lowest first: the serial fixpoint and the JVM engine's.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2})
  void orderedWidestPathsOverHubsEqualTheSerialFixpointInEitherDirection(long seed) {
    CsrGraph g = hubs(30_000, 400_000, seed);
    double[] expected = ProgramRelaxationTest.widestSerially(g, 0);
    assertThat(ProgramRelaxationTest.widest(gpu, g, ProgramRelaxation.Order.descending("width")))
        .isEqualTo(expected)
        .isEqualTo(ProgramRelaxationTest.widest(jvm, g,
            ProgramRelaxation.Order.descending("width")));
    assertThat(ProgramRelaxationTest.widest(gpu, g,
        ProgramRelaxation.Order.ascending("width").withWidth(10))).isEqualTo(expected);
  }

  /** Ordered, a relaxation that never stops improving still ends at the round limit. */
  @Test
  void theRoundLimitIsNamedWithAnOrder() {
    CsrGraph ring = CsrGraph.fromEdges(2, new int[] {0, 1}, new int[] {1, 0}, null);
    try (TxStore store = gpu.createStore(ProgramRelaxationTest.widestLayout(2))) {
      assertThatThrownBy(() -> ProgramRelaxation.relax(gpu, store, ring, UP, new int[] {0},
          ProgramRelaxation.Settings.defaults().withMaxRounds(50)
              .withOrder(ProgramRelaxation.Order.ascending("width"))))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("after 50 rounds (maxRounds)");
    }
  }

  /** With one lock a vertex (its three words a row) and with one a word: the same answers. */
  /** One prepared relaxation, its edges kept on the device, run from several sources. */
  @Test
  void onePreparedRelaxationRunsFromSeveralSourcesOnTheDevice() {
    assertThat(ProgramRelaxationTest.preparedRunsFromSeveralSources(gpu,
        ProgramRelaxationTest.graph(20_000, 4, 7))).isTrue();
  }

  @ParameterizedTest(name = "seed {0}, row locks {1}")
  @CsvSource({"1, true", "2, true", "3, true", "1, false", "2, false"})
  void shortestPathsKeepParentAndHopsConsistentWithTheDistance(long seed, boolean rowLocks) {
    CsrGraph g = ProgramRelaxationTest.graph(20_000, 4, seed);
    Object[] r = ProgramRelaxationTest.paths(gpu, g, null, rowLocks);
    double[] dist = (double[]) r[0];
    assertThat(dist).isEqualTo(ProgramRelaxationTest.dijkstra(g, 0));
    ProgramRelaxationTest.assertConsistentTree(g, dist, (int[]) r[1], (int[]) r[2]);
  }
}
