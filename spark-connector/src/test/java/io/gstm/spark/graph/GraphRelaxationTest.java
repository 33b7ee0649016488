package io.gstm.spark.graph;

import static io.gstm.spark.graph.References.dense;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.gstm.core.engine.EngineChoice;
import io.gstm.core.engine.GpuUnavailableException;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskEngine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GraphRelaxationTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  private static boolean gpuUsable() {
    try (TaskEngine lease = ExecutorEngines.acquire(GstmConf.defaults())) {
      return lease.gpu();
    }
  }

  private static final StructType WEIGHTED = new StructType()
      .add("src", DataTypes.LongType).add("dst", DataTypes.LongType)
      .add("weight", DataTypes.DoubleType);

  private static Dataset<Row> edges(int[] src, int[] dst, double[] w, int partitions) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < src.length; i++) {
      rows.add(RowFactory.create((long) src[i], (long) dst[i], w == null ? 1.0 : w[i]));
    }
    return session.spark().createDataFrame(rows, WEIGHTED).repartition(partitions);
  }

  /** A random graph of a few parts (so some vertices are unreachable), self-loops, duplicates. */
  /** {@code m} integer weights in {@code [1, bound)}, seeded. */
  private static double[] weights(int m, long seed, int bound) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] w = new double[m];
    for (int e = 0; e < m; e++) {
      w[e] = rnd.nextInt(1, bound);
    }
    return w;
  }

  private static int[][] randomGraph(int n, int m, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] src = new int[m];
    int[] dst = new int[m];
    int part = Math.max(1, n / 3);
    for (int e = 0; e < m; e++) {
      int base = rnd.nextInt(3) * part;
      src[e] = Math.min(n - 1, base + rnd.nextInt(part));
      dst[e] = e % 17 == 0 ? src[e] : Math.min(n - 1, base + rnd.nextInt(part));
      if (e % 13 == 0 && e > 0) {
        src[e] = src[e - 1];
        dst[e] = dst[e - 1];
      }
    }
    return new int[][] {src, dst};
  }

  @ParameterizedTest(name = "n={0} m={1} seed={2} partitions={3}")
  @CsvSource({"200, 600, 1, 1", "1000, 3000, 2, 3", "3000, 12000, 3, 4", "500, 300, 4, 2"})
  void shortestPathsEqualDijkstra(int n, int m, long seed, int partitions) {
    int[][] g = randomGraph(n, m, seed);
    SplittableRandom rnd = new SplittableRandom(seed * 31);
    double[] w = new double[m];
    for (int e = 0; e < m; e++) {
      w[e] = rnd.nextInt(10) == 0 ? 0 : rnd.nextInt(1, 50) + (e % 2 == 0 ? 0.5 : 0);
    }
    int source = g[0][1]; // edge 0 is a self-loop
    RelaxationResult r = GraphRelaxation.of(edges(g[0], g[1], w, partitions))
        .setPartitions(partitions).shortestPaths(source).run();
    double[] expected = References.dijkstra(n, g[0], g[1], w, source);
    double[] actual = dense(r.values(), n);
    boolean[] present = present(n, g, source);
    for (int v = 0; v < n; v++) {
      if (present[v]) {
        assertThat(actual[v]).as("distance of vertex %d", v).isEqualTo(expected[v]);
      } else {
        assertThat(actual[v]).as("vertex %d is in no edge", v).isNaN();
      }
    }
    RelaxationReport rep = r.report();
    assertThat(rep.kind()).isEqualTo(RelaxationKind.SHORTEST_PATHS);
    assertThat(rep.converged()).isTrue();
    assertThat(rep.supersteps()).isGreaterThanOrEqualTo(1);
    assertThat(rep.commits()).isPositive();
    assertThat(rep.progress().edgeRelaxations()).isPositive();
    assertThat(rep.engines()).isNotEmpty();
    assertThat(rep.partitions()).isEqualTo(partitions);
    assertThat(ResidentCache.size()).as("relaxers left after the run").isZero();
  }

  private static boolean[] present(int n, int[][] g, int source) {
    boolean[] p = new boolean[n];
    p[source] = true;
    for (int e = 0; e < g[0].length; e++) {
      p[g[0][e]] = true;
      p[g[1][e]] = true;
    }
    return p;
  }

  @ParameterizedTest(name = "n={0} m={1} seed={2} partitions={3}")
  @CsvSource({"300, 250, 5, 1", "2000, 1800, 6, 3", "4000, 6000, 7, 4"})
  void componentsEqualUnionFind(int n, int m, long seed, int partitions) {
    int[][] g = randomGraph(n, m, seed);
    RelaxationResult r = GraphRelaxation.of(edges(g[0], g[1], null, partitions))
        .setPartitions(partitions).connectedComponents().run();
    double[] expected = References.components(n, g[0], g[1]);
    double[] actual = dense(r.values(), n);
    boolean[] present = present(n, g, g[0][0]);
    for (int v = 0; v < n; v++) {
      if (present[v]) {
        assertThat(actual[v]).as("label of vertex %d", v).isEqualTo(expected[v]);
      }
    }
    assertThat(r.report().converged()).isTrue();
  }

  /**
   * The vertex cut for any number of subgraphs against the input's partitions (equal, fewer:
   * neighbours merged, more: edges spread): vertices held by several subgraphs are reported once,
   * ids that occur only as a target and extra vertices (isolated or also in edges) are present,
   * and disconnected parts stay unreached / keep their own labels.
   */
  @ParameterizedTest(name = "{0}, {1} input partitions, {2} subgraphs")
  @CsvSource({"SHORTEST_PATHS, 3, 3", "SHORTEST_PATHS, 4, 2", "SHORTEST_PATHS, 2, 5",
      "CONNECTED_COMPONENTS, 3, 3", "CONNECTED_COMPONENTS, 5, 1", "CONNECTED_COMPONENTS, 1, 4"})
  void vertexCutReportsEveryVertexOnce(RelaxationKind kind, int inputs, int subgraphs) {
    int n = 1500;
    int[][] g = randomGraph(n - 100, 5000, 17);
    // Ids 1400..1449 occur only as targets (of in-part vertices); 1450..1499 are extra vertices,
    // half isolated, plus a few ids that the edges also hold.
    int m = g[0].length;
    int[] src = Arrays.copyOf(g[0], m + 50);
    int[] dst = Arrays.copyOf(g[1], m + 50);
    for (int i = 0; i < 50; i++) {
      src[m + i] = i * 7;
      dst[m + i] = 1400 + i;
    }
    double[] w = weights(src.length, 5, 20);
    List<Row> extra = new ArrayList<>();
    for (long v = 1450; v < 1500; v++) {
      extra.add(RowFactory.create(v));
    }
    extra.add(RowFactory.create(0L));
    extra.add(RowFactory.create(1400L));
    Dataset<Row> vertices = session.spark().createDataFrame(extra,
        new StructType().add("id", DataTypes.LongType));
    int source = src[0];
    // The input's partitions (the random graph's parts are ranges of ids, which "auto" would
    // place whole, leaving nothing to exchange; GraphPartitioningTest covers ranges).
    GraphRelaxation job = GraphRelaxation.of(edges(src, dst, w, inputs)).setPartitions(subgraphs)
        .setPartitioning("input").setVertices(vertices);
    RelaxationResult r = kind == RelaxationKind.SHORTEST_PATHS ? job.shortestPaths(source).run()
        : job.connectedComponents().run();
    List<Row> rows = r.values().collectAsList();
    long distinct = rows.stream().mapToLong(row -> row.getLong(0)).distinct().count();
    assertThat(distinct).as("one row per vertex").isEqualTo(rows.size());
    boolean[] present = present(n, new int[][] {src, dst}, source);
    for (int v = 1450; v < 1500; v++) {
      present[v] = true;
    }
    int count = 0;
    for (boolean b : present) {
      count += b ? 1 : 0;
    }
    assertThat(rows).hasSize(count);
    assertThat(r.report().vertices()).isEqualTo(count);
    assertThat(r.report().partitions()).isEqualTo(subgraphs);
    assertThat(r.report().converged()).isTrue();
    double[] expected = References.expected(kind, n, src, dst, w, source);
    double[] actual = dense(r.values(), n);
    for (int v = 0; v < n; v++) {
      if (present[v]) {
        assertThat(actual[v]).as("value of vertex %d", v).isEqualTo(expected[v]);
      } else {
        assertThat(actual[v]).as("vertex %d is nowhere", v).isNaN();
      }
    }
    for (int v = 1400; v < 1500; v++) {
      assertThat(actual[v]).as("target-only or extra vertex %d", v).isNotNaN();
    }
    if (subgraphs > 1) {
      assertThat(r.report().progress().boundaryMessages()).as("replicas exchanged values")
          .isPositive();
    }
  }

  /**
   * A cached DataFrame is read from its column batches (decoded from Spark's cached bytes):
   * int, long, short ids and float, int or double weights give the references' results, and bad
   * values the same named errors.
   */
  @Test
  void cachedEdgesAreReadFromColumnBatches() {
    int n = 800;
    int[][] g = randomGraph(n, 4000, 23);
    double[] w = weights(g[0].length, 3, 30);
    double[] dist = References.dijkstra(n, g[0], g[1], w, g[0][1]);
    double[] labels = References.components(n, g[0], g[1]);
    // The last: the columns out of order among others, read from the DataFrame's own batches.
    String[][] types = {{"int", "double"}, {"long", "float"}, {"short", "int"}, {"reordered"}};
    for (String[] t : types) {
      long columnar = GraphRelaxation.COLUMNAR_READS.get();
      long decoded = EdgeInput.CACHED_BYTE_READS.get();
      Dataset<Row> df = (t.length == 1
          ? edges(g[0], g[1], w, 3).select(col("weight"), lit(7).as("label"), col("dst"),
              col("src"))
          : edges(g[0], g[1], w, 3).select(col("src").cast(t[0]).as("src"),
              col("dst").cast(t[0]).as("dst"), col("weight").cast(t[1]).as("weight")))
          .cache();
      double[] sp = dense(GraphRelaxation.of(df).shortestPaths(g[0][1]).run().values(), n);
      double[] cc = dense(GraphRelaxation.of(df).setPartitions(2).connectedComponents().run()
          .values(), n);
      boolean[] present = present(n, g, g[0][1]);
      for (int v = 0; v < n; v++) {
        if (present[v]) {
          assertThat(sp[v]).as("%s distance of %d", Arrays.toString(t), v).isEqualTo(dist[v]);
          assertThat(cc[v]).as("%s label of %d", Arrays.toString(t), v).isEqualTo(labels[v]);
        }
      }
      assertThat(GraphRelaxation.COLUMNAR_READS.get()).as("column batches read")
          .isEqualTo(columnar + 2);
      assertThat(EdgeInput.CACHED_BYTE_READS.get()).as("partitions decoded from cached bytes")
          .isEqualTo(decoded + 2L * df.rdd().getNumPartitions());
      df.unpersist();
    }
    StructType nullable = new StructType().add("src", DataTypes.IntegerType)
        .add("dst", DataTypes.IntegerType).add("weight", DataTypes.DoubleType);
    Object[][][] bad = {
        {{0, 1, 1.0}, {1, null, 1.0}},
        {{0, 1, 1.0}, {1, 2, null}},
        {{0, 1, -3.0}},
        {{0, -1, 1.0}},
        {{0, 1, Double.POSITIVE_INFINITY}},
        {{0, 1, 1.0}, {1, 2, Double.NaN}},
        {{0, 1, 1.0}, {-5, -2, -1.0}}};
    // Without nulls, int ids and double weights are read a whole column at a time.
    String[] messages = {"column 'dst': null vertex id", "column 'weight': null weight",
        "column 'weight': negative weight -3.0", "column 'dst': vertex id -1 is beyond",
        "column 'weight': weight Infinity; weights must be finite",
        "column 'weight': weight NaN; weights must be finite",
        "column 'src': vertex id -5 is beyond"};
    for (int i = 0; i < bad.length; i++) {
      List<Row> rows = new ArrayList<>();
      for (Object[] r : bad[i]) {
        rows.add(RowFactory.create(r));
      }
      Dataset<Row> df = session.spark().createDataFrame(rows, nullable).cache();
      long columnar = GraphRelaxation.COLUMNAR_READS.get();
      assertThatThrownBy(() -> GraphRelaxation.of(df).shortestPaths(0).run())
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(messages[i]);
      assertThat(GraphRelaxation.COLUMNAR_READS.get()).isEqualTo(columnar + 1);
      df.unpersist();
    }
  }

  @Test
  void sparseLargeIdsAcrossSubgraphs() {
    long big = GraphRelaxation.MAX_VERTEX_ID;
    List<Row> rows = List.of(RowFactory.create(0L, big, 1.0),
        RowFactory.create(big, 1_500_000_001L, 2.0), RowFactory.create(1_500_000_001L, 7L, 3.0),
        RowFactory.create(0L, 7L, 10.0), RowFactory.create(9L, 8L, 1.0));
    Dataset<Row> df = session.spark().createDataFrame(rows, WEIGHTED).repartition(3);
    List<Row> sp = GraphRelaxation.of(df).shortestPaths(0).run().values().orderBy("id")
        .collectAsList();
    assertThat(sp).containsExactly(RowFactory.create(0L, 0.0), RowFactory.create(7L, 6.0),
        RowFactory.create(8L, Double.POSITIVE_INFINITY),
        RowFactory.create(9L, Double.POSITIVE_INFINITY),
        RowFactory.create(1_500_000_001L, 3.0), RowFactory.create(big, 1.0));
    List<Row> cc = GraphRelaxation.of(df).setPartitions(2).connectedComponents().run().values()
        .orderBy("id").collectAsList();
    assertThat(cc).containsExactly(RowFactory.create(0L, 0.0), RowFactory.create(7L, 0.0),
        RowFactory.create(8L, 8.0), RowFactory.create(9L, 8.0),
        RowFactory.create(1_500_000_001L, 0.0), RowFactory.create(big, 0.0));
  }

  @Test
  void rmatShortestPathsAndComponentsMatchTheReferences() {
    EdgeList g = RmatGenerator.generate(12, 30_000, 11, true);
    Dataset<Row> df = TestFrames.edges(session.spark(), g, 3);
    int source = g.src()[0];
    // A subgraph per partition, also on GPU executors (where auto cuts one per GPU).
    RelaxationResult sp = GraphRelaxation.of(df).setSubgraphs("partitions").shortestPaths(source)
        .run();
    double[] dist = References.dijkstra(g.vertexCount(), g.src(), g.dst(), g.weights(), source);
    double[] actual = dense(sp.values(), g.vertexCount());
    for (int v = 0; v < g.vertexCount(); v++) {
      if (!Double.isNaN(actual[v])) {
        assertThat(actual[v]).as("distance of %d", v).isEqualTo(dist[v]);
      }
    }
    assertThat(sp.report().partitions()).isEqualTo(3);
    double[] labels = References.components(g.vertexCount(), g.src(), g.dst());
    double[] cc = dense(df.transform(GraphRelaxation::components), g.vertexCount());
    for (int v = 0; v < g.vertexCount(); v++) {
      if (!Double.isNaN(cc[v])) {
        assertThat(cc[v]).as("label of %d", v).isEqualTo(labels[v]);
      }
    }
  }

  @Test
  void singleVertexAndNoEdges() {
    Dataset<Row> none = session.spark().createDataFrame(List.of(), WEIGHTED);
    RelaxationResult r = GraphRelaxation.of(none).shortestPaths(5).run();
    assertThat(r.values().collectAsList()).containsExactly(RowFactory.create(5L, 0.0));
    assertThat(r.report().converged()).isTrue();

    Dataset<Row> vertices = session.spark().range(0, 10).toDF("id");
    double[] cc = dense(GraphRelaxation.of(none).setVertices(vertices).connectedComponents().run()
        .values(), 10);
    for (int v = 0; v < 10; v++) {
      assertThat(cc[v]).isEqualTo(v);
    }
    double[] sp = dense(none.transform(GraphRelaxation.shortestPathsFrom(3)), 10);
    assertThat(sp[3]).isZero();
  }

  @Test
  void selfLoopsAndDuplicatesKeepTheLightestEdge() {
    Dataset<Row> df = edges(new int[] {0, 0, 0, 1, 1, 2}, new int[] {1, 1, 0, 2, 2, 2},
        new double[] {5, 2, 0, 7, 3, 1}, 2);
    double[] d = dense(GraphRelaxation.of(df).shortestPaths(0).run().values(), 3);
    assertThat(d).containsExactly(0, 2, 5);
    double[] unweighted = dense(GraphRelaxation.of(df).setWeightCol(null).shortestPaths(0).run()
        .values(), 3);
    assertThat(unweighted).containsExactly(0, 1, 2);
  }

  @Test
  void supersteBoundStopsALongPathAcrossPartitions() {
    int n = 40;
    int[] src = new int[n - 1];
    int[] dst = new int[n - 1];
    for (int i = 0; i < n - 1; i++) {
      src[i] = i;
      dst[i] = i + 1;
    }
    RelaxationResult r = GraphRelaxation.of(edges(src, dst, null, 2)).setPartitions(4)
        .setMaxSupersteps(2).shortestPaths(0).run();
    assertThat(r.report().converged()).isFalse();
    assertThat(r.report().supersteps()).isEqualTo(2);
    RelaxationResult full = GraphRelaxation.of(edges(src, dst, null, 2)).setPartitions(4)
        .shortestPaths(0).run();
    assertThat(dense(full.values(), n)[n - 1]).isEqualTo(n - 1);
    assertThat(full.report().supersteps()).isGreaterThan(2);
  }

  /**
   * The boundary exchange through the driver (a large limit), through the shuffle (limit 0),
   * mixed (a small limit: early supersteps shuffle, late ones go through the driver) and through
   * the driver with the updates in broadcasts instead of the tasks gives exactly the same values,
   * equal to the references, over several subgraphs.
   */
  @ParameterizedTest(name = "{0}, {1} subgraphs")
  @CsvSource({"SHORTEST_PATHS, 3", "SHORTEST_PATHS, 5", "CONNECTED_COMPONENTS, 3",
      "CONNECTED_COMPONENTS, 4"})
  void driverAndShuffleExchangesGiveEqualResults(RelaxationKind kind, int partitions) {
    int n = 3000;
    int m = 6000;
    int[][] g = randomGraph(n, m, 11 + partitions);
    double[] w = weights(m, partitions, 40);
    for (int e = 0; e < m; e += 3) {
      w[e] += 0.25;
    }
    int source = g[0][1];
    Dataset<Row> edges = edges(g[0], g[1], w, partitions).cache();
    double[][] results = new double[4][];
    long[] driver = new long[4];
    long[] shuffle = new long[4];
    long[] broadcast = new long[4];
    int[] limits = {1_000_000, 0, 20, 1_000_000};
    for (int i = 0; i < limits.length; i++) {
      long d0 = GraphRelaxation.DRIVER_EXCHANGES.get();
      long s0 = GraphRelaxation.SHUFFLE_EXCHANGES.get();
      long b0 = GraphRelaxation.BROADCAST_EXCHANGES.get();
      GraphRelaxation run = GraphRelaxation.of(edges).setPartitions(partitions)
          .setDriverExchangeLimit(limits[i]).setMailInTasks(i == 3 ? 0 : 1_000_000);
      run = kind == RelaxationKind.SHORTEST_PATHS ? run.shortestPaths(source)
          : run.connectedComponents();
      RelaxationResult r = run.run();
      assertThat(r.report().converged()).isTrue();
      results[i] = dense(r.values(), n);
      driver[i] = GraphRelaxation.DRIVER_EXCHANGES.get() - d0;
      shuffle[i] = GraphRelaxation.SHUFFLE_EXCHANGES.get() - s0;
      broadcast[i] = GraphRelaxation.BROADCAST_EXCHANGES.get() - b0;
    }
    edges.unpersist();
    double[] expected = References.expected(kind, n, g[0], g[1], w, source);
    boolean[] present = present(n, g, source);
    for (int v = 0; v < n; v++) {
      if (present[v]) {
        assertThat(results[0][v]).as("vertex %d, driver exchange", v).isEqualTo(expected[v]);
      }
    }
    assertThat(results[1]).as("shuffle exchange").isEqualTo(results[0]);
    assertThat(results[2]).as("mixed exchange").isEqualTo(results[0]);
    assertThat(results[3]).as("driver exchange in broadcasts").isEqualTo(results[0]);
    assertThat(broadcast[0]).as("broadcasts, updates in the tasks").isZero();
    assertThat(broadcast[3]).as("broadcasts, updates never in the tasks").isEqualTo(driver[3])
        .isEqualTo(driver[0]);
    assertThat(driver[0]).as("exchanges through the driver, large limit").isPositive();
    assertThat(shuffle[0]).as("shuffles, large limit").isZero();
    assertThat(driver[1]).as("exchanges through the driver, limit 0").isZero();
    assertThat(shuffle[1]).as("shuffles, limit 0").isPositive();
    assertThat(driver[0]).as("every exchange of one path is one of the other")
        .isEqualTo(shuffle[1]);
    assertThat(ResidentCache.size()).as("relaxers left after the runs").isZero();
  }

  /**
   * The result's rows are made anew by each action from the last superstep's values (in one
   * reused row per partition): collected twice, sorted (a buffering operator), cached and
   * counted, they are always the same vertices with the same values, one row per vertex.
   */
  @Test
  void resultRowsAreTheSameForEveryAction() {
    int n = 2000;
    int[][] g = randomGraph(n, 5000, 77);
    RelaxationResult r = GraphRelaxation.of(edges(g[0], g[1], null, 3)).connectedComponents()
        .run();
    double[] expected = References.components(n, g[0], g[1]);
    double[] first = dense(r.values(), n);
    assertThat(dense(r.values(), n)).isEqualTo(first);
    List<Row> sorted = r.values().orderBy("id").collectAsList();
    assertThat(sorted).hasSize((int) r.report().vertices());
    for (int i = 0; i < sorted.size(); i++) {
      long id = sorted.get(i).getLong(0);
      assertThat(sorted.get(i).getDouble(1)).isEqualTo(expected[(int) id]);
      if (i > 0) {
        assertThat(id).isGreaterThan(sorted.get(i - 1).getLong(0));
      }
    }
    Dataset<Row> cached = r.values().cache();
    assertThat(cached.count()).isEqualTo(r.report().vertices());
    assertThat(dense(cached, n)).isEqualTo(first);
    cached.unpersist();
  }

  /** Subgraphs numbered by global id or by degree give the references' values. */
  @ParameterizedTest(name = "{0}, vertices by {1}")
  @CsvSource({"SHORTEST_PATHS, input", "SHORTEST_PATHS, degree", "CONNECTED_COMPONENTS, input",
      "CONNECTED_COMPONENTS, degree"})
  void eitherVertexOrderGivesTheReferences(RelaxationKind kind, String order) {
    int n = 2500;
    int m = 7000;
    int[][] g = randomGraph(n, m, 91);
    double[] w = weights(m, 92, 30);
    int source = g[0][1];
    GraphRelaxation run = GraphRelaxation.of(edges(g[0], g[1], w, 3)).setVertexOrder(order);
    run = kind == RelaxationKind.SHORTEST_PATHS ? run.shortestPaths(source)
        : run.connectedComponents();
    double[] actual = dense(run.run().values(), n);
    double[] expected = References.expected(kind, n, g[0], g[1], w, source);
    boolean[] present = present(n, g, source);
    for (int v = 0; v < n; v++) {
      if (present[v]) {
        assertThat(actual[v]).as("vertex %d", v).isEqualTo(expected[v]);
      }
    }
    assertThatThrownBy(() -> GraphRelaxation.of(edges(g[0], g[1], w, 3)).setVertexOrder("byId"))
        .hasMessageContaining("spark.gstm.graph.vertexOrder");
  }

  /** "auto" numbers by degree where tasks run on the JVM engine (always, without a GPU). */
  @Test
  void autoVertexOrderNumbersByDegreeOnTheJvmEngine() {
    GstmSettings jvm = GstmConf.settings(Map.of("spark.gstm.engine", "jvm"));
    assertThat(SubgraphPlanner.byDegree(jvm)).isTrue();
    assertThat(SubgraphPlanner.byDegree(jvm.withVertexOrder("input"))).isFalse();
    assertThat(SubgraphPlanner.byDegree(jvm.withEngine(EngineChoice.GPU)
        .withVertexOrder("degree"))).isTrue();
    if (!ExecutorEngines.gpuUsable(GstmConf.defaults())) {
      assertThat(SubgraphPlanner.byDegree(GstmConf.defaults())).isTrue();
    }
  }

  @Test
  void minCombineTakesTheMinPerVertexAndTarget() {
    StepStats st = new StepStats();
    StepOutput a = new StepOutput(0, null, new int[][] {null, {7, 3}, {9}},
        new double[][] {null, {5.0, 2.0}, {1.0}}, st);
    StepOutput b = new StepOutput(2, null, new int[][] {{7}, {3, 7}, null},
        new double[][] {{4.0}, {6.0, 1.5}, null}, st);
    StepOutput.Messages[] mail = Supersteps.minCombine(List.of(a, b), 3);
    assertThat(mail[0].ids()).containsExactly(7);
    assertThat(mail[0].values()).containsExactly(4.0);
    assertThat(mail[1].ids()).containsExactly(3, 7);
    assertThat(mail[1].values()).containsExactly(2.0, 1.5);
    assertThat(mail[2].ids()).containsExactly(9);
    assertThat(mail[2].values()).containsExactly(1.0);
  }

  @Test
  void badInputIsNamedBeforeTheRelaxation() {
    Dataset<Row> ok = edges(new int[] {0}, new int[] {1}, new double[] {1}, 1);
    assertThatThrownBy(() -> GraphRelaxation.of(ok.withColumnRenamed("src", "from"))
        .shortestPaths(0).run())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'src' not found");
    assertThatThrownBy(() -> GraphRelaxation.of(ok.withColumn("dst", ok.col("dst").cast("string")))
        .connectedComponents().run())
        .hasMessageContaining("column 'dst'").hasMessageContaining("integral");
    assertThatThrownBy(() -> GraphRelaxation.of(ok).setWeightCol("w").shortestPaths(0).run())
        .hasMessageContaining("column 'w' (weightCol) not found");
    assertThatThrownBy(() -> GraphRelaxation.of(session.spark().createDataFrame(
        List.of(RowFactory.create(0L, 1L, null)), WEIGHTED)).shortestPaths(0).run())
        .hasMessageContaining("column 'weight': null weight");
    assertThatThrownBy(() -> GraphRelaxation.of(edges(new int[] {0, 1}, new int[] {1, 2},
        new double[] {1, -2}, 1)).shortestPaths(0).run())
        .hasMessageContaining("column 'weight': negative weight -2.0");
    assertThatThrownBy(() -> GraphRelaxation.of(edges(new int[] {0}, new int[] {1},
        new double[] {Double.NaN}, 1)).shortestPaths(0).run())
        .hasMessageContaining("column 'weight': weight NaN; weights must be finite");
    assertThatThrownBy(() -> GraphRelaxation.of(session.spark().createDataFrame(
        List.of(RowFactory.create(3_000_000_000L, 1L, 1.0)), WEIGHTED)).connectedComponents().run())
        .hasMessageContaining("column 'src': vertex id 3000000000 is beyond the supported range");
    assertThatThrownBy(() -> GraphRelaxation.of(session.spark().createDataFrame(
        List.of(RowFactory.create(0L, -4L, 1.0)), WEIGHTED)).connectedComponents().run())
        .hasMessageContaining("column 'dst': vertex id -4 is beyond the supported range");
    assertThatThrownBy(() -> GraphRelaxation.of(ok).shortestPaths(-1))
        .hasMessageContaining("source: vertex id -1");
    assertThatThrownBy(() -> GraphRelaxation.of(ok).run())
        .hasMessageContaining("shortestPaths(source) or connectedComponents()");
    assertThatThrownBy(() -> GraphRelaxation.of(ok).setMaxSupersteps(0))
        .hasMessageContaining("maxSupersteps must be at least 1");
    assertThatThrownBy(() -> GraphRelaxation.of(ok).setDriverExchangeLimit(-1))
        .hasMessageContaining("driverExchangeLimit must be at least 0");
    if (!gpuUsable()) {
      assertThatThrownBy(() -> GraphRelaxation.of(ok).setEngine("gpu").connectedComponents().run())
          .isInstanceOf(GpuUnavailableException.class)
          .hasMessageContaining("spark.gstm.engine=gpu but no usable GPU");
    }
    // Negative weights do not matter to components.
    assertThat(GraphRelaxation.of(edges(new int[] {0}, new int[] {1}, new double[] {-1}, 1))
        .connectedComponents().run().values().count()).isEqualTo(2);
  }
}
