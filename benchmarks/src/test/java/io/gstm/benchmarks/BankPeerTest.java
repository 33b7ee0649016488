package io.gstm.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.bench.ResultTable;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.bank.BankConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The peer comparison at a tiny size: both sides verified, the CSV as documented; no timing. */
class BankPeerTest {

  @Test
  void smokeRunVerifiesBothSidesAndWritesTheCsv(@TempDir Path dir) throws Exception {
    Path csv = dir.resolve("out/peer.csv");
    int status = BenchmarksCli.execute("peer", "--accounts", "16,256", "--k", "2",
        "--threads", "2", "--transfers", "3000", "--warmups", "1", "--reps", "2", "--quiet",
        "--out", csv.toString());

    assertThat(status).isZero();
    ResultTable t = ResultTable.readCsv(csv);
    assertThat(t.columns()).isEqualTo(BankPeer.COLUMNS);
    assertThat(t.size()).isEqualTo(2);
    for (int r = 0; r < t.size(); r++) {
      assertThat(t.number(r, "accounts")).isEqualTo(r == 0 ? 16 : 256);
      assertThat(t.number(r, "k")).isEqualTo(2);
      assertThat(t.number(r, "threads")).isEqualTo(2);
      assertThat(t.number(r, "transfers")).isEqualTo(3000);
      assertThat(t.number(r, "reps")).isEqualTo(2);
      assertThat(t.value(r, "gstm_verified")).isEqualTo("true");
      assertThat(t.value(r, "scalastm_verified")).isEqualTo("true");
      assertThat(t.number(r, "gstm_tx_per_s")).isPositive();
      assertThat(t.number(r, "scalastm_tx_per_s")).isPositive();
      assertThat(t.number(r, "ratio")).isCloseTo(
          t.number(r, "gstm_tx_per_s") / t.number(r, "scalastm_tx_per_s"),
          org.assertj.core.data.Percentage.withPercentage(1e-6));
    }
  }

  @Test
  void scalaStmRunsEveryTransferOfTheBatch() {
    // 16 accounts, 8 threads: heavy contention, so ScalaSTM retries; every transfer still lands.
    BankConfig cfg = BankConfig.builder().accounts(16).k(4).readOnly(0).lockCoverage(1)
        .grid(1, 8).txPerThread(500).seed(3).build();
    TxBatch batch = cfg.batch();
    int[] initial = cfg.initialBalances();
    try (ScalaStmBank bank = new ScalaStmBank(8)) {
      var accounts = ScalaStmBank.accounts(initial);
      ScalaStmBank.Run r = bank.run(batch, accounts);
      assertThat(r.commits()).isEqualTo(batch.txCount());
      assertThat(r.attempts()).isGreaterThanOrEqualTo(r.commits());
      int[] after = ScalaStmBank.balances(accounts);
      long[] expected = BankPeer.allCommitted(initial, batch);
      for (int i = 0; i < expected.length; i++) {
        assertThat((long) after[i]).as("account %d", i).isEqualTo(expected[i]);
      }
    }
  }

  @Test
  void samePartitionOfTransfersOnBothSides() {
    // threads * lanes logical threads, one block per worker: worker w owns t = w mod threads.
    BankPeer.Settings s = new BankPeer.Settings(List.of(64), 2, 2, 4, 1000, 0, 1, 1);
    BankConfig cfg = s.bank(64);
    assertThat(cfg.blocks()).isEqualTo(2);
    assertThat(cfg.threadsPerBlock()).isEqualTo(4);
    assertThat(cfg.txCount()).isEqualTo(1000);
  }

  @Test
  void badOptionsNameTheParameterAndTheLimit() {
    assertThat(run("peer", "--threads", "0")).contains("threads must be at least 1, got 0");
    assertThat(run("peer", "--k", "1")).contains("k must be in 2..16");
    assertThat(run("peer", "--lanes", "300")).contains("lanes must be in 1..256");
    assertThat(run("peer", "--accounts", "1")).contains("accounts must each be at least 2");
    assertThat(run("peer", "--reps", "0")).contains("reps must be at least 1");
    assertThatThrownBy(() -> new BankPeer.Settings(List.of(), 2, 2, 1, 10, 0, 1, 1))
        .hasMessageContaining("accounts: give at least one");
  }

  /** Runs the CLI, expecting status 2; returns what it wrote to stderr. */
  private static String run(String... args) {
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      assertThat(BenchmarksCli.execute(args)).isEqualTo(2);
    } finally {
      System.setErr(err);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }
}
