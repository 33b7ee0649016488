package io.gstm.spark.bench;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.cli.SparkOptions;
import io.gstm.spark.data.DataFrames;
import io.gstm.spark.graph.GraphRelaxation;
import io.gstm.spark.graph.RelaxationResult;
import io.gstm.spark.ml.TxKMeans;
import io.gstm.spark.ml.TxKMeansModel;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.graphx.Edge;
import org.apache.spark.graphx.Graph;
import org.apache.spark.mllib.clustering.KMeans;
import org.apache.spark.mllib.clustering.KMeansModel;
import org.apache.spark.mllib.linalg.Vector;
import org.apache.spark.mllib.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The Spark benchmark (not a test): gstm's subgraph-centric relaxation against GraphX (Pregel
 * SSSP, connectedComponents) on the same R-MAT graph and partition count, and TxKMeans against
 * MLlib KMeans from the same initial centroids; checks that the results are equal and prints the
 * times and ratios as a Markdown table.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "gstm vs GraphX (SSSP, components) and vs MLlib KMeans, in Spark local mode.")
public final class SparkBenchmark implements Callable<Integer> {
  @Mixin
  SparkOptions spark = new SparkOptions();

  @Option(names = "--scale", description = "log2 of the vertex count (default: ${DEFAULT-VALUE})")
  int scale = 18;

  @Option(names = "--edges", description = "edges (default: ${DEFAULT-VALUE})")
  int edges = 1 << 22;

  @Option(names = "--points", description = "k-means points (default: ${DEFAULT-VALUE})")
  int points = 1_000_000;

  @Option(names = "--k", description = "clusters (default: ${DEFAULT-VALUE})")
  int k = 16;

  @Option(names = "--dims", description = "point dimensions (default: ${DEFAULT-VALUE})")
  int dims = 2;

  @Option(names = "--iterations", description = "k-means iterations (default: ${DEFAULT-VALUE})")
  int iterations = 20;

