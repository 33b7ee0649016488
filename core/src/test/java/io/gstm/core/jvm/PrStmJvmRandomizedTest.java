package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.testing.BankMatrix;
import io.gstm.core.testing.BankRun;
import io.gstm.core.testing.Seeds;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankWorkload;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * PR-STM on the JVM engine over seeded random bank batches: every batch passes the exact verifier
 * and the history checker, and every transaction commits.
 */
class PrStmJvmRandomizedTest {
  // More workers than cores: preemption in the middle of a commit makes conflicts likelier.
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(4);

  static Stream<BankConfig> matrix() {
    return BankMatrix.configs(20261122L, 120).stream();
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void randomBatchIsVerifiedAndSerializable(BankConfig config) {
    BankRun run = BankRun.run(engines.jvm(), config).assertCorrect();
    assertThat(run.result().commits()).isEqualTo(config.txCount());
    assertThat(IntStream.range(0, config.txCount()).mapToObj(t -> run.result().outcome(t)))
        .containsOnly(Outcome.COMMITTED);
  }

  @Test
  void highContentionReallyConflicts() {
    // Conflicts need two workers running at once, which a loaded 2-core machine may deny to any
    // one batch: run hot batches until one conflicts (each is verified), up to a generous bound.
    long aborts = Seeds.sumUntilPositive(400, seed -> BankRun.run(engines.jvm(),
        BankConfig.builder().accounts(8).k(4).readOnly(0.1).lockCoverage(1).grid(64, 4)
            .txPerThread(64).seed(seed).build()).assertCorrect().result().aborts());
    // Without conflicts the randomized suite would prove little.
    assertThat(aborts).as("aborts over up to 400 hot batches").isPositive();
  }

  @Test
  void auditsOfAllAccountsSeeTheInvariantTotal() {
    // k = accounts: every audit sums the whole bank, which transfers never change.
    BankConfig all = BankConfig.builder().accounts(8).k(8).readOnly(0.5).lockCoverage(1).grid(64, 4)
        .txPerThread(16).seed(7).build();
    BankRun run = BankRun.run(engines.jvm(), all);
    assertThat(run.verdict().ok()).isTrue();
    for (int t = 0; t < all.txCount(); t++) {
      if (BankWorkload.Type.AUDIT.is(run.batch().types()[t])) {
        assertThat(run.result().results()[t]).isEqualTo(8L * BankConfig.INITIAL_BALANCE);
      }
    }
    assertThat(run.result().count(Counter.READ_ONLY_COMMITS)).isPositive();
  }
}
