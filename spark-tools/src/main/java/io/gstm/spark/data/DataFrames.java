package io.gstm.spark.data;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.kmeans.KMeansData;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The Spark side of the generators: seeded data made on the driver by core's generators (the same
 * arguments give the same data everywhere), shipped to the executors in one slice per partition
 * through a broadcast: a task carries only its partition index, not its slice (a parallelized
 * collection's partition holds its data, and every task over the DataFrame, cached or not, would
 * serialize it again: 32 MB per task for 2^22 edges in 2 partitions).
 */
public final class DataFrames {
  private DataFrames() {}

  /** Edges (src: int, dst: int[, weight: double]) of a Graph500 R-MAT graph. */
  public static Dataset<Row> rmat(SparkSession spark, int scale, int edgeCount, long seed,
      boolean weighted, int partitions) {
    return edges(spark, RmatGenerator.generate(scale, edgeCount, seed, weighted), partitions);
  }

  /** An edge list as a DataFrame of {@code partitions} partitions. */
  public static Dataset<Row> edges(SparkSession spark, EdgeList g, int partitions) {
    boolean weighted = g.weights() != null;
    List<Slice> slices = new ArrayList<>();
    int m = g.src().length;
    for (int p = 0; p < partitions; p++) {
      int from = (int) ((long) m * p / partitions);
      int to = (int) ((long) m * (p + 1) / partitions);
      slices.add(new Slice(Arrays.copyOfRange(g.src(), from, to),
          Arrays.copyOfRange(g.dst(), from, to),
          weighted ? Arrays.copyOfRange(g.weights(), from, to) : null, 0));
    }
    JavaRDD<Row> rows = sliced(spark, slices).flatMap(s -> {
          List<Row> out = new ArrayList<>(s.a().length);
          for (int i = 0; i < s.a().length; i++) {
            out.add(weighted ? RowFactory.create(s.a()[i], s.b()[i], s.w()[i])
                : RowFactory.create(s.a()[i], s.b()[i]));
          }
          return out.iterator();
        });
    StructType schema = new StructType().add("src", DataTypes.IntegerType, false)
        .add("dst", DataTypes.IntegerType, false);
    if (weighted) {
      schema = schema.add("weight", DataTypes.DoubleType, false);
    }
    return spark.createDataFrame(rows, schema);
  }

  /** {@code n} points in {@code k} Gaussian blobs (core's KMeansData), column "features". */
  public static Dataset<Row> blobs(SparkSession spark, int n, int dims, int k, long seed,
      int partitions) {
    return points(spark, KMeansData.blobs(n, dims, k, seed), dims, partitions);
  }

  /** Row-major points as a DataFrame with an ml Vector column "features". */
  public static Dataset<Row> points(SparkSession spark, double[] points, int dims,
      int partitions) {
    int n = points.length / dims;
    List<Slice> slices = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      int from = (int) ((long) n * p / partitions);
      int to = (int) ((long) n * (p + 1) / partitions);
      slices.add(new Slice(null, null, Arrays.copyOfRange(points, from * dims, to * dims), dims));
    }
    JavaRDD<Row> rows = sliced(spark, slices).flatMap(s -> {
          int d = s.dims();
          List<Row> out = new ArrayList<>(s.w().length / d);
          for (int i = 0; i < s.w().length; i += d) {
            out.add(RowFactory.create(Vectors.dense(Arrays.copyOfRange(s.w(), i, i + d))));
          }
          return out.iterator();
        });
    return spark.createDataFrame(rows,
        new StructType().add("features", SQLDataTypes.VectorType(), false));
  }

  /** One partition per slice; a task reads its slice from a broadcast of them all. */
  private static JavaRDD<Slice> sliced(SparkSession spark, List<Slice> slices) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<List<Slice>> all = jsc.broadcast(slices);
    List<Integer> index = new ArrayList<>();
    for (int i = 0; i < slices.size(); i++) {
      index.add(i);
    }
    return jsc.parallelize(index, slices.size()).map(i -> all.value().get(i));
  }

  /** One partition's share of the data. */
  record Slice(int[] a, int[] b, double[] w, int dims) implements Serializable {}
}
