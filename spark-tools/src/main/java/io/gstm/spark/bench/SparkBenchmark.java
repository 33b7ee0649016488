package io.gstm.spark.bench;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.cli.SparkOptions;
import io.gstm.spark.data.DataFrames;
import io.gstm.spark.graph.GraphRelaxation;
import io.gstm.spark.graph.RelaxationReport;
import io.gstm.spark.graph.RelaxationResult;
import io.gstm.spark.ml.TxKMeans;
import io.gstm.spark.ml.TxKMeansModel;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.graphx.Graph;
import org.apache.spark.ml.feature.VectorAssembler;
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
 * SSSP, connectedComponents) on the same R-MAT graph (or shuffled weighted grid) and partition
 * count, GraphX optionally cut at a time limit (then reported as at least that, and gstm's
 * values checked against a sequential Dijkstra / union-find instead), and TxKMeans against
 * MLlib KMeans from the same initial centroids; checks that the results are equal and prints the
 * times and ratios as a Markdown table.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "gstm vs GraphX (SSSP, components) and vs MLlib KMeans, in Spark local mode.")
public final class SparkBenchmark implements Callable<Integer> {
  @Mixin
  SparkOptions spark = new SparkOptions();

  @Option(names = "--graph", description = "rmat, or grid: a square weighted grid of 2^scale "
      + "cells (row-major ids), its edges shuffled before they are split into partitions "
      + "(default: ${DEFAULT-VALUE})")
  String graph = "rmat";

  @Option(names = "--scale", description = "log2 of the vertex count (default: ${DEFAULT-VALUE})")
  int scale = 18;

  @Option(names = "--edges", description = "R-MAT edges (default: ${DEFAULT-VALUE})")
  int edges = 1 << 22;

  @Option(names = "--baseline-limit", description = "seconds after which a GraphX run is "
      + "cancelled and reported as at least that (default: ${DEFAULT-VALUE}, no limit)")
  double baselineLimit = 0;

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

  @Option(names = "--input", description = "a Parquet directory to read instead of generating "
      + "(as `gen` writes them): edges (src, dst[, weight]) for sssp and cc, or points for "
      + "kmeans (a vector column features, or numeric columns, one per dimension); every run "
      + "reads it, nothing is cached")
  String input;

  @Option(names = "--only", description = "sssp, cc, kmeans (default: all)", split = ",")
  List<String> only = List.of("sssp", "cc", "kmeans");

  @Option(names = "--no-baselines", description = "time gstm only (no GraphX, no MLlib)")
  boolean noBaselines;

  @Option(names = "--reps", description = "timed runs of each side, alternating; the table shows "
      + "the median and every run's time (default: ${DEFAULT-VALUE})")
  int reps = 5;

  @Option(names = "--warmups", description = "untimed runs of each side on the same data before "
      + "the timed ones, so that neither pays the JIT's and the heap's warm-up in its times "
      + "(default: ${DEFAULT-VALUE})")
  int warmups = 3;

  @Option(names = "--baseline-warmups", description = "untimed runs of the baselines (GraphX, "
      + "MLlib) before their timed ones, for baselines that run minutes and warm up within "
      + "their first run (default: as --warmups)")
  Integer baselineWarmups;

  private boolean allEqual = true;

  /** Whether iteration {@code i} (negative: a warm-up) runs the baseline too. */
  private boolean baselineRuns(int i) {
    return !noBaselines && i >= -(baselineWarmups == null ? warmups : baselineWarmups);
  }

  @Override
  public Integer call() {
    if (reps < 1) {
      throw new IllegalArgumentException("--reps must be at least 1, got " + reps);
    }
    if (warmups < 0) {
      throw new IllegalArgumentException("--warmups must be at least 0, got " + warmups);
    }
    if (baselineWarmups != null && (baselineWarmups < 0 || baselineWarmups > warmups)) {
      throw new IllegalArgumentException("--baseline-warmups must be between 0 and --warmups ("
          + warmups + "), got " + baselineWarmups);
    }
    SparkSession session = spark.session("gstm-bench");
    try {
      System.out.printf(Locale.ROOT, "Spark %s, %s, %d partitions, %d cores, Java %s%n",
          session.version(), spark.master, spark.partitions,
          Runtime.getRuntime().availableProcessors(), Runtime.version());
      System.out.println(
          "| workload | gstm (s) | baseline (s) | speed-up | equal | gstm details |");
      System.out.println("| --- | --- | --- | --- | --- | --- |");
      // An input holds edges or points: only the workloads of its kind run.
      boolean points = input != null
          && !Arrays.asList(session.read().parquet(input).columns()).contains("src");
      if ((only.contains("sssp") || only.contains("cc")) && !points) {
        warmUp(session);
        graphs(session);
      }
      if (only.contains("kmeans") && (input == null || points)) {
        kmeans(session);
      }
      return allEqual ? 0 : 1;
    } finally {
      SparkOptions.stop(session);
    }
  }

