package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.jvm.JvmEngine;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The JVM engine's ordered relaxation (a heap per worker, buckets of values with several
 * workers): shortest paths equal Dijkstra's and components equal union-find on random graphs,
 * weighted grids (row-major and shuffled edges), road-like grids and long paths, and the work
 * stays near Dijkstra's: with one worker every reached vertex is scanned once (edge
 * relaxations at most the edges), with W workers at most W + 1 times the edges (workers that
 * run ahead of the order rescan what a lower value reaches later; how far ahead depends on the
 * machine's scheduling: 4 workers on 2 cores made 3.1 times the edges once).
 */
class OrderedRelaxationTest {

  @ParameterizedTest(name = "{0}, workers {1}")
  @CsvSource({"random, 1", "random, 2", "random, 4", "grid, 1", "grid, 2", "grid, 4",
      "shuffled-grid, 1", "shuffled-grid, 3", "road, 1", "road, 4", "path, 1", "path, 4"})
  void shortestPathsEqualDijkstraWithDijkstrasWork(String shape, int workers) {
    EdgeList edges = graph(shape);
    CsrGraph g = edges.toCsr();
    int source = edges.src()[0];
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS,
        g.vertexCount(), source);
    RelaxResult r = relax(g, RelaxationKind.SHORTEST_PATHS, workers, init, new int[] {source});
    RelaxationVerifier.Report report =
        RelaxationVerifier.check(g, RelaxationKind.SHORTEST_PATHS, init, r.values());
    assertThat(report.ok()).as(report.toString()).isTrue();
    long bound = workers == 1 ? g.edgeCount() : (workers + 1L) * g.edgeCount();
    assertThat(r.stats().edgeRelaxations()).as("edge relaxations of %,d edges", g.edgeCount())
        .isLessThanOrEqualTo(bound);
  }

  @ParameterizedTest(name = "{0}, workers {1}")
  @CsvSource({"random, 1", "random, 4", "grid, 1", "grid, 2", "shuffled-grid, 1", "road, 1",
      "road, 3", "path, 1", "path, 2"})
  void componentsEqualUnionFindLowestLabelFirst(String shape, int workers) {
    CsrGraph g = graph(shape).toCsr().undirected();
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.CONNECTED_COMPONENTS,
        g.vertexCount());
    int[] all = IntStream.range(0, g.vertexCount()).toArray();
    RelaxResult r = relax(g, RelaxationKind.CONNECTED_COMPONENTS, workers, init, all);
    RelaxationVerifier.Report report =
        RelaxationVerifier.check(g, RelaxationKind.CONNECTED_COMPONENTS, init, r.values());
    assertThat(report.ok()).as(report.toString()).isTrue();
    // Lowest label first: each component is flooded once by its smallest label.
    long bound = workers == 1 ? g.edgeCount() : (workers + 1L) * g.edgeCount();
    assertThat(r.stats().edgeRelaxations()).isLessThanOrEqualTo(bound);
  }

  @ParameterizedTest(name = "workers {0}")
  @CsvSource({"1", "4"})
  void resumesFromUpdatedBoundaryValues(int workers) {
    // As the Spark connector's later supersteps: some vertices get lower values from outside
    // and only they start active.
    CsrGraph g = GridGenerator.grid(40, 40, 3).toCsr();
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, 1600, 0);
    try (JvmEngine engine = new JvmEngine(workers);
        GraphRelaxer relaxer = new GraphRelaxer(engine, g, RelaxationKind.SHORTEST_PATHS,
            RelaxOptions.defaults())) {
      RelaxResult first = relaxer.relax(init, new int[] {0});
      double[] lowered = first.values().clone();
      lowered[1599] = 0;
      lowered[820] = 3;
      RelaxResult second = relaxer.relax(lowered, new int[] {1599, 820});
      double[] expected = RelaxationVerifier.dijkstra(g, lowered);
      assertThat(second.values()).isEqualTo(expected);
      assertThat(second.stats().edgeRelaxations()).isLessThanOrEqualTo(3L * g.edgeCount());
    }
  }

  static EdgeList graph(String shape) {
    return switch (shape) {
      case "random" -> GraphTestGraphs.random(3000, 20000, 3, 5);
      case "grid" -> GridGenerator.grid(60, 80, 7);
      case "shuffled-grid" -> GridGenerator.shuffled(GridGenerator.grid(70, 70, 8), 9);
      case "road" -> GridGenerator.shuffled(GridGenerator.roadLike(60, 60, 10, 0.15, 20), 11);
      case "path" -> GraphTestGraphs.path(5000, 13);
      default -> throw new IllegalArgumentException(shape);
    };
  }

  private static RelaxResult relax(CsrGraph g, RelaxationKind kind, int workers,
      double[] values, int[] active) {
    try (JvmEngine engine = new JvmEngine(workers);
        GraphRelaxer relaxer = new GraphRelaxer(engine, g, kind, RelaxOptions.defaults())) {
      return relaxer.relax(values, active);
    }
  }
}
