package io.gstm.spark.state;

import static io.gstm.spark.state.TxStateTest.BANK;
import static io.gstm.spark.state.TxStateTest.accounts;
import static io.gstm.spark.state.TxStateTest.transfers;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.function.VoidFunction2;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.Trigger;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Structured Streaming query that applies each micro-batch of transfer files to a TxState
 * through {@code foreachBatch}: stopped mid-stream (possibly between an apply and the commit
 * of its batch) and restarted from its checkpoint location, it applies every transfer exactly
 * once. Balances are large, so transfers never overdraw and commute: each account must end at
 * its opening balance plus all transfers into it minus all out of it, and a batch applied twice
 * (or not at all) would show.
 */
class TxStateStreamingTest extends StateSession {
  private static final int FILES = 6;
  private static final int ACCOUNTS = 30;

  @Test
  void aQueryStoppedMidStreamAndRestartedAppliesEveryBatchOnce(@TempDir Path dir)
      throws Exception {
    SparkSession spark = TxStateTest.spark;
    Path in = Files.createDirectories(dir.resolve("in"));
    Map<Long, Long> expected = new HashMap<>();
    for (Row r : accounts(ACCOUNTS, 1_000_000).collectAsList()) {
      expected.put(r.getLong(0), r.getLong(1));
    }
    for (int f = 0; f < FILES; f++) {
      Dataset<Row> part = transfers(40, ACCOUNTS, 50, 100 + f, 1_000L * f, false);
      part.coalesce(1).write().json(in.resolve("part-" + f).toString());
      for (Row r : part.collectAsList()) {
        if (r.getLong(1) != r.getLong(2)) {
          expected.merge(r.getLong(1), -r.getLong(3), Long::sum);
          expected.merge(r.getLong(2), r.getLong(3), Long::sum);
        }
      }
    }
    StructType schema = transfers(1, ACCOUNTS, 1, 1, 0, false).schema();
    String checkpoint = dir.resolve("chk").toString();
    try (TxState bank = TxState.from(accounts(ACCOUNTS, 1_000_000)).key("id").partitions(2)
        .create()) {
      VoidFunction2<Dataset<Row>, Long> apply = (batch, id) ->
          bank.transactions(batch, BANK).batchId(id).run();
      // First run: one file per micro-batch, stopped once two batches are in.
      StreamingQuery first = query(spark, schema, in, checkpoint, apply, Trigger.ProcessingTime(
          100, TimeUnit.MILLISECONDS));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (bank.appliedBatchIds().size() < 2 && System.nanoTime() < deadline) {
        assertThat(first.exception().isEmpty()).as("the first run failed: %s",
            first.exception()).isTrue();
        Thread.sleep(20);
      }
      first.stop();
      int appliedBeforeStop = bank.appliedBatchIds().size();
      assertThat(appliedBeforeStop).as("batches applied before the stop").isBetween(2, FILES - 1);
      // Second run, from the same checkpoint: the rest, and the last batch again if its commit
      // had not been recorded when the query stopped (the batch id makes that apply a no-op).
      StreamingQuery second = query(spark, schema, in, checkpoint, apply, Trigger.AvailableNow());
      second.awaitTermination();
      assertThat(bank.appliedBatchIds()).containsExactlyInAnyOrderElementsOf(
          List.of(0L, 1L, 2L, 3L, 4L, 5L));
      Map<Long, Long> actual = new HashMap<>();
      for (Row r : bank.toDF().collectAsList()) {
        actual.put(r.getLong(0), r.getLong(1));
      }
      assertThat(actual).isEqualTo(expected);
    }
  }

  private static StreamingQuery query(SparkSession spark, StructType schema, Path in,
      String checkpoint, VoidFunction2<Dataset<Row>, Long> apply, Trigger trigger)
      throws Exception {
    return spark.readStream().schema(schema).option("maxFilesPerTrigger", 1)
        .json(in.resolve("part-*").toString()).writeStream()
        .option("checkpointLocation", checkpoint).trigger(trigger).foreachBatch(apply).start();
  }
}
