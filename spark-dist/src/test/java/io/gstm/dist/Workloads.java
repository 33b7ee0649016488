package io.gstm.dist;

import io.gstm.core.workload.graph.GraphPrograms;
import io.gstm.spark.graph.GraphProgramRelaxation;
import io.gstm.spark.graph.GraphRelaxation;
import io.gstm.spark.graph.RelaxationResult;
import io.gstm.spark.ml.TxKMeans;
import io.gstm.spark.ml.TxKMeansModel;
import io.gstm.spark.state.TxState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The small runs the cluster tests make in local mode and on the cluster, with their results as
 * plain values to compare: graph relaxation, TxKMeans and a TxState's transfers. Every function
 * that runs on the executors is gstm's (from the one jar) or Spark's: nothing here is shipped.
 */
final class Workloads {
  private Workloads() {}

  static final int VERTICES = 300;

  /**
   * Three blocks of 100 vertices, each a random graph of 4 out-edges a vertex with integer
   * weights (so that distances are exact), in 4 partitions.
   */
  static Dataset<Row> edges(SparkSession spark) {
    SplittableRandom rnd = new SplittableRandom(32);
    List<Row> rows = new ArrayList<>();
    for (int v = 0; v < VERTICES; v++) {
      int block = v / 100 * 100;
      for (int e = 0; e < 4; e++) {
        rows.add(RowFactory.create((long) v, (long) (block + rnd.nextInt(100)),
            (double) rnd.nextInt(1, 20)));
      }
    }
    StructType schema = new StructType().add("src", DataTypes.LongType, false)
        .add("dst", DataTypes.LongType, false).add("weight", DataTypes.DoubleType, false);
    return spark.createDataFrame(rows, schema).repartition(4);
  }

  /** Shortest paths from vertex 0, by vertex (+infinity where unreachable). */
  static TreeMap<Long, Double> shortestPaths(SparkSession spark) {
    return values(GraphRelaxation.of(edges(spark)).shortestPaths(0).setPartitions(4).run()
        .values());
  }

  /**
   * Shortest paths from vertex 0 and components over the same edges cached first: each executor
   * decodes its partitions from Spark's cached bytes.
   */
  static List<TreeMap<Long, Double>> fromCachedEdges(SparkSession spark) {
    Dataset<Row> edges = edges(spark).cache();
    try {
      edges.count();
      return List.of(
          values(GraphRelaxation.of(edges).shortestPaths(0).setPartitions(4).run().values()),
          values(GraphRelaxation.of(edges).connectedComponents().setPartitions(4).run()
              .values()));
    } finally {
      edges.unpersist();
    }
  }

  /** A relaxation's values by vertex and how its supersteps exchanged updates. */
  record GraphRun(TreeMap<Long, Double> values, String exchange, int subgraphs,
      int supersteps) {}

  /**
   * Shortest paths from vertex 0 ({@code components} false) or components, with a subgraph per
   * executor (what GPU executors get): every superstep in one stage through the driver's hub.
   */
  static GraphRun perExecutor(SparkSession spark, boolean components) {
    GraphRelaxation g = GraphRelaxation.of(edges(spark)).setSubgraphs("engines");
    RelaxationResult r = (components ? g.connectedComponents() : g.shortestPaths(0)).run();
    return new GraphRun(values(r.values()), r.report().progress().exchange(),
        r.report().partitions(), r.report().supersteps());
  }

  /** Connected components, as each vertex's smallest id of its component. */
  static TreeMap<Long, Double> components(SparkSession spark) {
    return values(GraphRelaxation.of(edges(spark)).connectedComponents().setPartitions(4).run()
        .values());
  }

  /** Widest paths from vertex 0, a relaxation written as a program ({@code program(...)}). */
  static TreeMap<Long, Double> widestPaths(SparkSession spark) {
    return widestPaths(spark, false);
  }

