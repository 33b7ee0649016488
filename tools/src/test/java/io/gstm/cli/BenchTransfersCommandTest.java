package io.gstm.cli;

import static io.gstm.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code gstm bench-transfers}: every batch timed and split, the accounts checked; low balances
 * make transfers overdraw (user aborts), which the check leaves out; bad input is status 2.
 */
class BenchTransfersCommandTest {
  @Test
  void runsTheBatchesAndChecksEveryAccount() {
    String out = run(0, "bench-transfers", "--engine", "jvm", "--accounts", "1000",
        "--transfers", "60000", "--batches", "3", "--warmup-batches", "1");
    assertThat(out).contains("60,000 transfers over 1,000 accounts in 3 batches on jvm",
        "  batch 3: 20,000 transfers", "total: 60,000 transfers", "upload", "kernel",
        "verifier: OK");
  }

  @Test
  void transfersThatWouldOverdrawAbortAndStillBalance() {
    String out = run(0, "bench-transfers", "--engine", "jvm", "--accounts", "50",
        "--transfers", "20000", "--batches", "2", "--balance", "10", "--max-amount", "20");
    assertThat(out).contains("verifier: OK").doesNotContain("20,000 committed");
  }

  @Test
  void theVerifierNamesTheFirstWrongAccount() {
    assertThat(BenchTransfersCommand.verify(new long[] {5, 7, 9}, new long[] {5, 8, 9}))
        .isEqualTo("MISMATCH: account 1 holds 7, the committed transfers leave it 8");
    assertThat(BenchTransfersCommand.verify(new long[] {5}, new long[] {5})).startsWith("OK");
  }

  @Test
  void badInputNamesTheParameter() {
    assertThat(run(2, "bench-transfers", "--engine", "jvm", "--transfers", "3", "--batches",
        "4")).contains("--transfers 3 is fewer than --batches 4");
    assertThat(run(2, "bench-transfers", "--engine", "jvm", "--accounts", "0"))
        .contains("accounts must be at least 1, got 0");
    assertThat(run(2, "bench-transfers", "--engine", "jvm", "--max-amount", "0"))
        .contains("max-amount must be at least 1, got 0");
  }
}
