package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.ProgramRelaxationTest;
import io.gstm.core.workload.graph.GraphPrograms;
import io.gstm.spark.SharedSpark;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Program relaxations over DataFrames ({@link GraphProgramRelaxation}): widest paths equal the
 * serial fixpoint and shortest paths Dijkstra's with a consistent parent and hop count, from
 * edges spread over several partitions and vertex values given as columns; bad input named.
 */
class GraphProgramRelaxationTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  private static final StructType EDGES = new StructType().add("src", DataTypes.LongType)
      .add("dst", DataTypes.LongType).add("weight", DataTypes.DoubleType);

  /** The graph's edges as a DataFrame of 4 partitions; vertex ids are 10 * index + 7. */
  private static Dataset<Row> edges(CsrGraph g) {
    List<Row> rows = new ArrayList<>();
    for (int u = 0; u < g.vertexCount(); u++) {
      for (int i = g.offsets()[u]; i < g.offsets()[u + 1]; i++) {
        rows.add(RowFactory.create(10L * u + 7, 10L * g.targets()[i] + 7, g.weights()[i]));
      }
    }
    return session.spark().createDataFrame(rows, EDGES).repartition(4);
  }

  @Test
  void widestPathsEqualTheSerialFixpoint() {
    CsrGraph g = ProgramRelaxationTest.graph(2_000, 4, 9);
    List<Row> vs = new ArrayList<>();
    for (int v = 0; v < g.vertexCount(); v++) {
      vs.add(RowFactory.create(10L * v + 7, v == 0 ? Double.POSITIVE_INFINITY : 0.0));
    }
    Dataset<Row> vertices = session.spark().createDataFrame(vs, new StructType()
        .add("id", DataTypes.LongType).add("width", DataTypes.DoubleType)).repartition(3);
    // Widest first: the order the values rise in.
    List<Row> out = GraphRelaxation.of(edges(g)).program(GraphPrograms.WIDEST)
        .setVertices(vertices).setActive(7).setOrderDescending("width").run().orderBy("id")
        .collectAsList();
    double[] width = out.stream().mapToDouble(r -> r.getDouble(1)).toArray();
    assertThat(out.get(5).getLong(0)).isEqualTo(57L);
    assertThat(width).isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
  }

  @ParameterizedTest(name = "ordered {0}")
  @ValueSource(booleans = {false, true})
  void shortestPathsWithParentAndHopsFromColumns(boolean ordered) {
    CsrGraph g = ProgramRelaxationTest.graph(2_000, 4, 10);
    int n = g.vertexCount();
    List<Row> vs = new ArrayList<>();
    for (int v = 0; v < n; v++) {
      // Parents and hops hold dense indices here: the program copies src, a dense index.
      vs.add(RowFactory.create(10L * v + 7, v == 0 ? 0.0 : Double.POSITIVE_INFINITY, -1, 0));
    }
    Dataset<Row> vertices = session.spark().createDataFrame(vs, new StructType()
        .add("id", DataTypes.LongType).add("dist", DataTypes.DoubleType)
        .add("parent", DataTypes.IntegerType).add("hops", DataTypes.IntegerType));
    GraphProgramRelaxation relaxation = GraphRelaxation.of(edges(g)).program(GraphPrograms.PATHS)
        .setVertices(vertices).setActive(7);
    if (ordered) {
      relaxation.setOrder("dist").setBucketWidth(50);
    }
    List<Row> out = relaxation.run().orderBy("id").collectAsList();
    double[] dist = out.stream().mapToDouble(r -> r.getDouble(1)).toArray();
    int[] parent = out.stream().mapToInt(r -> r.getInt(2)).toArray();
    int[] hops = out.stream().mapToInt(r -> r.getInt(3)).toArray();
    assertThat(dist).isEqualTo(ProgramRelaxationTest.dijkstra(g, 0));
    ProgramRelaxationTest.assertConsistentTree(g, dist, parent, hops);
  }

  @Test
  void noEdgesLeaveTheValuesAsGiven() {
    Dataset<Row> none = session.spark().createDataFrame(List.of(), EDGES).where("src < 0");
    Dataset<Row> vertices = session.spark().createDataFrame(List.of(
        RowFactory.create(3L, 1.5), RowFactory.create(4L, 0.0)), new StructType()
        .add("id", DataTypes.LongType).add("width", DataTypes.DoubleType));
    List<Row> out = GraphRelaxation.of(none).program(GraphPrograms.WIDEST)
        .setVertices(vertices).run().orderBy("id").collectAsList();
    assertThat(out).containsExactly(RowFactory.create(3L, 1.5), RowFactory.create(4L, 0.0));
  }

  @Test
  void badInputIsNamed() {
    CsrGraph g = ProgramRelaxationTest.graph(20, 2, 1);
    Dataset<Row> e = edges(g);
    int missing = g.targets()[g.offsets()[0]]; // a target of the source's first edge
    List<Row> vs = new ArrayList<>();
    for (int v = 0; v < 20; v++) {
      if (v != missing) {
        vs.add(RowFactory.create(10L * v + 7, 0.0));
      }
    }
    StructType schema = new StructType().add("id", DataTypes.LongType)
        .add("width", DataTypes.DoubleType);
    Dataset<Row> vertices = session.spark().createDataFrame(vs, schema);
    String widest = GraphPrograms.WIDEST;
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest).run())
        .hasMessageContaining("setVertices");
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest).setOrder("dist"))
        .hasMessageContaining("order: column 'dist' is not a region of program 'widest': [width]");
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest).setBucketWidth(0))
        .hasMessageContaining("bucketWidth must be positive, got 0.0");
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest)
        .setVertices(vertices.withColumnRenamed("width", "w")).run())
        .hasMessageContaining("region 'width', which is not a column of the vertices");
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest)
        .setVertices(vertices.withColumn("width", vertices.col("width").cast("float"))).run())
        .hasMessageContaining("column 'width' holds float");
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest).setVertices(vertices)
        .run()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names vertex " + (10L * missing + 7) + ", which is not among");
    assertThatThrownBy(() -> GraphRelaxation.of(e).program(widest)
        .setVertices(vertices.union(vertices)).run()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("appears more than once");
    long present = 10L * (missing == 1 ? 2 : 1) + 7;
    Dataset<Row> nullWeight = session.spark().createDataFrame(List.of(
        RowFactory.create(7L, present, null)), EDGES);
    assertThatThrownBy(() -> GraphRelaxation.of(nullWeight).program(widest)
        .setVertices(vertices).run()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("edge 7 -> " + present + " has a null weight");
  }
}