  /** As {@link #widestPaths(SparkSession)}; widest first when {@code ordered}. */
  static TreeMap<Long, Double> widestPaths(SparkSession spark, boolean ordered) {
    List<Row> vs = new ArrayList<>();
    for (long v = 0; v < VERTICES; v++) {
      vs.add(RowFactory.create(v, v == 0 ? Double.POSITIVE_INFINITY : 0.0));
    }
    Dataset<Row> vertices = spark.createDataFrame(vs, new StructType()
        .add("id", DataTypes.LongType, false).add("width", DataTypes.DoubleType, false));
    GraphProgramRelaxation relaxation = GraphRelaxation.of(edges(spark))
        .program(GraphPrograms.WIDEST).setVertices(vertices).setActive(0);
    return values((ordered ? relaxation.setOrderDescending("width") : relaxation).run());
  }

  /**
   * Shortest paths from vertex 0 as a program that keeps each vertex's parent and hop count with
   * its distance (three regions under one lock a vertex), lowest distance first: the distances.
   */
  static TreeMap<Long, Double> programPaths(SparkSession spark) {
    List<Row> vs = new ArrayList<>();
    for (long v = 0; v < VERTICES; v++) {
      vs.add(RowFactory.create(v, v == 0 ? 0.0 : Double.POSITIVE_INFINITY, -1, 0));
    }
    Dataset<Row> vertices = spark.createDataFrame(vs, new StructType()
        .add("id", DataTypes.LongType, false).add("dist", DataTypes.DoubleType, false)
        .add("parent", DataTypes.IntegerType, false).add("hops", DataTypes.IntegerType, false));
    return values(GraphRelaxation.of(edges(spark)).program(GraphPrograms.PATHS)
        .setVertices(vertices).setActive(0).setOrder("dist").run());
  }

  private static TreeMap<Long, Double> values(Dataset<Row> values) {
    TreeMap<Long, Double> byId = new TreeMap<>();
    for (Row r : values.collectAsList()) {
      byId.put(r.getLong(0), r.getDouble(1));
    }
    return byId;
  }

  /** TxKMeans over 3 blobs of 2-D points, from fixed centroids: the centers, sorted. */
  static List<double[]> kmeansCenters(SparkSession spark) {
    return kmeans(spark, "partitions").centers();
  }

  /** A fit's sorted centers and how many point sets it iterated over. */
  record KMeansRun(List<double[]> centers, int pointSets) {}

