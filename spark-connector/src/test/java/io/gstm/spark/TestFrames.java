package io.gstm.spark;

import io.gstm.core.graph.EdgeList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The tests' small inputs as DataFrames of a given number of partitions, split in input order
 * into contiguous runs of rows ({@code parallelize} slices a list so). The tools' generators
 * ({@code io.gstm.spark.data.DataFrames} in spark-tools) do the same for large data through a
 * broadcast; the connector's tests cannot depend on them.
 */
public final class TestFrames {
  private TestFrames() {}

  /** Edges (src: int, dst: int[, weight: double]) in {@code partitions} partitions. */
  public static Dataset<Row> edges(SparkSession spark, EdgeList g, int partitions) {
    boolean weighted = g.weights() != null;
    List<Row> rows = new ArrayList<>(g.src().length);
    for (int i = 0; i < g.src().length; i++) {
      rows.add(weighted ? RowFactory.create(g.src()[i], g.dst()[i], g.weights()[i])
          : RowFactory.create(g.src()[i], g.dst()[i]));
    }
    StructType schema = new StructType().add("src", DataTypes.IntegerType, false)
        .add("dst", DataTypes.IntegerType, false);
    return frame(spark, rows, weighted ? schema.add("weight", DataTypes.DoubleType, false)
        : schema, partitions);
  }

  /** Row-major points as an ml Vector column "features" in {@code partitions} partitions. */
  public static Dataset<Row> points(SparkSession spark, double[] points, int dims,
      int partitions) {
    List<Row> rows = new ArrayList<>(points.length / dims);
    for (int i = 0; i + dims <= points.length; i += dims) {
      rows.add(RowFactory.create(Vectors.dense(Arrays.copyOfRange(points, i, i + dims))));
    }
    return frame(spark, rows,
        new StructType().add("features", SQLDataTypes.VectorType(), false), partitions);
  }

  private static Dataset<Row> frame(SparkSession spark, List<Row> rows, StructType schema,
      int partitions) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    return spark.createDataFrame(jsc.parallelize(rows, partitions), schema);
  }
}
