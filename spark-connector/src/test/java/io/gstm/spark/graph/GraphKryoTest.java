package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A session whose {@code spark.serializer} is Kryo: the subgraphs' step outputs and reported
 * values (arrays as raw bytes) reach the driver and the other subgraphs whole, through the hub,
 * the driver and the shuffle, and the distances are Dijkstra's.
 */
class GraphKryoTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark("spark.serializer",
      "org.apache.spark.serializer.KryoSerializer");

  @ParameterizedTest(name = "{0}, driver limit {1}")
  @CsvSource({"hub, 1000000", "jobs, 1000000", "jobs, 1"})
  void distancesThroughKryoAreDijkstras(String exchange, int driverLimit) {
    EdgeList g = RmatGenerator.generate(10, 8000, 3, true);
    int n = g.vertexCount();
    int source = g.src()[0];
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 2);
    RelaxationResult r = GraphRelaxation.of(df).setSubgraphs("partitions").setExchange(exchange)
        .setDriverExchangeLimit(driverLimit).shortestPaths(source).run();
    assertThat(r.report().supersteps()).isGreaterThan(1);
    double[] expected = References.dijkstra(n, g.src(), g.dst(), g.weights(), source);
    double[] byId = r.collectById(n);
    for (int v = 0; v < n; v++) {
      assertThat(byId[v]).as("distance of %d", v).isEqualTo(expected[v]);
    }
  }
}
