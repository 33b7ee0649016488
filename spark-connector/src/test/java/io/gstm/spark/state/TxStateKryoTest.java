package io.gstm.spark.state;

import static io.gstm.spark.state.TxStateTest.BANK;
import static io.gstm.spark.state.TxStateTest.LONGS;
import static io.gstm.spark.state.TxStateTest.accounts;
import static io.gstm.spark.state.TxStateTest.assertReplays;
import static io.gstm.spark.state.TxStateTest.total;
import static io.gstm.spark.state.TxStateTest.transfers;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A session whose {@code spark.serializer} is Kryo, as many Spark jobs set it: the routed
 * transactions (their columns travel as raw bytes) cross the shuffle whole, with either
 * exchange and with one partition, and the applies equal a serial replay.
 */
class TxStateKryoTest {
  @BeforeAll
  static void start() {
    TxStateTest.spark = TxStateTest.session("spark.master", "local[4,4]",
        "spark.serializer", "org.apache.spark.serializer.KryoSerializer");
  }

  @AfterAll
  static void stop() {
    TxStateTest.spark.stop();
  }

  @ParameterizedTest(name = "{0} partition(s), {1}")
  @CsvSource({"1, auto", "2, mesh", "3, jobs"})
  void transfersThroughAKryoShuffleEqualTheSerialReplay(int partitions, String exchange) {
    try (TxState bank = TxState.from(accounts(64, 100)).key("id").partitions(partitions)
        .create()) {
      long total = total(bank);
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      Dataset<Row> txs = transfers(400, 64, 150, partitions, 0, true);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true)
          .exchange(exchange).run();
      assertThat(r.transactions()).isEqualTo(400);
      assertThat(r.outcomeCounts().get("MISSING_KEY")).isEqualTo(8);
      assertThat(total(bank)).isEqualTo(total);
      TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
      assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
    }
  }
}
