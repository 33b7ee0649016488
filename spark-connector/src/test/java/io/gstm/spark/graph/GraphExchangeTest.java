package io.gstm.spark.graph;

import static io.gstm.spark.graph.References.dense;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The supersteps' exchange ({@code setExchange}, {@code spark.gstm.graph.exchange}): through the
 * driver's hub inside one stage, the run takes the very supersteps and boundary messages of a
 * job per superstep (through the driver or a shuffle) and ends on Dijkstra's and union-find's
 * values; "auto" takes the hub only with a subgraph per engine; a hub whose subgraphs cannot
 * all start fails saying so and leaves the session usable.
 */
class GraphExchangeTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  @ParameterizedTest(name = "{0}, driver limit {1}")
  @CsvSource({"rmat, 1000000", "rmat, 1", "grid, 1000000", "grid, 1", "path, 1000000"})
  void theHubTakesTheSuperstepsOfAJobPerSuperstep(String graph, int driverLimit) {
    EdgeList g = graph(graph);
    int n = g.vertexCount();
    int source = g.src()[0];
    // local[2]: two subgraphs, a task slot for each.
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 2);
    RelaxationResult jobs = GraphRelaxation.of(df).setSubgraphs("partitions")
        .setExchange("jobs").setDriverExchangeLimit(driverLimit).shortestPaths(source).run();
    RelaxationResult hub = GraphRelaxation.of(df).setSubgraphs("partitions")
        .setExchange("hub").shortestPaths(source).run();
    assertThat(jobs.report().progress().exchange()).isEqualTo("jobs");
    assertThat(hub.report().progress().exchange()).isEqualTo("hub");
    assertThat(hub.report().partitions()).isEqualTo(2);
    assertThat(hub.report().supersteps()).isEqualTo(jobs.report().supersteps())
        .isGreaterThan(1);
    assertThat(hub.report().progress().boundaryMessages())
        .isEqualTo(jobs.report().progress().boundaryMessages()).isPositive();
    assertThat(hub.report().converged()).isTrue();
    double[] expected = References.dijkstra(n, g.src(), g.dst(), g.weights(), source);
    assertThat(dense(hub.values(), n)).isEqualTo(dense(jobs.values(), n));
    double[] byId = hub.collectById(n);
    for (int v = 0; v < n; v++) {
      assertThat(byId[v]).as("distance of %d", v).isEqualTo(expected[v]);
    }

    RelaxationResult jobsCc = GraphRelaxation.of(df).setSubgraphs("partitions")
        .setExchange("jobs").setDriverExchangeLimit(driverLimit).connectedComponents().run();
    RelaxationResult hubCc = GraphRelaxation.of(df).setSubgraphs("partitions")
        .setExchange("hub").connectedComponents().run();
    assertThat(hubCc.report().supersteps()).isEqualTo(jobsCc.report().supersteps());
    assertThat(dense(hubCc.values(), n)).isEqualTo(dense(jobsCc.values(), n));
    double[] labels = References.components(n, g.src(), g.dst());
    double[] cc = hubCc.collectById(n);
    for (int v = 0; v < n; v++) {
      if (cc[v] != Double.POSITIVE_INFINITY) { // a vertex in no edge is not in the result
        assertThat(cc[v]).as("label of %d", v).isEqualTo(labels[v]);
      }
    }
  }

  @Test
  void theSuperstepBoundHoldsThroughTheHub() {
    EdgeList g = References.scrambledPath(400, 5, 9);
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 2);
    RelaxationResult r = GraphRelaxation.of(df).setSubgraphs("partitions").setExchange("hub")
        .setMaxSupersteps(2).shortestPaths(g.src()[0]).run();
    assertThat(r.report().supersteps()).isEqualTo(2);
    assertThat(r.report().converged()).isFalse();
    assertThat(r.report().toString()).contains("NOT converged").contains("exchange: hub");
  }

  @Test
  void autoTakesTheHubOnlyWithASubgraphPerEngine() {
    EdgeList g = graph("rmat");
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 2);
    // Subgraphs per partition (JVM engines here): a job per superstep.
    RelaxationResult perPartition = GraphRelaxation.of(df).setSubgraphs("partitions")
        .shortestPaths(g.src()[0]).run();
    assertThat(perPartition.report().progress().exchange()).isEqualTo("jobs");
    // One engine here, so one subgraph: nothing to exchange.
    RelaxationResult perEngine = GraphRelaxation.of(df).setSubgraphs("engines")
        .shortestPaths(g.src()[0]).run();
    assertThat(perEngine.report().progress().exchange()).isEqualTo("none");
  }

  @Test
  void aHubWhoseSubgraphsCannotAllStartFailsClearlyAndFreesItsSlots() {
    EdgeList g = graph("grid");
    Dataset<Row> three = TestFrames.edges(session.spark(), g, 3);
    // local[2]: two slots for three subgraphs.
    assertThatThrownBy(() -> GraphRelaxation.of(three).setSubgraphs("partitions")
        .setExchange("hub").setHubStartMillis(2_000).shortestPaths(g.src()[0]).run())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("of 3 subgraphs' tasks started within 2 s")
        .hasMessageContaining("spark.gstm.graph.exchange=jobs");
    // The slots are free again.
    Dataset<Row> two = TestFrames.edges(session.spark(), g, 2);
    assertThat(GraphRelaxation.of(two).setSubgraphs("partitions").setExchange("hub")
        .shortestPaths(g.src()[0]).run().report().converged()).isTrue();
  }

  @Test
  void aBadExchangeNamesTheKeyAndTheChoices() {
    assertThatThrownBy(() -> GraphRelaxation.of(TestFrames.edges(session.spark(),
        graph("path"), 2)).setExchange("socket"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exchange").hasMessageContaining("auto, hub, jobs");
  }

  /** R-MAT (scrambled ids), a shuffled grid, or a shuffled long path with scattered ids. */
  private static EdgeList graph(String kind) {
    return switch (kind) {
      case "rmat" -> RmatGenerator.generate(10, 8000, 3, true);
      case "grid" -> GridGenerator.shuffled(GridGenerator.grid(40, 30, 4), 5);
      default -> References.scrambledPath(500, 7, 3);
    };
  }
}