  private void graphs(SparkSession session) {
    boolean grid = switch (graph) {
      case "rmat" -> false;
      case "grid" -> true;
      default -> throw new IllegalArgumentException("--graph: expected rmat or grid, got '"
          + graph + "'");
    };
    EdgeList g;
    Dataset<Row> df;
    int n;
    long source;
    String shape;
    if (input != null) {
      g = null;
      df = session.read().parquet(input);
      Row r = df.agg(max(greatest(col("src"), col("dst"))), count(lit(1))).first();
      n = r.isNullAt(0) ? 0 : r.getInt(0) + 1;
      source = n == 0 ? 0 : df.select("src").first().getInt(0);
      shape = String.format(Locale.ROOT, "Parquet %s (%d vertex ids, %,d edges)", input, n,
          r.getLong(1));
    } else {
      g = grid ? GridGenerator.shuffled(GridGenerator.square(1 << scale, seed), seed + 1)
          : RmatGenerator.generate(scale, edges, seed, true);
      n = g.vertexCount();
      df = DataFrames.edges(session, g, spark.partitions).persist(StorageLevel.MEMORY_AND_DISK());
      df.count();
      // On a grid the corner, a diameter away from the farthest cells.
      source = grid ? 0 : g.src()[0];
      shape = grid
          ? String.format(Locale.ROOT, "grid of %d cells, %d edges, shuffled", n, g.edgeCount())
          : String.format(Locale.ROOT, "R-MAT 2^%d vertices, %d edges", scale, edges);
    }
    int vertices = n;
    if (only.contains("sssp")) {
      relaxation(df, g, n, RelaxationKind.SHORTEST_PATHS, (int) source, "weighted SSSP, " + shape,
          "GraphX Pregel",
          () -> GraphRelaxation.of(df).shortestPaths(source),
          graph -> GraphXBaselines.pregelShortestPaths(graph, source, vertices));
    }
    if (only.contains("cc")) {
      relaxation(df, g, n, RelaxationKind.CONNECTED_COMPONENTS, 0, "components, " + shape,
          "GraphX connectedComponents",
          () -> GraphRelaxation.of(df).connectedComponents(),
          graph -> GraphXBaselines.connectedComponents(graph, vertices));
    }
    df.unpersist(false);
  }

  /**
   * Times {@code reps} runs of gstm's relaxation and of the GraphX baseline, alternating, and
   * compares every run's values with the baseline's; a baseline cut at {@code --baseline-limit}
   * counts as that long, and gstm's values are then compared with the sequential reference (not
   * compared when the graph was read from {@code --input}: {@code g} null).
   */
  private void relaxation(Dataset<Row> df, EdgeList g, int n, RelaxationKind kind, int source,
      String what, String baseline, Supplier<GraphRelaxation> ours,
      Function<Graph<Double, Double>, double[]> theirs) {
    double[] tg = new double[reps];
    double[] tb = new double[reps];
    boolean equal = true;
    boolean cut = false;
    double[] reference = null;
    RelaxationResult r = null;
    double[] values = null;
    for (int i = -warmups; i < reps; i++) {
      long t0 = System.nanoTime();
      r = ours.get().run();
      values = r.collectById(n); // as GraphX's side: every value on the driver
      if (i >= 0) {
        tg[i] = (System.nanoTime() - t0) / 1e9;
      }
      if (baselineRuns(i)) {
        t0 = System.nanoTime();
        Graph<Double, Double> graph = GraphXBaselines.graph(df);
        double[] expected = GraphXBaselines.within(df.sparkSession().sparkContext(),
            baselineLimit, () -> theirs.apply(graph));
        if (i >= 0) {
          tb[i] = expected == null ? baselineLimit : (System.nanoTime() - t0) / 1e9;
        }
        graph.unpersist(false);
        if (expected == null) {
          cut = true;
          if (g == null) {
            continue; // nothing to compare with: see the checksum
          }
          if (reference == null) {
            reference = reference(g, kind, source);
          }
          expected = reference;
        }
        equal &= Arrays.equals(values, expected);
      }
    }
    RelaxationReport rep = r.report();
    String details = rep.partitions() + " subgraph(s) ("
        + rep.placement().subgraphs().split(" ")[0] + "), " + rep.supersteps() + " supersteps, "
        + String.format(Locale.ROOT, "%.2f edge relaxations per edge, edges by %s, %d replicas, ",
            (double) rep.progress().edgeRelaxations() / Math.max(1, rep.edges()),
            rep.placement().partitioning(), rep.placement().replicas())
        + rep.engines() + ", " + checksum(values);
    // Not compared: no baseline, or one cut short with no reference for a graph read as input.
    Boolean compared = noBaselines || (g == null && cut) ? null : equal;
    row(noBaselines ? what : what + ", vs " + baseline, tg, noBaselines ? null : tb, cut,
        compared, noBaselines ? r.report() + ", " + checksum(values) : details);
  }

