package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;

/**
 * One bank batch run on an engine, with everything the checks need: the batch, the result, the
 * balances before and after, and the verdicts of the verifier and the history checker.
 */
public record BankRun(
    BankConfig config,
    TxBatch batch,
    BatchResult result,
    int[] initial,
    int[] balances,
    Verdict verdict,
    HistoryChecker.Verdict history) {

  /** Runs {@code config}'s batch on a fresh store of {@code engine} with history on. */
  public static BankRun run(Engine engine, BankConfig config) {
    return run(engine, config, config.batch(), RunOptions.defaults().withHistory(true));
  }

  /** Runs {@code config}'s batch on a fresh store of {@code engine}. */
  public static BankRun run(Engine engine, BankConfig config, RunOptions options) {
    return run(engine, config, config.batch(), options);
  }

  public static BankRun run(Engine engine, BankConfig config, TxBatch batch, RunOptions options) {
    try (TxStore store = engine.createStore(config.layout())) {
      int[] initial = config.initialBalances();
      store.writeInt32(0, initial);
      BatchResult r = engine.run(store, batch, options);
      int[] after = store.readInt32(0);
      Verdict v = BankVerifier.verify(initial, batch, r, after);
      HistoryChecker.Verdict h = r.history() == null ? null : HistoryChecker.check(r.history());
      return new BankRun(config, batch, r, initial, after, v, h);
    }
  }

  /** The verifier passed and the recorded history is serializable; this run, for more checks. */
  public BankRun assertCorrect() {
    assertThat(verdict.ok()).as("verifier: %s", verdict).isTrue();
    assertThat(history).as("history recorded").isNotNull();
    assertThat(history.serializable()).as("history: %s", history.violations()).isTrue();
    return this;
  }

  /**
   * Runs {@code config}'s batch with every transaction over a set capacity of 2: each one is too
   * large, and the balances stay as they were.
   */
  public static BankRun assertTooLargeChangesNothing(Engine engine, BankConfig config) {
    BankRun run = run(engine, config, config.batch(2), RunOptions.defaults());
    assertThat(run.result().count(Counter.TOO_LARGE)).isEqualTo(config.txCount());
    assertThat(run.balances()).containsExactly(run.initial());
    return run;
  }
}
