package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.testing.BankRun;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.Seeds;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.testing.StarvationCase;
import io.gstm.core.workload.bank.BankConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Progress for every transaction on the GPU (docs/design.md, "Progress"): with a retry limit far
 * below the default, hot batches abandon nothing, and the same starving batch without the urgent
 * mode does abandon (so the test would fail if the guarantee were removed).
 */
@EnabledIfGpu
class CudaProgressTest {
  /** Far below {@link RunOptions#DEFAULT_MAX_RETRIES} (a million). */
  static final int RETRY_LIMIT = 128;
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpu();

  private static StarvationCase starve(RunOptions options) {
    return StarvationCase.run(engines.gpu(), 400_000, 64, 2_000, 256, 132, options);
  }

  @Test
  void starvedAuditsCommitWithALowRetryLimit() {
    StarvationCase run = starve(RunOptions.defaults().withMaxRetries(RETRY_LIMIT));
    assertThat(run.result().outcomeCounts()).containsOnlyKeys(Outcome.COMMITTED);
    assertThat(run.conserved()).isTrue();
    assertThat(run.auditsConsistent()).isTrue();
    assertThat(run.result().stats().count(Counter.URGENT)).isPositive();
  }

  @Test
  void withoutTheUrgentModeTheSameBatchAbandons() {
    StarvationCase run = starve(
        RunOptions.defaults().withMaxRetries(RETRY_LIMIT).withUrgentAfter(Integer.MAX_VALUE));
    assertThat(run.result().outcomeCounts()).containsKey(Outcome.ABANDONED);
    assertThat(run.conserved()).as("abandoned increments change nothing").isTrue();
    assertThat(run.result().stats().count(Counter.URGENT)).isZero();
  }

  @Test
  void theBankBatchThatOnceStarvedAbandonsNothing() {
    // The configuration of the starvation seen on the H100 (32 accounts, k = 8, 50% read-only,
    // 128 x 8 threads, 5 transactions each), over 20 seeds, with the low retry limit.
    long urgent = Seeds.sum(20, seed -> {
      BankConfig hot = BankConfig.builder().accounts(32).k(8).readOnly(0.5).lockCoverage(1)
          .grid(128, 8).txPerThread(5).seed(seed).build();
      BatchResult r = BankRun.run(engines.gpu(), hot,
          RunOptions.defaults().withHistory(true).withMaxRetries(RETRY_LIMIT)).assertCorrect()
          .result();
      assertThat(r.count(Counter.ABANDONED)).as("seed %d", seed).isZero();
      assertThat(r.commits()).isEqualTo(hot.txCount());
      return r.count(Counter.URGENT);
    });
    assertThat(urgent).as("urgent transactions over 20 seeds").isPositive();
  }
}