  @Option(names = "--seed", description = "seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Option(names = "--only", description = "sssp, cc, kmeans (default: all)", split = ",")
  List<String> only = List.of("sssp", "cc", "kmeans");

  @Option(names = "--no-baselines", description = "time gstm only (no GraphX, no MLlib)")
  boolean noBaselines;

  private boolean allEqual = true;

  @Override
  public Integer call() {
    SparkSession session = spark.session("gstm-bench");
    try {
      System.out.printf(Locale.ROOT, "Spark %s, %s, %d partitions, %d cores, Java %s%n",
          session.version(), spark.master, spark.partitions,
          Runtime.getRuntime().availableProcessors(), Runtime.version());
      System.out.println(
          "| workload | gstm (s) | baseline (s) | speed-up | equal | gstm details |");
      System.out.println("| --- | --- | --- | --- | --- | --- |");
      if (only.contains("sssp") || only.contains("cc")) {
        warmUp(session);
        graphs(session);
      }
      if (only.contains("kmeans")) {
        kmeans(session);
      }
      return allEqual ? 0 : 1;
    } finally {
      session.stop();
    }
  }

  private void graphs(SparkSession session) {
    EdgeList g = RmatGenerator.generate(scale, edges, seed, true);
    int n = g.vertexCount();
    Dataset<Row> df = DataFrames.edges(session, g, spark.partitions)
        .persist(StorageLevel.MEMORY_AND_DISK());
    df.count();
    long source = g.src()[0];
    String shape = String.format(Locale.ROOT, "R-MAT 2^%d vertices, %d edges", scale, edges);
    if (only.contains("sssp")) {
      long t0 = System.nanoTime();
      RelaxationResult r = GraphRelaxation.of(df).setPartitions(spark.partitions)
          .shortestPaths(source).run();
      double[] ours = dense(r.values(), n);
      double tg = (System.nanoTime() - t0) / 1e9;
      if (noBaselines) {
        row("weighted SSSP, " + shape, tg, Double.NaN, true, r.report().toString());
      } else {
        t0 = System.nanoTime();
        Graph<Double, Double> graph = GraphXBaselines.graph(edgeRdd(df));
        double[] theirs = GraphXBaselines.pregelShortestPaths(graph, source, n);
        double tb = (System.nanoTime() - t0) / 1e9;
        graph.unpersist(false);
        row("weighted SSSP, " + shape + ", vs GraphX Pregel", tg, tb, Arrays.equals(ours, theirs),
            r.report().supersteps() + " supersteps, " + r.report().engines());
      }
    }
    if (only.contains("cc")) {
      long t0 = System.nanoTime();
      RelaxationResult r = GraphRelaxation.of(df).setPartitions(spark.partitions)
          .connectedComponents().run();
      double[] ours = dense(r.values(), n);
      double tg = (System.nanoTime() - t0) / 1e9;
      if (noBaselines) {
        row("components, " + shape, tg, Double.NaN, true, r.report().toString());
      } else {
        t0 = System.nanoTime();
        Graph<Double, Double> graph = GraphXBaselines.graph(edgeRdd(df));
        double[] theirs = GraphXBaselines.connectedComponents(graph, n);
        double tb = (System.nanoTime() - t0) / 1e9;
        graph.unpersist(false);
        row("components, " + shape + ", vs GraphX connectedComponents", tg, tb,
            Arrays.equals(ours, theirs),
            r.report().supersteps() + " supersteps, " + r.report().engines());
      }
    }
    df.unpersist(false);
  }

  /**
   * The edges DataFrame as GraphX edges. Both sides start from the same cached DataFrame, so the
   * baselines' times include this conversion as gstm's include reading the DataFrame.
   */
  private static JavaRDD<Edge<Double>> edgeRdd(Dataset<Row> df) {
    return df.javaRDD()
        .map(r -> new Edge<>((long) r.getInt(0), (long) r.getInt(1), r.getDouble(2)));
  }

  /** Runs both systems once on a small graph, so that neither pays the JIT's warm-up alone. */
  private void warmUp(SparkSession session) {
    EdgeList g = RmatGenerator.generate(12, 1 << 16, seed + 1, true);
    Dataset<Row> df = DataFrames.edges(session, g, spark.partitions).cache();
    GraphRelaxation.of(df).setPartitions(spark.partitions).shortestPaths(g.src()[0]).run()
        .values().count();
    GraphRelaxation.of(df).setPartitions(spark.partitions).connectedComponents().run()
        .values().count();
    if (!noBaselines) {
      JavaRDD<Edge<Double>> ge = df.javaRDD()
          .map(r -> new Edge<>((long) r.getInt(0), (long) r.getInt(1), r.getDouble(2)));
      Graph<Double, Double> graph = GraphXBaselines.graph(ge);
      GraphXBaselines.pregelShortestPaths(graph, g.src()[0], g.vertexCount());
      GraphXBaselines.connectedComponents(graph, g.vertexCount());
      graph.unpersist(false);
    }
    df.unpersist(false);
  }

  /** Values indexed by vertex id; +infinity for ids absent from the result. */
  private static double[] dense(Dataset<Row> values, int n) {
    double[] out = new double[n];
    Arrays.fill(out, Double.POSITIVE_INFINITY);
    for (Row row : values.collectAsList()) {
      out[(int) row.getLong(0)] = row.getDouble(1);
    }
    return out;
  }

  private void kmeans(SparkSession session) {
    double[] data = KMeansData.blobs(points, dims, k, seed);
    double[][] init = firstPointsAsCentroids(data);
    Vector[] initVectors = vectors(init);
    Dataset<Row> df = DataFrames.points(session, data, dims, spark.partitions)
        .persist(StorageLevel.MEMORY_AND_DISK());
    df.count();
    warmUpKMeans(session);
    long t0 = System.nanoTime();
    TxKMeansModel ours = new TxKMeans().setK(k).setMaxIter(iterations).setTol(0)
        .setInitialCentroids(init).fit(df);
    double tg = (System.nanoTime() - t0) / 1e9;
    if (noBaselines) {
      row("k-means", tg, Double.NaN, true, ours.report().toString());
      return;
    }
    t0 = System.nanoTime();
    // As ml.KMeans.fit does: convert the DataFrame and cache the vectors (timed, as TxKMeans
    // reads the same DataFrame inside its fit).
    JavaRDD<Vector> rdd = df.javaRDD()
        .map(r -> Vectors.fromML((org.apache.spark.ml.linalg.Vector) r.get(0)))
        .persist(StorageLevel.MEMORY_AND_DISK());
    KMeansModel theirs = new KMeans().setK(k).setMaxIterations(iterations).setEpsilon(0)
        .setInitialModel(new KMeansModel(initVectors)).run(rdd.rdd());
    double tb = (System.nanoTime() - t0) / 1e9;
    double maxRel = 0;
    for (int j = 0; j < k; j++) {
      double[] a = ours.clusterCenters()[j].toArray();
      double[] b = theirs.clusterCenters()[j].toArray();
      for (int d = 0; d < dims; d++) {
        maxRel = Math.max(maxRel, Math.abs(a[d] - b[d]) / Math.max(1e-12, Math.abs(b[d])));
      }
    }
    double costOurs = ours.computeCost(df);
    double costTheirs = theirs.computeCost(rdd.rdd());
    boolean equal = maxRel <= 1e-6 && Math.abs(costOurs - costTheirs) <= 1e-6 * costTheirs;
    row(String.format(Locale.ROOT, "k-means, %d %d-D points, k = %d, %d iterations, vs MLlib",
            points, dims, k, iterations), tg, tb, equal,
        String.format(Locale.ROOT, "max centroid rel. diff %.1e, cost %.6g vs %.6g, %s", maxRel,
            costOurs, costTheirs, ours.report().engines()));
    rdd.unpersist(false);
    df.unpersist(false);
  }

  /**
   * Runs both k-means implementations once on a small data set (50k points, 5 iterations, the
   * same path as the timed runs), so that neither pays the JIT's warm-up alone.
   */
  private void warmUpKMeans(SparkSession session) {
    int n = Math.min(points, 50_000);
    double[] data = KMeansData.blobs(n, dims, k, seed + 1);
    double[][] init = firstPointsAsCentroids(data);
    Vector[] initVectors = vectors(init);
    Dataset<Row> df = DataFrames.points(session, data, dims, spark.partitions)
        .persist(StorageLevel.MEMORY_AND_DISK());
    df.count();
    new TxKMeans().setK(k).setMaxIter(5).setTol(0).setInitialCentroids(init).fit(df);
    if (!noBaselines) {
      JavaRDD<Vector> rdd = df.javaRDD()
          .map(r -> Vectors.fromML((org.apache.spark.ml.linalg.Vector) r.get(0)))
          .persist(StorageLevel.MEMORY_AND_DISK());
      new KMeans().setK(k).setMaxIterations(5).setEpsilon(0)
          .setInitialModel(new KMeansModel(initVectors)).run(rdd.rdd());
      rdd.unpersist(false);
    }
    df.unpersist(false);
  }

  /** The first k points of {@code data}: the initial centroids both implementations start from. */
  private double[][] firstPointsAsCentroids(double[] data) {
    double[] first = KMeansData.firstPoints(data, dims, k);
    double[][] init = new double[k][];
    for (int j = 0; j < k; j++) {
      init[j] = Arrays.copyOfRange(first, j * dims, (j + 1) * dims);
    }
    return init;
  }

  private static Vector[] vectors(double[][] rows) {
    return Arrays.stream(rows).map(Vectors::dense).toArray(Vector[]::new);
  }

  private void row(String what, double gstm, double base, boolean equal, String details) {
    allEqual &= equal;
    System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %.1fx | %s | %s |%n", what, gstm, base,
        base / gstm, equal ? "yes" : "NO", details);
  }
}
