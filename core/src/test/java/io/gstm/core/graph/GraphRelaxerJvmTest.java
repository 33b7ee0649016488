package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.engine.Engine;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.workload.graph.GraphRelaxWorkload;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Graph relaxation with real transactions on the JVM engine: shortest paths equal Dijkstra's
 * and components equal union-find on random graphs with disconnected parts, a single vertex and
 * no edges; a second call from a partial state (as Spark supersteps do) reaches the same
 * fixpoint; inputs are never modified.
 */
class GraphRelaxerJvmTest {
  private static Engine engine;

  @BeforeAll
  static void open() {
    engine = new JvmEngine(4);
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  @ParameterizedTest(name = "{0} vertices, {1} edges, {2} parts, coverage {3}, seed {4}")
  @CsvSource({"200, 1500, 3, 1, 1", "500, 4000, 5, 4, 2", "64, 600, 1, 1, 3",
      "1000, 300, 2, 1, 4"})
  void shortestPathsEqualDijkstra(int n, int m, int parts, int coverage, long seed) {
    CsrGraph g = GraphTestGraphs.random(n, m, parts, seed).toCsr();
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, n, 0, 1);
    double[] before = init.clone();
    int[] active = {0, 1, 1};
    RelaxResult r = relax(g, RelaxationKind.SHORTEST_PATHS, coverage, init, active);
    assertThat(init).isEqualTo(before);
    assertThat(active).containsExactly(0, 1, 1);
    RelaxationVerifier.Report report =
        RelaxationVerifier.check(g, RelaxationKind.SHORTEST_PATHS, init, r.values());
    assertThat(report.ok()).as(report.toString()).isTrue();
    // Vertices of other parts stay unreached.
    assertThat(r.values()[2 % parts == 0 ? 3 : 2]).isPositive();
    int[] changed = IntStream.range(0, n).filter(v -> r.values()[v] < init[v]).toArray();
    assertThat(r.changedVertices()).isEqualTo(changed);
    assertThat(r.stats().commits()).isEqualTo(r.stats().transactions());
    assertThat(r.stats().edgeRelaxations()).isGreaterThanOrEqualTo(g.degree(0) + g.degree(1));
  }

