package io.gstm.core.csmv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.memcached.MemcachedConfig;
import io.gstm.core.workload.memcached.MemcachedVerifier;
import java.util.ArrayList;
import java.util.List;

/** Runs CSMV batches on any engine and checks them; shared by the JVM and GPU tests. */
public final class CsmvRuns {
  private CsmvRuns() {}

  /** What one bank batch did and every check's verdict. */
  public record BankCheck(BatchResult result, Verdict verdict,
      HistoryChecker.Verdict history, List<String> badAudits, int[] balances) {
    public boolean ok() {
      return verdict.ok() && (history == null || history.serializable()) && badAudits.isEmpty();
    }

    /** Every check passed; this check, for more. */
    public BankCheck assertOk() {
      assertThat(ok()).as(toString()).isTrue();
      return this;
    }

    @Override
    public String toString() {
      return "verifier " + verdict + ", history " + history + ", bad audits " + badAudits;
    }
  }

  /** Runs {@code cfg}'s batch with audits over every account on a fresh CSMV store. */
  public static BankCheck bank(Engine engine, Algorithm alg, BankConfig cfg, boolean history) {
    TxBatch batch = cfg.batchWithAuditSpan(cfg.accounts());
    try (TxStore store = engine.createStore(cfg.layout(), alg)) {
      int[] initial = cfg.initialBalances();
      store.writeInt32(0, initial);
      BatchResult r = engine.run(store, batch, RunOptions.defaults().withHistory(history));
      int[] after = store.readInt32(0);
      return check(cfg, batch, r, initial, after);
    }
  }

  /**
   * Runs the bank batch whose audits sum {@code auditSpan} accounts three times on one CSMV store
   * (four versions): each run checks against the balances the one before left.
   */
  public static void assertStoreKeepsStateAcrossBatches(Engine engine, BankConfig cfg,
      int auditSpan) {
    TxBatch batch = cfg.batchWithAuditSpan(auditSpan);
    try (TxStore s = engine.createStore(cfg.layout(), Algorithm.csmv(4))) {
      int[] before = cfg.initialBalances();
      s.writeInt32(0, before);
      for (int i = 0; i < 3; i++) {
        BatchResult r = engine.run(s, batch, RunOptions.defaults());
        int[] after = s.readInt32(0);
        BankCheck c = check(cfg, batch, r, before, after);
        assertThat(c.ok()).as(c.toString()).isTrue();
        before = after;
      }
    }
  }

  /**
   * Runs {@code batch} on a fresh CSMV store of {@code alg} holding {@code cfg}'s balances: it is
   * refused before it runs, with an IllegalArgumentException that says {@code message}, and the
   * balances stay as they were.
   */
  public static void assertRefusedBeforeRunning(Engine engine, Algorithm alg, BankConfig cfg,
      TxBatch batch, String message) {
    try (TxStore s = engine.createStore(cfg.layout(), alg)) {
      s.writeInt32(0, cfg.initialBalances());
      assertThatThrownBy(() -> engine.run(s, batch, RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
      assertThat(s.readInt32(0)).isEqualTo(cfg.initialBalances());
    }
  }

  public static BankCheck check(BankConfig cfg, TxBatch batch, BatchResult r, int[] initial,
      int[] after) {
    long total = (long) cfg.accounts() * BankConfig.INITIAL_BALANCE;
    List<String> bad = new ArrayList<>();
    for (int t = 0; t < batch.txCount(); t++) {
      if (BankWorkload.Type.AUDIT.is(batch.types()[t]) && r.outcome(t) == Outcome.COMMITTED
          && r.results()[t] != total && bad.size() < 10) {
        bad.add("audit " + t + " saw " + r.results()[t] + " at snapshot " + r.stamps()[t]
            + ", the total is " + total);
      }
    }
    Verdict v = BankVerifier.verify(initial, batch, r, after);
    HistoryChecker.Verdict h = r.history() == null ? null : HistoryChecker.check(r.history());
    return new BankCheck(r, v, h, bad, after);
  }

  /** What one memcached batch did and the verifier's verdict. */
  public record CacheCheck(BatchResult result, Verdict verdict) {}

  public static CacheCheck memcached(Engine engine, Algorithm alg, MemcachedConfig cfg) {
    TxBatch batch = cfg.batch();
    try (TxStore store = engine.createStore(cfg.layout(), alg)) {
      int[][] initial = cfg.initialState();
      for (int r = 0; r < initial.length; r++) {
        store.writeInt32(r, initial[r]);
      }
      BatchResult res = engine.run(store, batch, RunOptions.defaults());
      int[][] after = new int[initial.length][];
      for (int r = 0; r < initial.length; r++) {
        after[r] = store.readInt32(r);
      }
      return new CacheCheck(res, MemcachedVerifier.verify(initial, batch, res, after));
    }
  }
}
