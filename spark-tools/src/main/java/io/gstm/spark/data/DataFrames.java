package io.gstm.spark.data;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.kmeans.KMeansData;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
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
    return spark.createDataFrame(rows, edgeSchema(weighted));
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

  /**
   * The R-MAT graph of {@link RmatGenerator#chunk} (src, dst[, weight]), drawn by the tasks of
   * {@code partitions} partitions, each a run of whole chunks; nothing is drawn on the driver.
   */
  public static Dataset<Row> rmatChunks(SparkSession spark, int scale, long edgeCount, long seed,
      boolean weighted, int partitions) {
    int chunks = RmatGenerator.chunks(edgeCount);
    JavaRDD<Row> rows = chunkRanges(spark, chunks, partitions).flatMap(range -> {
      int[] perm = RmatGenerator.permutation(scale, seed);
      return flatten(range, c -> {
        EdgeList g = RmatGenerator.chunk(scale, edgeCount, c, seed, weighted, perm);
        List<Row> out = new ArrayList<>(g.edgeCount());
        for (int i = 0; i < g.edgeCount(); i++) {
          out.add(weighted ? RowFactory.create(g.src()[i], g.dst()[i], g.weights()[i])
              : RowFactory.create(g.src()[i], g.dst()[i]));
        }
        return out;
      });
    });
    return spark.createDataFrame(rows, edgeSchema(weighted));
  }

  /**
   * The points of {@link KMeansData#blobsChunk}, drawn by the tasks of {@code partitions}
   * partitions, each a run of whole chunks: an ml Vector column "features", or with {@code
   * columns} one double column per dimension, "x0", "x1", ...
   */
  public static Dataset<Row> blobChunks(SparkSession spark, long n, int dims, int k, long seed,
      int partitions, boolean columns) {
    JavaRDD<Row> rows = chunkRanges(spark, KMeansData.chunks(n), partitions).flatMap(range ->
        flatten(range, c -> {
          double[] p = KMeansData.blobsChunk(n, dims, k, seed, c);
          List<Row> out = new ArrayList<>(p.length / dims);
          for (int i = 0; i < p.length; i += dims) {
            double[] x = Arrays.copyOfRange(p, i, i + dims);
            out.add(columns ? RowFactory.create(Arrays.stream(x).boxed().toArray())
                : RowFactory.create(Vectors.dense(x)));
          }
          return out;
        }));
    StructType schema = new StructType();
    if (columns) {
      for (int d = 0; d < dims; d++) {
        schema = schema.add("x" + d, DataTypes.DoubleType, false);
      }
    } else {
      schema = schema.add("features", SQLDataTypes.VectorType(), false);
    }
    return spark.createDataFrame(rows, schema);
  }

  /** Partition i's chunks {@code [from, to)}: {@code chunks} split as evenly as they go. */
  private static JavaRDD<int[]> chunkRanges(SparkSession spark, int chunks, int partitions) {
    List<int[]> ranges = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      ranges.add(new int[] {(int) ((long) chunks * p / partitions),
          (int) ((long) chunks * (p + 1) / partitions)});
    }
    return JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(ranges,
        partitions);
  }

  /** The rows of chunks {@code range[0] .. range[1] - 1}, one chunk in memory at a time. */
  private static Iterator<Row> flatten(int[] range, IntFunction<List<Row>> chunk) {
    return IntStream.range(range[0], range[1]).boxed()
        .flatMap(c -> chunk.apply(c).stream()).iterator();
  }

  private static StructType edgeSchema(boolean weighted) {
    StructType schema = new StructType().add("src", DataTypes.IntegerType, false)
        .add("dst", DataTypes.IntegerType, false);
    return weighted ? schema.add("weight", DataTypes.DoubleType, false) : schema;
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
