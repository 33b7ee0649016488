package io.gstm.core.workload.bank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.testing.SemanticBankRun;
import io.gstm.core.testing.SemanticCases;
import io.gstm.core.testing.SharedEngines;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The semantic contention manager on the JVM engine: deposits, withdrawals and checked transfers
 * under both policies, with and without pre-sorting. Every committed withdrawal saw enough money
 * (replayed in the history's serial order), balances are exact, nothing goes negative.
 */
class SemanticBankJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(4);

  /** Small batches: each thread owns at most 32 transactions (one postponement window). */
  static Stream<Arguments> cases() {
    return SemanticCases.cases(1, new double[] {0, 0.25, 0.5, 1}, new int[] {16, 64, 1024},
        (ratio, accounts, seed) -> SemanticBankConfig.builder().accounts(accounts).k(2)
            .semanticRatio(ratio).lockCoverage(accounts == 64 ? 4 : 1).grid(64, 2)
            .txPerThread(1 + (int) (seed % 16)).seed(seed).build());
  }

  @ParameterizedTest
  @MethodSource("cases")
  void everyCommittedWithdrawalSawEnoughMoney(SemanticBankConfig cfg, SemanticPolicy policy,
      boolean presort) {
    TxBatch batch = SemanticCases.presortedIf(presort, cfg.batch(), BankWorkload.INSTANCE);
    SemanticBankRun run = SemanticBankRun.run(engines.jvm(), cfg, batch,
        RunOptions.defaults().withHistory(true).withPolicy(policy));

    assertThat(run.correct()).as("%s", run).isTrue();
    if (policy == SemanticPolicy.POSTPONE) {
      // Every withdrawal's deposit is in the batch: postponing long enough commits everything.
      assertThat(run.result().commits()).as("%s", describeUncommitted(run))
          .isEqualTo(cfg.txCount());
    }
  }

  private static String describeUncommitted(SemanticBankRun run) {
    StringBuilder sb = new StringBuilder();
    TxBatch b = run.batch();
    for (int t = 0; t < b.txCount(); t++) {
      if (run.result().outcome(t) != Outcome.COMMITTED) {
        int acct = b.columns()[0][t];
        sb.append(String.format("%ntx %d type %d account %d amount %d: %s after %d, final %d",
            t, b.types()[t], acct, b.columns()[b.columns().length - 1][t], run.result().outcome(t),
            run.result().semanticConflicts()[t], run.balances()[acct]));
      }
    }
    return sb.toString();
  }

  @Test
  void postponementsAreCountedPerTransaction() {
    SemanticBankConfig cfg = SemanticBankConfig.builder().accounts(64).k(2).semanticRatio(1)
        .lockCoverage(1).grid(32, 2).txPerThread(16).seed(3).build();
    SemanticBankRun run = SemanticBankRun.run(engines.jvm(), cfg, cfg.batch(),
        RunOptions.defaults().withHistory(true));
    assertThat(run.correct()).isTrue();
    long postponed = IntStream.range(0, cfg.txCount())
        .filter(t -> run.result().semanticConflicts()[t] > 0).count();
    long committedAfterPostponing = IntStream.range(0, cfg.txCount())
        .filter(t -> run.result().semanticConflicts()[t] > 0
            && run.result().outcome(t) == Outcome.COMMITTED).count();
    assertThat(postponed).as("withdrawals placed before their deposits").isPositive();
    assertThat(committedAfterPostponing).isEqualTo(postponed);
    assertThat(run.result().count(Counter.SEMANTIC_CONFLICTS))
        .isEqualTo(IntStream.of(run.result().semanticConflicts()).asLongStream().sum());
    // Only withdrawals (and checked transfers) can meet a semantic conflict.
    for (int t = 0; t < cfg.txCount(); t++) {
      if (BankWorkload.Type.DEPOSIT.is(run.batch().types()[t])) {
        assertThat(run.result().semanticConflicts()[t]).isZero();
      }
    }
  }



  @Test
  void anImpossibleTransactionIsAbandonedAndTheRestCommit() {
    // Accounts 0..3 start at 100; tx 5 withdraws 1,000,000 from account 3: never possible;
    // every other withdrawal and transfer is possible in any order.
    for (BatchResult r : SemanticBankRun.assertImpossibleWithdrawalAbandoned(engines.jvm())) {
      assertThat(r.count(Counter.ABANDONED_SEMANTIC)).isEqualTo(1);
    }
  }

  @Test
  @Timeout(60)
  void aWaitInVainEndsWithoutItsSemanticLimit() {
    // Tx 5 withdraws 1,000,000 from account 3 and no deposit will ever cover it. With no
    // semantic limit to speak of, the wait must be found in vain once every other transaction
    // has finished (this hung before: a lane postponed it 10^9 times).
    TxBatch batch = SemanticBankRun.impossibleWithdrawalBatch();
    SemanticBankConfig cfg = SemanticBankRun.impossibleWithdrawalConfig();
    try (var store = engines.jvm().createStore(cfg.layout())) {
      int[] initial = SemanticBankRun.impossibleWithdrawalBalances();
      store.writeInt32(0, initial);
      var r = engines.jvm().run(store, batch,
          RunOptions.defaults().withPolicy(SemanticPolicy.POSTPONE)
          .withSemanticLimit(Integer.MAX_VALUE));
      assertThat(r.outcome(5)).isEqualTo(Outcome.ABANDONED_SEMANTIC);
      assertThat(r.count(Counter.ABANDONED_SEMANTIC)).isEqualTo(1);
      assertThat(r.commits()).isEqualTo(7);
      assertThat(BankVerifier.verify(initial, batch, r, store.readInt32(0)).ok()).isTrue();
    }
  }

  @Test
  void presortRunsDepositsFirstAndChecksItsTagTable() {
    SemanticBankConfig cfg = SemanticBankConfig.builder().accounts(64).k(2).semanticRatio(1)
        .lockCoverage(1).grid(32, 1).txPerThread(4).seed(9).build();
    TxBatch sorted = TxBatches.presort(cfg.batch(), BankWorkload.INSTANCE.orderingTags());
    int deposits = (int) IntStream.of(sorted.types()).filter(t -> BankWorkload.Type.DEPOSIT.is(t))
        .count();
    assertThat(IntStream.range(0, deposits).map(t -> sorted.types()[t]))
        .containsOnly(BankWorkload.Type.DEPOSIT.code());
    assertThatThrownBy(() -> TxBatches.presort(cfg.batch(), new int[] {0, 0, 1}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tags")
        .hasMessageContaining("type 3");
  }

  @Test
  void badSemanticInputIsRejected() {
    assertThatThrownBy(() -> RunOptions.defaults().withSemanticLimit(0))
        .hasMessageContaining("semanticLimit");
    assertThatThrownBy(() -> SemanticPolicy.parse("wait")).hasMessageContaining("'wait'")
        .hasMessageContaining("retry-in-place");
    assertThatThrownBy(() -> SemanticBankConfig.builder().accounts(64).k(2).semanticRatio(1.5)
        .lockCoverage(1).grid(32, 1).txPerThread(1).seed(1).build())
        .hasMessageContaining("semanticRatio");
    SemanticBankConfig cfg = SemanticBankConfig.builder().accounts(64).k(2).semanticRatio(0.5)
        .lockCoverage(1).grid(32, 1).txPerThread(2).seed(1).build();
    TxBatch good = cfg.batch();
    int[] types = good.types().clone();
    types[0] = 9;
    TxBatch bad = new TxBatch(good.workload(), types, good.columns(), good.params(),
        good.threadsPerBlock(), good.blocks(), good.capacity());
    try (var store = engines.jvm().createStore(cfg.layout())) {
      store.writeInt32(0, cfg.initialBalances());
      assertThatThrownBy(() -> engines.jvm().run(store, bad, RunOptions.defaults()))
          .hasMessageContaining("types[0] = 9");
      assertThat(store.readInt32(0)).containsExactly(cfg.initialBalances());
    }
  }
}
