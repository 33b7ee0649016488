package io.gstm.spark.graph;

import static io.gstm.spark.graph.References.dense;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import io.gstm.spark.conf.GstmConf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * How many subgraphs ({@code setSubgraphs}, {@code spark.gstm.graph.subgraphs}): "engines" (one
 * per executor engine; here one executor without a GPU, so one subgraph, as on one GPU) gives
 * the per-partition cut's values, Dijkstra's and union-find's, in one superstep without boundary
 * messages; "auto" keeps the per-partition cut on JVM engines; bad values are errors naming the
 * key and the allowed values.
 */
class GraphSubgraphsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  @ParameterizedTest(name = "{0}, {1} input partitions")
  @CsvSource({"rmat, 2", "rmat, 3", "grid, 2", "path, 2", "path, 4"})
  void oneSubgraphPerEngineGivesThePerPartitionValues(String graph, int inputs) {
    EdgeList g = graph(graph);
    int n = g.vertexCount();
    int source = g.src()[0];
    Dataset<Row> df = TestFrames.edges(session.spark(), g, inputs);
    RelaxationResult cut = GraphRelaxation.of(df).setSubgraphs("partitions")
        .shortestPaths(source).run();
    RelaxationResult whole = GraphRelaxation.of(df).setSubgraphs("engines")
        .shortestPaths(source).run();
    assertThat(cut.report().partitions()).isEqualTo(inputs);
    assertThat(cut.report().placement().subgraphs()).startsWith("partitions");
    assertOneSuperstepWithoutExchange(whole.report());
    double[] expected = present(References.dijkstra(n, g.src(), g.dst(), g.weights(), source),
        g, source);
    assertThat(dense(whole.values(), n)).isEqualTo(dense(cut.values(), n)).isEqualTo(expected);
    // The driver's arrays equal the rows (+infinity where no vertex), with one subgraph and
    // with replicas in several.
    assertThat(whole.collectById(n)).isEqualTo(absentAsInfinity(expected));
    assertThat(cut.collectById(n + 5)).startsWith(absentAsInfinity(expected)).endsWith(
        Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY,
        Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY);

    RelaxationResult cutCc = GraphRelaxation.of(df).setSubgraphs("partitions")
        .connectedComponents().run();
    RelaxationResult wholeCc = GraphRelaxation.of(df).setSubgraphs("engines")
        .connectedComponents().run();
    assertOneSuperstepWithoutExchange(wholeCc.report());
    // One subgraph is built by its first superstep (no job collects its ids first), which
    // reports its size: every vertex once, every edge both ways once.
    assertThat(wholeCc.report().vertices()).isEqualTo(cutCc.report().vertices())
        .isEqualTo(Arrays.stream(present(new double[n], g, -1)).filter(x -> x == 0).count());
    assertThat(wholeCc.report().edges()).isEqualTo(g.toCsr().undirected().edgeCount())
        .isLessThanOrEqualTo(cutCc.report().edges());
    double[] labels = present(References.components(n, g.src(), g.dst()), g, -1);
    assertThat(dense(wholeCc.values(), n)).isEqualTo(dense(cutCc.values(), n)).isEqualTo(labels);
    assertThat(cutCc.collectById(n)).isEqualTo(absentAsInfinity(labels));
    // The single subgraph's values came back with its superstep: the same array, no job.
    assertThat(wholeCc.collectById(n)).isEqualTo(absentAsInfinity(labels));
    assertThatThrownBy(() -> wholeCc.collectById(n - 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("size: vertex id");
    int largest = (int) Arrays.stream(g.src()).max().orElse(0);
    assertThatThrownBy(() -> cutCc.collectById(largest))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("size: vertex id");
  }

  @Test
  void autoKeepsOneSubgraphPerPartitionOnJvmEnginesAndAGivenCount() {
    EdgeList g = graph("rmat");
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 2);
    RelaxationReport auto = GraphRelaxation.of(df).connectedComponents().run().report();
    RelaxationReport autoPaths = GraphRelaxation.of(df).shortestPaths(g.src()[0]).run()
        .report();
    org.apache.spark.SparkContext sc = session.spark().sparkContext();
    if (io.gstm.spark.exec.EngineCount.gpuExecutors(sc, GstmConf.settings(sc.getConf()))) {
      // A GPU executor (the suite run on a GPU machine): a subgraph per GPU.
      assertThat(auto.partitions()).isEqualTo(1);
      assertThat(auto.placement().subgraphs()).startsWith("engines").contains("GPU");
      assertThat(autoPaths.partitions()).isEqualTo(1);
    } else {
      assertThat(auto.partitions()).isEqualTo(2);
      assertThat(auto.placement().subgraphs()).startsWith("partitions").contains("JVM engines");
      // Shortest paths with few task slots (this session's 2): a subgraph per executor.
      boolean few = io.gstm.spark.exec.TaskHub.taskSlots(sc) <= SubgraphCount.FEW_SLOTS;
      assertThat(autoPaths.partitions()).isEqualTo(few ? 1 : 2);
      assertThat(autoPaths.placement().subgraphs()).startsWith(few ? "engines" : "partitions")
          .contains("JVM engines");
    }
    RelaxationReport jvm = GraphRelaxation.of(df).setEngine("jvm").connectedComponents().run()
        .report();
    assertThat(jvm.partitions()).isEqualTo(2);
    RelaxationReport given = GraphRelaxation.of(df).setPartitions(3).setSubgraphs("auto")
        .connectedComponents().run().report();
    assertThat(given.partitions()).isEqualTo(3);
    assertThat(given.placement().subgraphs()).contains("count was given");
    // engines overrides a given count: it is the explicit choice.
    RelaxationReport engines = GraphRelaxation.of(df).setPartitions(3).setSubgraphs("ENGINES")
        .connectedComponents().run().report();
    assertThat(engines.partitions()).isEqualTo(1);
    RelaxationReport.Timings t = engines.timings();
    assertThat(t.planNanos()).isPositive();
    assertThat(t.superstepNanos()).isPositive();
    assertThat(t.planNanos() + t.superstepNanos()).isLessThanOrEqualTo(t.wallNanos());
  }

  @Test
  void extraVerticesAndTheSourceReachTheOneSubgraph() {
    EdgeList g = GridGenerator.shuffled(GridGenerator.roadLike(20, 30, 6, 0.35, 3), 7);
    int n = g.vertexCount() + 5;
    Dataset<Row> vertices = References.vertexIds(session.spark(), g.vertexCount(), n);
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 3);
    RelaxationResult r = GraphRelaxation.of(df).setSubgraphs("engines").setVertices(vertices)
        .connectedComponents().run();
    assertOneSuperstepWithoutExchange(r.report());
    double[] actual = dense(r.values(), n);
    double[] expected = References.components(n, g.src(), g.dst());
    for (int v = 0; v < n; v++) {
      if (!Double.isNaN(actual[v])) {
        assertThat(actual[v]).as("label of %d", v).isEqualTo(expected[v]);
      }
    }
    for (int v = g.vertexCount(); v < n; v++) {
      assertThat(actual[v]).as("isolated %d", v).isEqualTo(v);
    }
    // A source in no edge is still reported, at distance 0.
    RelaxationResult lonely = GraphRelaxation.of(df).setSubgraphs("engines")
        .shortestPaths(n + 100).run();
    assertThat(dense(lonely.values(), n + 101)[n + 100]).isZero();
  }

  @Test
  void badValuesNameTheKeyAndTheChoices() {
    assertThatThrownBy(() -> GraphRelaxation.of(TestFrames.edges(session.spark(), graph("path"), 2))
        .setSubgraphs("per-core"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spark.gstm.graph.subgraphs")
        .hasMessageContaining("'per-core'")
        .hasMessageContaining("auto, partitions, engines");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.graph.subgraphs", "gpus")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spark.gstm.graph.subgraphs")
        .hasMessageContaining("'gpus'")
        .hasMessageContaining("auto, partitions, engines");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.graph.subgraphs", "")))
        .hasMessageContaining("spark.gstm.graph.subgraphs");
    assertThat(GstmConf.GRAPH_SUBGRAPHS.parse(" Partitions ")).isEqualTo("partitions");
    assertThat(GstmConf.GRAPH_SUBGRAPHS.parse(null)).isEqualTo("auto");
  }

  @Test
  void badInputFoundWhileReadingInParallelLeavesNothingCached() {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      rows.add(RowFactory.create((long) i, (long) i + 1, i == 150 ? -1.0 : 1.0));
    }
    Dataset<Row> df = session.spark().createDataFrame(rows, new StructType()
        .add("src", DataTypes.LongType).add("dst", DataTypes.LongType)
        .add("weight", DataTypes.DoubleType)).repartition(2);
    Set<Object> before = cachedRdds();
    assertThatThrownBy(() -> GraphRelaxation.of(df).setSubgraphs("engines").shortestPaths(0)
        .run()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'weight': negative weight");
    assertThat(before).containsAll(cachedRdds());
  }

  private static void assertOneSuperstepWithoutExchange(RelaxationReport r) {
    assertThat(r.partitions()).isEqualTo(1);
    assertThat(r.placement().subgraphs()).startsWith("engines");
    assertThat(r.supersteps()).isEqualTo(1);
    assertThat(r.converged()).isTrue();
    assertThat(r.progress().boundaryMessages()).isZero();
    assertThat(r.placement().replicas()).isZero();
  }

  /** R-MAT (scrambled ids), a shuffled grid, or a shuffled long path with scattered ids. */
  private static EdgeList graph(String kind) {
    return switch (kind) {
      case "rmat" -> RmatGenerator.generate(10, 8000, 3, true);
      case "grid" -> GridGenerator.shuffled(GridGenerator.grid(40, 30, 4), 5);
      default -> References.scrambledPath(500, 7, 3);
    };
  }

  /** {@link #present}'s NaN (no such vertex) as {@code collectById} gives it: +infinity. */
  private static double[] absentAsInfinity(double[] values) {
    return Arrays.stream(values).map(v -> Double.isNaN(v) ? Double.POSITIVE_INFINITY : v)
        .toArray();
  }

  /** {@code expected} where the vertex is in some edge (or is the source), NaN elsewhere. */
  private static double[] present(double[] expected, EdgeList g, int source) {
    boolean[] seen = new boolean[expected.length];
    for (int e = 0; e < g.edgeCount(); e++) {
      seen[g.src()[e]] = true;
      seen[g.dst()[e]] = true;
    }
    if (source >= 0) {
      seen[source] = true;
    }
    double[] out = expected.clone();
    for (int v = 0; v < out.length; v++) {
      if (!seen[v]) {
        out[v] = Double.NaN;
      }
    }
    return out;
  }

  private static Set<Object> cachedRdds() {
    return new HashSet<>(scala.jdk.javaapi.CollectionConverters.asJava(
        session.spark().sparkContext().getPersistentRDDs()).keySet());
  }
}