  /**
   * TxKMeans as {@link #kmeansCenters} with {@code pointSets} ("engines": a point set per
   * executor).
   */
  static KMeansRun kmeans(SparkSession spark, String pointSets) {
    SplittableRandom rnd = new SplittableRandom(7);
    double[][] blobs = {{0, 0}, {10, 10}, {-10, 8}};
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      double[] c = blobs[i % 3];
      rows.add(RowFactory.create(Vectors.dense(c[0] + rnd.nextGaussian(),
          c[1] + rnd.nextGaussian())));
    }
    Dataset<Row> points = spark.createDataFrame(rows,
        new StructType().add("features", new VectorUDT(), false)).repartition(4);
    TxKMeansModel model = new TxKMeans().setK(3).setMaxIter(20).setPointSets(pointSets)
        .setInitialCentroids(new double[][] {{1, 1}, {5, 5}, {-5, 5}}).fit(points);
    List<double[]> centers = new ArrayList<>();
    Arrays.stream(model.clusterCenters()).forEach(v -> centers.add(v.toArray()));
    centers.sort(Comparator.<double[]>comparingDouble(c -> c[0]).thenComparingDouble(c -> c[1]));
    return new KMeansRun(centers, model.report().pointSets());
  }

  static final String BANK = """
      program transfer(src: int32, dst: int32, amount: int64)
          regions balance: int64
      {
        if (src == dst) { abort(1); }
        let have = balance[src];
        if (have < amount) { abort(2); }
        balance[src] = have - amount;
        balance[dst] = balance[dst] + amount;
      }
      """;

  static final int ACCOUNTS = 60;
  static final long OPENING = 100_000;

  /** Accounts 3, 10, 17, ... each opening with {@link #OPENING}. */
  static Dataset<Row> accounts(SparkSession spark) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < ACCOUNTS; i++) {
      rows.add(RowFactory.create(i * 7L + 3, OPENING));
    }
    return spark.createDataFrame(rows, new StructType().add("id", DataTypes.LongType, false)
        .add("balance", DataTypes.LongType, false));
  }

  /**
   * Batch {@code b} of 200 transfers between the accounts. No account can overdraw (at most
   * 50 a transfer), so the balances after any batches do not depend on the order in which the
   * engine commits them: runs compare exactly.
   */
  static Dataset<Row> transfers(SparkSession spark, int b) {
    return spark.createDataFrame(transferRows(b), new StructType()
        .add("id", DataTypes.LongType, false).add("src", DataTypes.LongType, false)
        .add("dst", DataTypes.LongType, false).add("amount", DataTypes.LongType, false))
        .repartition(3);
  }

  /** Batch {@code b}'s rows: id, src, dst, amount. */
  private static List<Row> transferRows(int b) {
    SplittableRandom rnd = new SplittableRandom(1000 + b);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      rows.add(RowFactory.create(b * 1000L + i, rnd.nextInt(ACCOUNTS) * 7L + 3,
          rnd.nextInt(ACCOUNTS) * 7L + 3, (long) rnd.nextInt(1, 51)));
    }
    return rows;
  }

  /**
   * The balances after batches 0 .. {@code last}, each applied once and without failure, in
   * any order: every transfer commits but one to its own account.
   */
  static TreeMap<Long, Long> balancesAfter(int last) {
    TreeMap<Long, Long> balances = new TreeMap<>();
    for (int i = 0; i < ACCOUNTS; i++) {
      balances.put(i * 7L + 3, OPENING);
    }
    for (int b = 0; b <= last; b++) {
      for (Row t : transferRows(b)) {
        if (t.getLong(1) != t.getLong(2)) {
          balances.merge(t.getLong(1), -t.getLong(3), Long::sum);
          balances.merge(t.getLong(2), t.getLong(3), Long::sum);
        }
      }
    }
    return balances;
  }

  /** A new state of the accounts in 3 partitions. */
  static TxState bank(SparkSession spark, String name) {
    return bank(spark, name, 3);
  }

  static TxState bank(SparkSession spark, String name, int partitions) {
    return TxState.from(accounts(spark)).key("id").partitions(partitions).name(name).create();
  }

  /** Balances by account at the state's last committed epoch. */
  static TreeMap<Long, Long> balances(TxState state) {
    return balances(state.toDF());
  }

  static TreeMap<Long, Long> balances(Dataset<Row> rows) {
    TreeMap<Long, Long> byId = new TreeMap<>();
    for (Row r : rows.collectAsList()) {
      byId.put(r.getLong(0), r.getLong(1));
    }
    return byId;
  }

  static long total(TreeMap<Long, Long> balances) {
    return balances.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Opens of new accounts, deposits that may open one, closes: order-free within a batch. */
  static final String ACCOUNT_CHANGES = BANK + """
      program open(acct: int32, amount: int64) regions balance: int64, exists: int32 {
        if (exists[acct] == 1) { abort(3); }
        exists[acct] = 1;
        balance[acct] = amount;
      }
      program deposit(acct: int32, amount: int64) regions balance: int64, exists: int32 {
        exists[acct] = 1;
        balance[acct] = balance[acct] + amount;
      }
      program close(acct: int32) regions balance: int64, exists: int32 {
        if (exists[acct] == 0) { abort(4); }
        exists[acct] = 0;
      }
      """;

  /**
   * A state with inserts and deletes: 40 new accounts opened, 40 deposits (half into new
   * accounts), the last 10 accounts closed, then transfer batch 0 (those naming a closed account
   * end MISSING_KEY). Returns the balances and the transfer batch's outcome counts.
   */
  static Map<String, Object> insertRun(SparkSession spark) {
    try (TxState bank = TxState.from(accounts(spark)).key("id").partitions(3).name("changes")
        .insertsAndDeletes().create()) {
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        rows.add(RowFactory.create((long) i, "open", 10_000L + i, (long) i, 0L, 0L));
        rows.add(RowFactory.create(100L + i, "deposit", i % 2 == 0 ? 20_000L + i : i * 7L + 3,
            5L, 0L, 0L));
      }
      for (int i = ACCOUNTS - 10; i < ACCOUNTS; i++) {
        rows.add(RowFactory.create(200L + i, "close", i * 7L + 3, 0L, 0L, 0L));
      }
      StructType schema = new StructType().add("id", DataTypes.LongType, false)
          .add("program", DataTypes.StringType, false).add("acct", DataTypes.LongType, false)
          .add("amount", DataTypes.LongType, false).add("src", DataTypes.LongType, false)
          .add("dst", DataTypes.LongType, false);
      long committed = bank.transactions(spark.createDataFrame(rows, schema).repartition(3),
          ACCOUNT_CHANGES).idColumn("id").run().committed();
      Map<String, Long> outcomes = bank.transactions(transfers(spark, 0), BANK).idColumn("id")
          .run().outcomeCounts();
      return Map.of("balances", balances(bank), "committed", committed, "outcomes", outcomes);
    }
  }

  /** What {@link #stateRun} saw. */
  /**
   * Batch 0 applied once to a bank of one partition from rows that are neither cached nor
   * columnar (a shuffle's output): its balances.
   */
  static TreeMap<Long, Long> rowsOnePartitionRun(SparkSession spark) {
    try (TxState bank = bank(spark, "rows", 1)) {
      bank.transactions(transfers(spark, 0), BANK).idColumn("id").run();
      return balances(bank);
    }
  }

  /**
   * Batch 0 applied once to a bank of one partition from a cached input (each executor's cached
   * batches decoded straight into the routed chunks, which the state's task then reads from
   * wherever they were cached): its balances.
   */
  static TreeMap<Long, Long> cachedOnePartitionRun(SparkSession spark) {
    Dataset<Row> input = transfers(spark, 0).cache();
    try (TxState bank = bank(spark, "cached", 1)) {
      input.count();
      bank.transactions(input, BANK).idColumn("id").run();
      return balances(bank);
    } finally {
      input.unpersist(false);
    }
  }

  /**
   * Batch 0 written as Parquet under {@code dir}, read back and applied once to a bank of one
   * partition (the executors' routing tasks take the scan's column batches whole, into chunks
   * that a batch may span): its balances.
   */
  static TreeMap<Long, Long> parquetOnePartitionRun(SparkSession spark, String dir) {
    transfers(spark, 0).write().parquet(dir);
    try (TxState bank = bank(spark, "parquet", 1)) {
      bank.transactions(spark.read().parquet(dir), BANK).idColumn("id").run();
      return balances(bank);
    }
  }

  record StateRun(TreeMap<Long, Long> balances, long epoch, List<Long> committed,
      boolean replayed, TreeMap<Long, Long> restored, long restoredEpoch) {}

  /**
   * Creates the bank, applies batches 0, 1 and 2 (with their batch ids), applies batch 1 again
   * (a replay: nothing applied), checkpoints to {@code checkpoint} and restores from it.
   */
  static StateRun stateRun(SparkSession spark, String checkpoint) {
    try (TxState bank = bank(spark, "ledger")) {
      List<Long> committed = new ArrayList<>();
      for (int b = 0; b < 3; b++) {
        committed.add(bank.apply(transfers(spark, b), BANK, b).committed());
      }
      boolean replayed = bank.apply(transfers(spark, 1), BANK, 1).replayed();
      TreeMap<Long, Long> balances = balances(bank);
      bank.checkpoint(checkpoint);
      try (TxState back = TxState.restore(spark, checkpoint)) {
        return new StateRun(balances, bank.epoch(), committed, replayed, balances(back),
            back.epoch());
      }
    }
  }
}
