package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.bank.SemanticBankConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/** One semantic bank batch on an engine, with the verifier, replay and history verdicts. */
public record SemanticBankRun(
    TxBatch batch,
    BatchResult result,
    int[] initial,
    int[] balances,
    Verdict verdict,
    HistoryChecker.Verdict history,
    Verdict replay) {

  public static SemanticBankRun run(Engine engine, SemanticBankConfig config, TxBatch batch,
      RunOptions options) {
    try (TxStore store = engine.createStore(config.layout())) {
      int[] initial = config.initialBalances();
      store.writeInt32(0, initial);
      BatchResult r = engine.run(store, batch, options);
      int[] after = store.readInt32(0);
      HistoryChecker.Verdict h = r.history() == null ? null : HistoryChecker.check(r.history());
      Verdict replay = h == null || !h.serializable() ? null
          : BankVerifier.replay(initial, batch, h.serialOrder());
      return new SemanticBankRun(batch, r, initial, after,
          BankVerifier.verify(initial, batch, r, after), h, replay);
    }
  }

  /** Everything that must hold for any policy: exact balances, serializable, enough money. */
  public boolean correct() {
    return verdict.ok() && (history == null || history.serializable())
        && (replay == null || replay.ok()) && noNegativeBalance();
  }

  private boolean noNegativeBalance() {
    for (int b : balances) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return "verifier " + verdict + ", history "
        + (history == null ? "-" : history.violations()) + ", replay " + replay;
  }

  /**
   * Runs {@link #impossibleWithdrawalBatch()} on {@code engine} under each policy with a semantic
   * limit of 300: tx 5 is abandoned, every other transaction commits and the balances verify.
   * The results, one a policy.
   */
  public static List<BatchResult> assertImpossibleWithdrawalAbandoned(Engine engine) {
    TxBatch batch = impossibleWithdrawalBatch();
    List<BatchResult> results = new ArrayList<>();
    try (TxStore store = engine.createStore(impossibleWithdrawalConfig().layout())) {
      int[] initial = impossibleWithdrawalBalances();
      for (SemanticPolicy policy : SemanticPolicy.values()) {
        store.writeInt32(0, initial);
        BatchResult r = engine.run(store, batch,
            RunOptions.defaults().withPolicy(policy).withSemanticLimit(300));
        assertThat(IntStream.range(0, 8).mapToObj(r::outcome).toList())
            .as("policy %s", policy)
            .containsExactly(Outcome.COMMITTED, Outcome.COMMITTED, Outcome.COMMITTED,
                Outcome.COMMITTED, Outcome.COMMITTED, Outcome.ABANDONED_SEMANTIC,
                Outcome.COMMITTED, Outcome.COMMITTED);
        // Ended by its limit or, sooner, as a wait in vain (nothing else is left to run).
        assertThat(r.semanticConflicts()[5]).isBetween(1, 300);
        assertThat(BankVerifier.verify(initial, batch, r, store.readInt32(0)).ok()).isTrue();
        results.add(r);
      }
    }
    return results;
  }

  /** The balances of {@link #impossibleWithdrawalBatch()}'s four accounts. */
  public static int[] impossibleWithdrawalBalances() {
    return new int[] {100, 100, 100, 100};
  }

  /** A configuration of {@link #impossibleWithdrawalBatch()}'s store. */
  public static SemanticBankConfig impossibleWithdrawalConfig() {
    return SemanticBankConfig.builder().accounts(4).k(1).semanticRatio(1).lockCoverage(1)
        .grid(4, 1).txPerThread(2).seed(0).build();
  }

  /**
   * Accounts 0..3 at 100 each: tx 5 withdraws 1,000,000 from account 3, never possible; every
   * other withdrawal and transfer is possible in any order.
   */
  public static TxBatch impossibleWithdrawalBatch() {
    int[] types = {2, 3, 0, 2, 3, 3, 0, 2};
    int[][] cols = {{0, 0, 1, 2, 2, 3, 1, 1}, {0, 0, 0, 0, 0, 0, 3, 0},
        {10, 110, 50, 5, 105, 1_000_000, 20, 1}};
    return new TxBatch(BankWorkload.NAME, types, cols, new int[] {2, 0, 1}, 4, 1, 2);
  }
}