  @ParameterizedTest(name = "{0} vertices, {1} edges, {2} parts")
  @CsvSource({"300, 900, 4, 5", "100, 40, 1, 6", "50, 0, 1, 7"})
  void componentsEqualUnionFind(int n, int m, int parts, long seed) {
    CsrGraph g = GraphTestGraphs.random(n, m, parts, seed).toCsr().undirected();
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.CONNECTED_COMPONENTS, n);
    int[] all = IntStream.range(0, n).toArray();
    RelaxResult r = relax(g, RelaxationKind.CONNECTED_COMPONENTS, 1, init, all);
    RelaxationVerifier.Report report =
        RelaxationVerifier.check(g, RelaxationKind.CONNECTED_COMPONENTS, init, r.values());
    assertThat(report.ok()).as(report.toString()).isTrue();
  }

  /** Every vertex active without a list: the same values and changed vertices as the list. */
  @ParameterizedTest(name = "{0}, seed {1}")
  @CsvSource({"CONNECTED_COMPONENTS, 11", "SHORTEST_PATHS, 12"})
  void everyVertexEqualsTheListOfEvery(RelaxationKind kind, long seed) {
    CsrGraph g = GraphTestGraphs.random(400, 1500, 5, seed).toCsr();
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
    double[] init = new double[g.vertexCount()];
    Arrays.setAll(init, v -> rnd.nextInt(4) == 0 ? Double.POSITIVE_INFINITY : rnd.nextInt(500));
    int[] every = IntStream.range(0, g.vertexCount()).toArray();
    RelaxResult fromList = relax(g, kind, 1, init, every);
    try (GraphRelaxer relaxer = new GraphRelaxer(engine, g, kind, RelaxOptions.defaults())) {
      RelaxResult fromAll = relaxer.relaxAll(copy(init));
      assertThat(fromAll.values()).isEqualTo(fromList.values());
      assertThat(fromAll.changedVertices()).isEqualTo(fromList.changedVertices()).isNotEmpty();
      assertThatThrownBy(() -> relaxer.relaxAll(new double[3]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("values");
      assertThatThrownBy(() -> relaxer.relaxAll(null))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("values");
    }
  }

  @Test
  void unweightedCountsHops() {
    CsrGraph g = CsrGraph.fromEdges(4, new int[] {0, 1, 2, 0}, new int[] {1, 2, 3, 2}, null);
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, 4, 0);
    RelaxResult r = relax(g, RelaxationKind.SHORTEST_PATHS, 1, init, new int[] {0});
    assertThat(r.values()).containsExactly(0, 1, 1, 2);
    assertThat(r.changedVertices()).containsExactly(1, 2, 3);
  }

  @Test
  void highDegreeVertexIsSplitIntoChunks() {
    int n = 100;
    int[] src = new int[n - 1];
    int[] dst = new int[n - 1];
    double[] w = new double[n - 1];
    for (int i = 0; i < n - 1; i++) {
      dst[i] = i + 1;
      w[i] = i % 7 + 1;
    }
    CsrGraph g = CsrGraph.fromEdges(n, src, dst, w);
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, n, 0);
    RelaxResult r = relax(g, RelaxationKind.SHORTEST_PATHS, 1, init, new int[] {0});
    assertThat(r.stats().transactions()).isEqualTo((n - 1 + GraphRelaxWorkload.CHUNK - 1)
        / GraphRelaxWorkload.CHUNK);
    assertThat(r.stats().edgeRelaxations()).isEqualTo(n - 1);
    assertThat(RelaxationVerifier.check(g, RelaxationKind.SHORTEST_PATHS, init, r.values()).ok())
        .isTrue();
  }

  /**
   * A long active list (every vertex, as components start) is range-checked on all cores; a bad
   * id is still refused naming the first one.
   */
  @Test
  void longActiveListsAreCheckedNamingTheFirstBadId() {
    int n = 3 * GraphRelaxer.PARALLEL_CHECK + 5;
    double[] values = new double[n];
    int[] active = IntStream.range(0, n).toArray();
    GraphRelaxer.checkInputs(values, active, n);
    active[n - 1] = n;
    active[2 * GraphRelaxer.PARALLEL_CHECK + 1] = -7;
    assertThatThrownBy(() -> GraphRelaxer.checkInputs(values, active, n))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("activeVertices[" + (2 * GraphRelaxer.PARALLEL_CHECK + 1) + "] = -7 is out "
            + "of range: vertices 0.." + (n - 1));
  }

  @Test
  void singleVertexAndNoEdges() {
    CsrGraph one = CsrGraph.fromEdges(1, new int[0], new int[0], null);
    RelaxResult r = relax(one, RelaxationKind.SHORTEST_PATHS, 1, new double[] {0}, new int[] {0});
    assertThat(r.values()).containsExactly(0);
    assertThat(r.changedVertices()).isEmpty();
    assertThat(r.stats().rounds()).isZero();
    CsrGraph none = CsrGraph.fromEdges(0, new int[0], new int[0], null);
    RelaxResult empty = relax(none, RelaxationKind.CONNECTED_COMPONENTS, 1, new double[0],
        new int[0]);
    assertThat(empty.values()).isEmpty();
  }

  @Test
  void supersteps_resumeFromAPartialState() {
    // Relax a graph as two halves' worth of edges, then continue from the first result with only
    // the changed vertices active, as the Spark connector does across supersteps.
    CsrGraph g = GraphTestGraphs.random(300, 2000, 2, 11).toCsr();
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, 300, 0);
    // A long path needs many phases (buckets of values) with several workers.
    EdgeList path = GraphTestGraphs.path(300, 12);
    int start = path.src()[0];
    try (GraphRelaxer relaxer = new GraphRelaxer(engine, path.toCsr(),
        RelaxationKind.SHORTEST_PATHS, RelaxOptions.defaults().withMaxRounds(1))) {
      assertThatThrownBy(() -> relaxer.relax(RelaxationVerifier.initialValues(
          RelaxationKind.SHORTEST_PATHS, 300, start), new int[] {start}))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("maxRounds");
    }
    try (GraphRelaxer relaxer = new GraphRelaxer(engine, g, RelaxationKind.SHORTEST_PATHS,
        RelaxOptions.defaults())) {
      RelaxResult first = relaxer.relax(init, new int[] {0});
      double[] lowered = first.values().clone();
      lowered[5] = 0;
      RelaxResult second = relaxer.relax(lowered, new int[] {5});
      assertThat(RelaxationVerifier.check(g, RelaxationKind.SHORTEST_PATHS,
          RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, 300, 0, 5),
          second.values()).ok()).isTrue();
    }
  }

  @Test
  void badInputNamesTheParameter() {
    CsrGraph g = CsrGraph.fromEdges(3, new int[] {0}, new int[] {1}, new double[] {2});
    try (GraphRelaxer relaxer = new GraphRelaxer(engine, g, RelaxationKind.SHORTEST_PATHS,
        RelaxOptions.defaults())) {
      assertThatThrownBy(() -> relaxer.relax(new double[2], new int[0]))
          .hasMessageContaining("values");
      assertThatThrownBy(() -> relaxer.relax(new double[] {0, Double.NaN, 1}, new int[0]))
          .hasMessageContaining("values[1]");
      assertThatThrownBy(() -> relaxer.relax(new double[3], new int[] {3}))
          .hasMessageContaining("activeVertices[0]");
    }
    GraphRelaxer closed = new GraphRelaxer(engine, g, RelaxationKind.SHORTEST_PATHS,
        RelaxOptions.defaults());
    closed.close();
    assertThatThrownBy(closed::close).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> new RelaxOptions(0, 1, 1, RelaxOptions.defaults().run()))
        .hasMessageContaining("threadsPerBlock");
    assertThatThrownBy(() -> RelaxOptions.defaults().withLockCoverage(0))
        .hasMessageContaining("lockCoverage");
    for (double width : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> RelaxOptions.defaults().withBucketEdges(width))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bucketEdges");
    }
    // Pulling is opt-in (a wrong promise gives wrong components) and every wither keeps it.
    assertThat(RelaxOptions.defaults().symmetric()).isFalse();
    RelaxOptions symmetric = RelaxOptions.defaults().withSymmetric(true);
    assertThat(symmetric.withThreadsPerBlock(32).withLockCoverage(2).withMaxRounds(9)
        .withRun(symmetric.run()).withBucketEdges(4).symmetric()).isTrue();
  }

  /**
   * The JVM engine's own rounds ({@code JvmGraphRelax}) and the generic path (a TxBatch per
   * round, taken by engines without their own rounds, here the JVM engine behind a wrapper)
   * reach the same fixpoint, with one worker and with several.
   */
  @ParameterizedTest(name = "{0}, workers {1}, coverage {2}")
  @CsvSource({"SHORTEST_PATHS, 1, 1", "SHORTEST_PATHS, 3, 2", "CONNECTED_COMPONENTS, 1, 1",
      "CONNECTED_COMPONENTS, 4, 3"})
  void ownRoundsEqualTheBatchPath(RelaxationKind kind, int workers, int coverage) {
    int n = 2000;
    CsrGraph g = GraphTestGraphs.random(n, 16000, 3, 21).toCsr();
    if (kind == RelaxationKind.CONNECTED_COMPONENTS) {
      g = g.undirected();
    }
    double[] init = RelaxationVerifier.initialValues(kind, n, 0, 7);
    int[] active = kind == RelaxationKind.SHORTEST_PATHS ? new int[] {0, 7}
        : IntStream.range(0, n).toArray();
    RelaxOptions opts = RelaxOptions.defaults().withLockCoverage(coverage)
        .withThreadsPerBlock(64);
    RelaxResult own;
    RelaxResult batches;
    try (JvmEngine jvm = new JvmEngine(workers);
        GraphRelaxer a = new GraphRelaxer(jvm, g, kind, opts);
        GraphRelaxer b = new GraphRelaxer(new Wrapped(jvm), g, kind, opts)) {
      own = a.relax(init, active);
      batches = b.relax(init, active);
      // Resident state: a second call from the same inputs gives the same fixpoint.
      assertThat(a.relax(init, active).values()).isEqualTo(own.values());
    }
    assertThat(RelaxationVerifier.check(g, kind, init, own.values()).ok()).isTrue();
    assertThat(own.values()).isEqualTo(batches.values());
    assertThat(own.changedVertices()).isEqualTo(batches.changedVertices());
    assertThat(own.stats().commits()).isEqualTo(own.stats().transactions());
    // Chunks that a plain read shows cannot improve run no transaction.
    assertThat(own.stats().transactions()).isLessThanOrEqualTo(batches.stats().transactions());
    assertThat(own.stats().rounds()).isPositive();
  }

  /** An engine that is not a JvmEngine (so GraphRelaxer builds a TxBatch per round). */
  private record Wrapped(JvmEngine inner) implements Engine {
    @Override
    public String name() {
      return "wrapped-jvm";
    }

    @Override
    public String device() {
      return inner.device();
    }

    @Override
    public io.gstm.core.store.TxStore createStore(io.gstm.core.store.StoreLayout layout) {
      return inner.createStore(layout);
    }

    @Override
    public io.gstm.core.batch.BatchResult run(io.gstm.core.store.TxStore store,
        io.gstm.core.batch.TxBatch batch, io.gstm.core.batch.RunOptions options) {
      return inner.run(store, batch, options);
    }

    @Override
    public io.gstm.core.program.ProgramResult run(io.gstm.core.store.TxStore store,
        io.gstm.core.program.ProgramBatch batch, io.gstm.core.batch.RunOptions options) {
      return inner.run(store, batch, options);
    }

    @Override
    public io.gstm.core.engine.LimitsReport probeLimits(int words) {
      return inner.probeLimits(words);
    }

    @Override
    public void close() {}
  }

  private static RelaxResult relax(CsrGraph g, RelaxationKind kind, int coverage,
      double[] values, int[] active) {
    try (GraphRelaxer relaxer = new GraphRelaxer(engine, g, kind,
        RelaxOptions.defaults().withLockCoverage(coverage).withThreadsPerBlock(32))) {
      return relaxer.relax(values, active);
    }
  }

  static double[] copy(double[] a) {
    return Arrays.copyOf(a, a.length);
  }
}
