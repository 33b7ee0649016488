package io.gstm.spark.graph;

import static io.gstm.spark.graph.References.dense;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Where the edges go ({@code setPartitioning}): on a shuffled grid, placing them by ranges of
 * source ids replicates only the vertices at the ranges' borders and needs few supersteps, where
 * the input's partitions replicate most vertices; "auto" takes ranges there, and keeps the input's
 * partitions on R-MAT's scrambled ids and on input already split by ranges. Every placement gives
 * the same values, equal to Dijkstra's and union-find's, extra vertices included.
 */
class GraphPartitioningTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  @ParameterizedTest(name = "{0}, {1} partitions")
  @CsvSource({"auto, 2", "range, 3", "input, 2"})
  void shuffledGridShortestPathsEqualDijkstraWithFewReplicas(String mode, int partitions) {
    int rows = 60;
    int cols = 50;
    EdgeList g = GridGenerator.shuffled(GridGenerator.grid(rows, cols, 4), 5);
    Dataset<Row> df = TestFrames.edges(session.spark(), g, partitions);
    // A subgraph per partition, also on GPU executors (where auto cuts one per GPU).
    RelaxationResult r = GraphRelaxation.of(df).setSubgraphs("partitions").setPartitioning(mode)
        .shortestPaths(0).run();
    double[] expected = References.dijkstra(g.vertexCount(), g.src(), g.dst(), g.weights(), 0);
    assertThat(dense(r.values(), g.vertexCount())).isEqualTo(expected);
    RelaxationReport rep = r.report();
    if (mode.equals("input")) {
      assertThat(rep.placement().partitioning()).isEqualTo("input");
      assertThat(rep.placement().replicas()).isGreaterThan(g.vertexCount() / 2);
    } else {
      assertThat(rep.placement().partitioning()).isEqualTo("range");
      // Each border between two ranges replicates about a row on each side.
      assertThat(rep.placement().replicas())
          .isLessThanOrEqualTo(2L * (partitions - 1) * (cols + 2));
      assertThat(rep.supersteps()).isLessThanOrEqualTo(12);
    }
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"auto", "range", "input"})
  void componentsWithExtraVerticesAreTheSameUnderEveryPlacement(String mode) {
    // A road-like grid (missing streets split off some cells) plus isolated extra vertices.
    EdgeList g = GridGenerator.shuffled(GridGenerator.roadLike(30, 40, 6, 0.35, 3), 7);
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 3);
    int n = g.vertexCount() + 10;
    Dataset<Row> vertices = References.vertexIds(session.spark(), g.vertexCount(), n);
    RelaxationResult r = GraphRelaxation.of(df).setPartitioning(mode).connectedComponents()
        .setVertices(vertices).run();
    double[] expected = References.components(n, g.src(), g.dst());
    double[] actual = dense(r.values(), n);
    for (int v = 0; v < g.vertexCount(); v++) {
      if (!Double.isNaN(actual[v]) || inSomeEdge(g, v)) {
        assertThat(actual[v]).as("label of %d", v).isEqualTo(expected[v]);
      }
    }
    for (int v = g.vertexCount(); v < n; v++) {
      assertThat(actual[v]).as("isolated %d", v).isEqualTo(v);
    }
  }

  @Test
  void autoKeepsTheInputOnScrambledIdsAndOnInputAlreadyByRange() {
    EdgeList rmat = RmatGenerator.generate(10, 8000, 3, true);
    RelaxationResult r = GraphRelaxation.of(TestFrames.edges(session.spark(), rmat, 2))
        .shortestPaths(rmat.src()[0]).run();
    assertThat(r.report().placement().partitioning()).isEqualTo("input");
    double[] actual = dense(r.values(), rmat.vertexCount());
    assertThat(actual).isEqualTo(presentOnly(References.dijkstra(rmat.vertexCount(), rmat.src(),
        rmat.dst(), rmat.weights(), rmat.src()[0]), actual));
    // A grid in row-major edge order read into 2 partitions: already two bands of rows.
    EdgeList grid = GridGenerator.grid(40, 40, 2);
    RelaxationResult byRows = GraphRelaxation.of(TestFrames.edges(session.spark(), grid, 2))
        .shortestPaths(0).run();
    assertThat(byRows.report().placement().partitioning()).isEqualTo("input");
    assertThat(byRows.report().placement().replicas()).isLessThan(200);
    assertThat(dense(byRows.values(), grid.vertexCount())).isEqualTo(References.dijkstra(
        grid.vertexCount(), grid.src(), grid.dst(), grid.weights(), 0));
  }

  @ParameterizedTest(name = "{0} input partitions, {1} subgraphs")
  @CsvSource({"2, 3", "4, 2", "3, 1"})
  void rangesForOtherSubgraphCountsThanInputPartitions(int inputs, int subgraphs) {
    EdgeList g = GridGenerator.shuffled(GridGenerator.grid(30, 40, 8), 9);
    RelaxationResult r = GraphRelaxation.of(TestFrames.edges(session.spark(), g, inputs))
        .setPartitions(subgraphs).setPartitioning("range").shortestPaths(5).run();
    assertThat(dense(r.values(), g.vertexCount())).isEqualTo(
        References.dijkstra(g.vertexCount(), g.src(), g.dst(), g.weights(), 5));
    assertThat(r.report().partitions()).isEqualTo(subgraphs);
    assertThat(r.report().placement().partitioning())
        .isEqualTo(subgraphs == 1 ? "input" : "range");
    assertThat(r.report().placement().replicas())
        .isLessThanOrEqualTo(2L * (subgraphs - 1) * (40 + 2));
  }

  @Test
  void badInputFoundWhileSamplingLeavesNothingCached() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      rows.add(RowFactory.create((long) i, i == 150 ? null : (long) i + 1, 1.0));
    }
    Dataset<Row> df = session.spark().createDataFrame(rows, new StructType()
        .add("src", DataTypes.LongType).add("dst", DataTypes.LongType)
        .add("weight", DataTypes.DoubleType)).repartition(2);
    java.util.Set<Object> before = cachedRdds();
    assertThatThrownBy(() -> GraphRelaxation.of(df).setPartitioning("auto").shortestPaths(0)
        .run()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'dst': null vertex id");
    // Nothing new stays cached (the input's edges, kept while sampled, are dropped).
    assertThat(before).containsAll(cachedRdds());
  }

  private static java.util.Set<Object> cachedRdds() {
    return new java.util.HashSet<>(scala.jdk.javaapi.CollectionConverters.asJava(
        session.spark().sparkContext().getPersistentRDDs()).keySet());
  }

  @Test
  void longPathWithRandomIdsIsExactUnderRanges() {
    // Ids without locality: ranges gain nothing but must stay exact.
    int n = 400;
    EdgeList path = References.scrambledPath(n, 5, 3);
    RelaxationResult r = GraphRelaxation.of(TestFrames.edges(session.spark(), path, 2))
        .setPartitioning("range").shortestPaths(0).run();
    assertThat(dense(r.values(), n)).isEqualTo(
        References.dijkstra(n, path.src(), path.dst(), path.weights(), 0));
  }

  @Test
  void placementPlanning() {
    // Bounds balance the sampled sources; equal bounds leave an empty range.
    EdgePlacement.Sample a = new EdgePlacement.Sample(4, new int[] {0, 1, 2, 3},
        new int[] {1, 2, 3, 4});
    EdgePlacement.Sample b = new EdgePlacement.Sample(4, new int[] {4, 5, 6, 7},
        new int[] {5, 6, 7, 0});
    int[] bounds = EdgePlacement.bounds(List.of(a, b), 2);
    assertThat(bounds).containsExactly(4);
    VertexPlacement ranges = VertexPlacement.ranges(bounds);
    assertThat(ranges.owner(3)).isZero();
    assertThat(ranges.owner(4)).isEqualTo(1);
    assertThat(EdgePlacement.crossing(List.of(a, b), ranges)).isEqualTo(2.0 / 8);
    assertThat(EdgePlacement.alreadyRanges(List.of(a, b), ranges)).isTrue();
    assertThat(EdgePlacement.alreadyRanges(List.of(b, a), ranges)).isTrue();
    assertThat(EdgePlacement.alreadyRanges(List.of(a, a), ranges)).isFalse();
    VertexPlacement empty = VertexPlacement.ranges(new int[] {5, 5, 9});
    assertThat(empty.owner(4)).isZero();
    assertThat(empty.owner(5)).isEqualTo(2);
    assertThat(empty.owner(9)).isEqualTo(3);
    assertThat(VertexPlacement.modulo(3).owner(7)).isEqualTo(1);
    assertThat(EdgePlacement.decide(List.of(a, b), 1, "auto").byRange()).isFalse();
    // The largest id as the last sample: the bound after it stays an int.
    EdgePlacement.Sample top = new EdgePlacement.Sample(1, new int[] {Integer.MAX_VALUE},
        new int[] {0});
    assertThat(EdgePlacement.bounds(List.of(top), 2)).containsExactly(Integer.MAX_VALUE);
    assertThat(EdgePlacement.decide(List.of(top, top), 3, "range").placement()
        .owner(Integer.MAX_VALUE)).isBetween(0, 2);
    assertThatThrownBy(() -> GraphRelaxation.of(TestFrames.edges(session.spark(),
        GridGenerator.grid(2, 2, 1), 1)).setPartitioning("hash"))
        .hasMessageContaining("hash").hasMessageContaining("auto, input or range");
  }

  private static boolean inSomeEdge(EdgeList g, int v) {
    for (int e = 0; e < g.edgeCount(); e++) {
      if (g.src()[e] == v || g.dst()[e] == v) {
        return true;
      }
    }
    return false;
  }

  /** The expected values where {@code actual} has a vertex (NaN elsewhere, as dense leaves). */
  private static double[] presentOnly(double[] expected, double[] actual) {
    double[] out = expected.clone();
    for (int v = 0; v < out.length; v++) {
      if (Double.isNaN(actual[v])) {
        out[v] = Double.NaN;
      }
    }
    return out;
  }
}
