package io.gstm.core.testing;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.SemanticBankConfig;

/** One semantic bank batch on an engine, with the verifier, replay and history verdicts. */
public record SemanticBankRun(
    TxBatch batch,
    BatchResult result,
    int[] initial,
    int[] balances,
    BankVerifier.Verdict verdict,
    HistoryChecker.Verdict history,
    BankVerifier.Verdict replay) {

  public static SemanticBankRun run(Engine engine, SemanticBankConfig config, TxBatch batch,
      RunOptions options) {
    try (TxStore store = engine.createStore(config.layout())) {
      int[] initial = config.initialBalances();
      store.writeInt32(0, initial);
      BatchResult r = engine.run(store, batch, options);
      int[] after = store.readInt32(0);
      HistoryChecker.Verdict h = r.history() == null ? null : HistoryChecker.check(r.history());
      BankVerifier.Verdict replay = h == null || !h.serializable() ? null
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
}
