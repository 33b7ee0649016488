package example;

import io.gstm.spark.graph.GraphRelaxation;
import io.gstm.spark.graph.RelaxationResult;
import io.gstm.spark.state.ApplyResult;
import io.gstm.spark.state.TxState;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A user's own Spark application over gstm, submitted with the one gstm jar:
 *
 * <pre>
 * spark-submit --master spark://HOST:7077 --jars gstm-spark_2.13-VERSION.jar \
 *     --class example.GstmApp gstm-example-app.jar [vertices] [accounts]
 * </pre>
 *
 * Shortest paths on a ring with chords, then transfers between accounts through TxState; it
 * prints what each step ran on and checks the answers it can know in advance.
 */
public final class GstmApp {
  private static final String TRANSFER = """
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

  private GstmApp() {}

  public static void main(String[] args) {
    long n = args.length > 0 ? Long.parseLong(args[0]) : 100_000;
    long accounts = args.length > 1 ? Long.parseLong(args[1]) : 100_000;
    if (n < 1000 || n > Integer.MAX_VALUE || accounts < 2) {
      throw new IllegalArgumentException("vertices must be in [1000, 2^31), accounts at least 2");
    }
    SparkSession spark = SparkSession.builder().appName("gstm-example-app").getOrCreate();
    try {
      // A ring 0 -> 1 -> ... -> n-1 -> 0 of weight 1, with chords i -> i + 1000 of weight 10:
      // the shortest way from 0 to v takes v / 1000 chords, then v % 1000 ring edges.
      Dataset<Row> edges = spark.range(n).selectExpr(
          "CAST(id AS BIGINT) AS src", "CAST((id + 1) % " + n + " AS BIGINT) AS dst",
          "1.0D AS weight").union(spark.range(n).selectExpr("CAST(id AS BIGINT) AS src",
          "CAST((id + 1000) % " + n + " AS BIGINT) AS dst", "10.0D AS weight"));
      RelaxationResult paths = GraphRelaxation.of(edges).shortestPaths(0).run();
      double[] dist = paths.collectById((int) n);
      long wrong = 0;
      for (int v = 0; v < n; v++) {
        wrong += dist[v] == v / 1000 * 10 + v % 1000 ? 0 : 1;
      }
      System.out.printf("shortest paths: %d vertices, %d supersteps, engines %s, %d wrong%n", n,
          paths.report().supersteps(), paths.report().placement().engines(), wrong);

      Dataset<Row> balances = spark.range(accounts)
          .selectExpr("id", "CAST(1000 AS BIGINT) AS balance");
      Dataset<Row> transfers = spark.range(accounts * 10).selectExpr("id",
          "CAST(pmod(hash(id, 1), " + accounts + ") AS BIGINT) AS src",
          "CAST(pmod(hash(id, 2), " + accounts + ") AS BIGINT) AS dst",
          "CAST(pmod(hash(id, 3), 100) AS BIGINT) AS amount");
      try (TxState state = TxState.from(balances).key("id").values("balance")
          .partitions(spark.sparkContext().defaultParallelism() >= 2 ? 2 : 1).name("bank")
          .create()) {
        ApplyResult r = state.transactions(transfers, TRANSFER).idColumn("id").run();
        long committed = r.outcomes().where("committed").count();
        long total = state.toDF().agg(org.apache.spark.sql.functions.sum("balance"))
            .first().getLong(0);
        System.out.printf("transfers: %d committed of %d; total %d (expected %d)%n", committed,
            accounts * 10, total, accounts * 1000);
        if (wrong != 0 || total != accounts * 1000) {
          throw new IllegalStateException("wrong answer");
        }
      }
    } finally {
      spark.stop();
    }
  }
}
