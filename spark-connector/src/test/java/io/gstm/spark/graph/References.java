package io.gstm.spark.graph;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Sequential references for the tests: Dijkstra and union-find ({@link RelaxationVerifier}) on
 * plain edge arrays, a result's values by vertex id to compare them with, and a path whose ids
 * have no locality.
 */
final class References {
  private References() {}

  /**
   * A path through all {@code n} vertices in the order {@code 0, 7919, 2 * 7919, ...} (mod
   * {@code n}; {@code n} not a multiple of 7919): ids without locality. Edge {@code i} weighs
   * {@code 1 + i % weightCycle}; the edges are shuffled by {@code seed}. It starts at vertex 0.
   */
  static EdgeList scrambledPath(int n, int weightCycle, long seed) {
    int[] src = new int[n - 1];
    int[] dst = new int[n - 1];
    double[] w = new double[n - 1];
    for (int i = 0; i + 1 < n; i++) {
      src[i] = (int) ((i * 7919L) % n);
      dst[i] = (int) (((i + 1) * 7919L) % n);
      w[i] = 1 + i % weightCycle;
    }
    return GridGenerator.shuffled(new EdgeList(n, src, dst, w), seed);
  }

  /** Values by vertex id; ids absent from the result stay NaN. */
  static double[] dense(Dataset<Row> values, int n) {
    double[] out = new double[n];
    Arrays.fill(out, Double.NaN);
    for (Row r : values.collectAsList()) {
      out[(int) r.getLong(0)] = r.getDouble(1);
    }
    return out;
  }

  /** Distances from {@code source} over directed edges (weights null: all 1). */
  static double[] dijkstra(int n, int[] src, int[] dst, double[] w, int source) {
    return RelaxationVerifier.dijkstra(CsrGraph.fromEdges(n, src, dst, w),
        RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, n, source));
  }

  /** Smallest vertex id of each vertex's (undirected) component. */
  static double[] components(int n, int[] src, int[] dst) {
    return RelaxationVerifier.components(CsrGraph.fromEdges(n, src, dst, null),
        RelaxationVerifier.initialValues(RelaxationKind.CONNECTED_COMPONENTS, n));
  }

  /** The reference of {@code kind}: distances from {@code source}, or components. */
  static double[] expected(RelaxationKind kind, int n, int[] src, int[] dst, double[] w,
      int source) {
    return kind == RelaxationKind.SHORTEST_PATHS
        ? dijkstra(n, src, dst, w, source) : components(n, src, dst);
  }

  /** A DataFrame of the vertex ids {@code from .. to - 1} in column "id" (for setVertices). */
  static Dataset<Row> vertexIds(SparkSession spark, int from, int to) {
    List<Row> rows = new ArrayList<>();
    for (long v = from; v < to; v++) {
      rows.add(RowFactory.create(v));
    }
    return spark.createDataFrame(rows, new StructType().add("id", DataTypes.LongType));
  }
}
