package io.gstm.core.testing;

import io.gstm.core.batch.BatchResult;
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
}