  /**
   * What two runs on the same graph must agree on (a run on one executor and one on two, say):
   * the vertices reached, the sum of the finite values (exact: integer weights and ids) and a
   * hash of every value by id.
   */
  static String checksum(double[] values) {
    long reached = 0;
    double sum = 0;
    for (double v : values) {
      if (v < Double.POSITIVE_INFINITY) {
        reached++;
        sum += v;
      }
    }
    return String.format(Locale.ROOT, "%d finite values, sum %.1f, hash %08x", reached, sum,
        Arrays.hashCode(values));
  }

  /**
   * The sequential reference (Dijkstra or union-find) by vertex id, +infinity for ids in no
   * edge (as {@link #dense} leaves them).
   */
  private static double[] reference(EdgeList g, RelaxationKind kind, int source) {
    io.gstm.core.graph.CsrGraph csr = g.toCsr();
    if (kind == RelaxationKind.CONNECTED_COMPONENTS) {
      csr = csr.undirected();
    }
    double[] init = RelaxationVerifier.initialValues(kind, g.vertexCount(), source);
    double[] out = RelaxationVerifier.expected(csr, kind, init);
    boolean[] present = new boolean[g.vertexCount()];
    present[source] = kind == RelaxationKind.SHORTEST_PATHS;
    for (int e = 0; e < g.edgeCount(); e++) {
      present[g.src()[e]] = true;
      present[g.dst()[e]] = true;
    }
    for (int v = 0; v < out.length; v++) {
      if (!present[v]) {
        out[v] = Double.POSITIVE_INFINITY;
      }
    }
    return out;
  }

  /** Runs both systems once on a small graph, so that neither pays the JIT's warm-up alone. */
  private void warmUp(SparkSession session) {
    EdgeList g = RmatGenerator.generate(12, 1 << 16, seed + 1, true);
    Dataset<Row> df = DataFrames.edges(session, g, spark.partitions).cache();
    GraphRelaxation.of(df).shortestPaths(g.src()[0]).run()
        .values().count();
    GraphRelaxation.of(df).connectedComponents().run()
        .values().count();
    if (!noBaselines) {
      Graph<Double, Double> graph = GraphXBaselines.graph(df);
      GraphXBaselines.pregelShortestPaths(graph, g.src()[0], g.vertexCount());
      GraphXBaselines.connectedComponents(graph, g.vertexCount());
      graph.unpersist(false);
    }
    df.unpersist(false);
  }

