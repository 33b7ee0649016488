package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.testing.StarvationCase;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Progress for every transaction (docs/design.md, "Progress"): a transaction that keeps losing
 * turns urgent and then wins.
 */
class ProgressJvmTest {
  /** Far below {@link RunOptions#DEFAULT_MAX_RETRIES}, above the default urgentAfter. */
  static final int RETRY_LIMIT = 24;

  /**
   * The interleaving that starves a reader, played out by hand so that it does not depend on how
   * the machine schedules threads: between each read of an audit and its commit, an increment of
   * a word it read commits. Under the static rule the audit loses every attempt; once it turns
   * urgent (as the executor makes it after {@code urgentAfter} losses) its reads are visible,
   * the increment is refused, and the audit commits.
   */
  @Test
  void anAuditInvalidatedEveryTimeCommitsOnceUrgent() {
    JvmTxStore s = new JvmTxStore(null,
        StoreLayout.of(new RegionSpec("hot", RegionType.INT64, 16, 1)));
    JvmPrStmTx audit = new JvmPrStmTx(s, 16);
    JvmPrStmTx bump = new JvmPrStmTx(s, 16);
    int ordinaryAudit = Priority.ordinary(1000); // the highest id: ranks last
    for (int attempt = 1; attempt <= 1000; attempt++) {
      audit.begin(ordinaryAudit);
      long total = 0;
      for (int i = 0; i < 16; i++) {
        total += audit.read(0, i);
      }
      bump.begin(Priority.ordinary(0));
      bump.write(0, attempt % 16, bump.read(0, attempt % 16) + 1);
      assertThat(bump.commit()).as("attempt %d: the increment wins", attempt).isTrue();
      assertThat(audit.commit()).as("attempt %d: the audit loses", attempt).isFalse();
      assertThat(total).isEqualTo(attempt - 1);
    }
    audit.begin(Priority.urgent(new AtomicLong()));
    long total = 0;
    for (int i = 0; i < 16; i++) {
      total += audit.read(0, i);
    }
    bump.begin(Priority.ordinary(0));
    bump.write(0, 3, bump.read(0, 3) + 1);
    assertThat(bump.commit()).as("refused by the urgent audit's pre-lock").isFalse();
    assertThat(bump.abortCause()).isEqualTo(Counter.ABORT_PRELOCK_REFUSED);
    assertThat(audit.commit()).isTrue();
    assertThat(total).isEqualTo(1000);
    for (int i = 0; i < 16; i++) {
      assertThat(LockWord.preLocked(s.locks.get(i))).as("lock %d released", i).isFalse();
    }
  }

  /**
   * The same through the engine: slow audits of 16 hot words on the highest thread ids among
   * 40,000 increments, with a retry limit of {@value #RETRY_LIMIT}. Nothing is abandoned. How
   * often an audit loses depends on how many workers really run at once (two cores here, shared
   * with whatever else runs): with the urgent mode off, 4 of 6 such batches abandoned 142 to 691
   * transactions on this machine (load 5-6), and none with it on.
   */
  @Test
  void starvedAuditsCommitWithALowRetryLimit() {
    try (JvmEngine engine = new JvmEngine(4)) {
      for (int batch = 0; batch < 3; batch++) {
        StarvationCase run = StarvationCase.run(engine, 40_000, 32, 400, 32, 4,
            RunOptions.defaults().withMaxRetries(RETRY_LIMIT));
        assertThat(run.result().outcomeCounts()).as("outcomes of batch %d", batch)
            .containsOnlyKeys(Outcome.COMMITTED);
        assertThat(run.conserved()).isTrue();
        assertThat(run.auditsConsistent()).isTrue();
      }
    }
  }
}
