package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SemanticBankRun;
import io.gstm.core.testing.SemanticCases;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.bank.SemanticBankConfig;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The semantic contention manager on the GPU: the same seeded semantic bank batches as on the JVM
 * engine, both policies, with and without pre-sorting; exact balances, serializable histories,
 * every committed withdrawal saw enough money, and with postponement both engines commit
 * everything and end with identical balances.
 */
@EnabledIfGpu
class CudaSemanticBankTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(4);

  static Stream<Arguments> cases() {
    return SemanticCases.cases(100, new double[] {0, 0.25, 0.5, 1},
        new int[] {16, 256, 100_000}, (ratio, accounts, seed) -> SemanticBankConfig.builder()
            .accounts(accounts).k(2).semanticRatio(ratio).lockCoverage(accounts == 256 ? 8 : 1)
            .grid(128, 4).txPerThread(1 + (int) (seed % 32)).seed(seed).build());
  }

  @ParameterizedTest
  @MethodSource("cases")
  void sameBatchBothEnginesCorrect(SemanticBankConfig cfg, SemanticPolicy policy,
      boolean presort) {
    TxBatch batch = SemanticCases.presortedIf(presort, cfg.batch(), BankWorkload.INSTANCE);
    RunOptions options = RunOptions.defaults().withHistory(true).withPolicy(policy);
    SemanticBankRun onGpu = SemanticBankRun.run(engines.gpu(), cfg, batch, options);
    SemanticBankRun onJvm = SemanticBankRun.run(engines.jvm(), cfg, batch, options);

    assertThat(onGpu.correct()).as("GPU: %s", onGpu).isTrue();
    assertThat(onJvm.correct()).as("JVM: %s", onJvm).isTrue();
    assertThat(onGpu.result().count(Counter.SEMANTIC_CONFLICTS))
        .isEqualTo(IntStream.of(onGpu.result().semanticConflicts()).asLongStream().sum());
    if (policy == SemanticPolicy.POSTPONE) {
      assertThat(onGpu.result().commits()).isEqualTo(cfg.txCount());
      assertThat(onJvm.result().commits()).isEqualTo(cfg.txCount());
      assertThat(onGpu.balances()).containsExactly(onJvm.balances());
    }
  }

  @Test
  void anImpossibleTransactionIsAbandonedAndTheRestCommit() {
    SemanticBankRun.assertImpossibleWithdrawalAbandoned(engines.gpu());
  }

  @Test
  void aHopelessWaitEndsAsOnTheJvmEngineWithoutItsLimit() {
    // The same hopeless batch (tx 5 can never withdraw its 1,000,000) with no semantic limit to
    // speak of: both engines find the wait in vain and end the same transactions the same way.
    TxBatch batch = SemanticBankRun.impossibleWithdrawalBatch();
    SemanticBankConfig cfg = SemanticBankRun.impossibleWithdrawalConfig();
    int[] initial = SemanticBankRun.impossibleWithdrawalBalances();
    try (JvmEngine jvm = new JvmEngine(2);
        TxStore onGpu = engines.gpu().createStore(cfg.layout());
        TxStore onJvm = jvm.createStore(cfg.layout())) {
      for (SemanticPolicy policy : SemanticPolicy.values()) {
        RunOptions options = RunOptions.defaults().withPolicy(policy)
            .withSemanticLimit(Integer.MAX_VALUE);
        onGpu.writeInt32(0, initial);
        onJvm.writeInt32(0, initial);
        var g = engines.gpu().run(onGpu, batch, options);
        var j = jvm.run(onJvm, batch, options);
        assertThat(g.outcome(5)).as("%s", policy).isEqualTo(Outcome.ABANDONED_SEMANTIC);
        assertThat(IntStream.range(0, 8).mapToObj(g::outcome).toList()).as("%s", policy)
            .isEqualTo(IntStream.range(0, 8).mapToObj(j::outcome).toList());
        assertThat(onGpu.readInt32(0)).isEqualTo(onJvm.readInt32(0));
        assertThat(BankVerifier.verify(initial, batch, g, onGpu.readInt32(0)).ok()).isTrue();
      }
    }
  }

  @Test
  void paperSizedSemanticBatchCommitsEverythingWithPostponement() {
    // 6720 threads, 32 transactions each, 100% semantic over 2.6 M accounts.
    SemanticBankConfig cfg = SemanticBankConfig.builder().accounts(2_621_440).k(2).semanticRatio(1)
        .lockCoverage(1).grid(224, 30).txPerThread(32).seed(5).build();
    SemanticBankRun run =
        SemanticBankRun.run(engines.gpu(), cfg, cfg.batch(), RunOptions.defaults());
    assertThat(run.correct()).as("%s", run).isTrue();
    assertThat(run.result().commits()).isEqualTo(cfg.txCount());
    assertThat(run.result().count(Counter.SEMANTIC_CONFLICTS)).isPositive();
  }
}