  private void kmeans(SparkSession session) {
    Dataset<Row> df;
    double[][] init;
    long n;
    int d;
    String[] columns = null; // the points' numeric columns, or null: a vector column
    if (input != null) {
      df = session.read().parquet(input);
      if (!Arrays.asList(df.columns()).contains("features")) {
        columns = df.columns();
      }
      // The first k points of the first file, the same in every run over these files.
      String[] cols = columns;
      init = df.limit(k).collectAsList().stream()
          .map(r -> cols == null ? ((org.apache.spark.ml.linalg.Vector) r.get(0)).toArray()
              : java.util.stream.IntStream.range(0, cols.length)
                  .mapToDouble(c -> ((Number) r.get(c)).doubleValue()).toArray())
          .toArray(double[][]::new);
      n = df.count();
      d = init.length == 0 ? dims : init[0].length;
    } else {
      double[] data = KMeansData.blobs(points, dims, k, seed);
      init = firstPointsAsCentroids(data, dims);
      df = DataFrames.points(session, data, dims, spark.partitions)
          .persist(StorageLevel.MEMORY_AND_DISK());
      n = df.count();
      d = dims;
    }
    Vector[] initVectors = vectors(init);
    warmUpKMeans(session, d);
    double[] tg = new double[reps];
    double[] tb = new double[reps];
    boolean equal = true;
    String details = "";
    for (int i = -warmups; i < reps; i++) {
      long t0 = System.nanoTime();
      TxKMeans fit = new TxKMeans().setK(k).setMaxIter(iterations).setTol(0)
          .setInitialCentroids(init);
      TxKMeansModel ours = (columns == null ? fit : fit.setFeaturesCols(columns)).fit(df);
      if (i >= 0) {
        tg[i] = (System.nanoTime() - t0) / 1e9;
      }
      details = ours.report().toString();
      if (!baselineRuns(i)) {
        continue;
      }
      t0 = System.nanoTime();
      // As ml.KMeans.fit does: convert the DataFrame and cache the vectors (timed, as TxKMeans
      // reads the same DataFrame inside its fit); numeric columns first go through a
      // VectorAssembler, as an MLlib user's would.
      Dataset<Row> vectors = columns == null ? df : new VectorAssembler().setInputCols(columns)
          .setOutputCol("features").transform(df).select("features");
      JavaRDD<Vector> rdd = vectors.javaRDD()
          .map(r -> Vectors.fromML((org.apache.spark.ml.linalg.Vector) r.get(0)))
          .persist(StorageLevel.MEMORY_AND_DISK());
      KMeansModel theirs = new KMeans().setK(k).setMaxIterations(iterations).setEpsilon(0)
          .setInitialModel(new KMeansModel(initVectors)).run(rdd.rdd());
      if (i >= 0) {
        tb[i] = (System.nanoTime() - t0) / 1e9;
      }
      double maxRel = 0;
      for (int j = 0; j < k; j++) {
        double[] a = ours.clusterCenters()[j].toArray();
        double[] b = theirs.clusterCenters()[j].toArray();
        for (int x = 0; x < d; x++) {
          maxRel = Math.max(maxRel, Math.abs(a[x] - b[x]) / Math.max(1e-12, Math.abs(b[x])));
        }
      }
      double costOurs = ours.computeCost(df);
      double costTheirs = theirs.computeCost(rdd.rdd());
      equal &= maxRel <= 1e-6 && Math.abs(costOurs - costTheirs) <= 1e-6 * costTheirs;
      details = String.format(Locale.ROOT, "max centroid rel. diff %.1e, cost %.6g vs %.6g, %s",
          maxRel, costOurs, costTheirs, ours.report().engines());
      rdd.unpersist(false);
    }
    String what = String.format(Locale.ROOT, "k-means, %d %d-D points%s, k = %d, %d iterations",
        n, d, input == null ? "" : " (Parquet " + input + (columns == null ? ", a vector column)"
            : ", " + columns.length + " columns)"), k, iterations);
    row(noBaselines ? what : what + ", vs MLlib", tg, noBaselines ? null : tb, equal, details);
    df.unpersist(false);
  }

  /**
   * Runs both k-means implementations once on a small data set (50k points, 5 iterations, the
   * same path as the timed runs), so that neither pays the JIT's warm-up alone.
   */
  private void warmUpKMeans(SparkSession session, int dims) {
    int n = Math.min(points, 50_000);
    double[] data = KMeansData.blobs(n, dims, k, seed + 1);
    double[][] init = firstPointsAsCentroids(data, dims);
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
  private double[][] firstPointsAsCentroids(double[] data, int dims) {
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

  /** A table row: median times (every run's in brackets when there are several). */
  private void row(String what, double[] gstm, double[] base, boolean equal, String details) {
    row(what, gstm, base, false, equal, details);
  }

  /**
   * As above; {@code cut}: the baseline's times are its time limit, so at least that; {@code
   * equal} null: not compared.
   */
  private void row(String what, double[] gstm, double[] base, boolean cut, Boolean equal,
      String details) {
    allEqual &= equal == null || equal;
    double g = median(gstm);
    double b = base == null ? Double.NaN : median(base);
    String at = cut ? ">= " : "";
    System.out.printf(Locale.ROOT, "| %s | %s | %s | %s%.1fx | %s | %s |%n", what, times(gstm),
        base == null ? "-" : at + times(base) + (cut ? " (cut at the limit)" : ""), at, b / g,
        equal == null ? "-" : equal ? "yes" : "NO", details);
  }

  private static double median(double[] t) {
    double[] s = t.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  private static String times(double[] t) {
    String m = String.format(Locale.ROOT, "%.2f", median(t));
    if (t.length == 1) {
      return m;
    }
    StringBuilder all = new StringBuilder();
    for (double x : t) {
      all.append(all.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", x));
    }
    return m + " (" + all + ")";
  }

}
