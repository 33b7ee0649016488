package io.gstm.core.workload.bank;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.history.History;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.history.TxRecord;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.testing.BankRun;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A lost update planted into a real run, as a broken STM would leave it: a committed transfer's
 * effect vanishes from the balances, and the history shows it overwrote a version another
 * committed transaction had already overwritten. Both checkers must catch it.
 */
class PlantedLostUpdateTest {

  @Test
  void verifierAndHistoryCheckerBothCatchALostUpdate() {
    BankConfig config = BankConfig.builder().accounts(16).k(2).readOnly(0).lockCoverage(1)
        .grid(32, 2).txPerThread(4).seed(99).build();
    BankRun run;
    try (JvmEngine engine = new JvmEngine(2)) {
      run = BankRun.run(engine, config);
    }
    assertThat(run.verdict().ok()).isTrue();
    assertThat(run.history().serializable()).isTrue();

    // Find two committed transfers that wrote one lock in a row: first produced v, second v + 1.
    History h = run.result().history();
    TxRecord first = null;
    TxRecord second = null;
    int lock = -1;
    outer:
    for (TxRecord a : h.committed()) {
      for (long wa : a.writes()) {
        for (TxRecord b : h.committed()) {
          for (long rb : b.reads()) {
            if (TxRecord.lockOf(rb) == TxRecord.lockOf(wa)
                && TxRecord.versionOf(rb) == TxRecord.versionOf(wa)
                && b.writes().length > 0) {
              first = a;
              second = b;
              lock = TxRecord.lockOf(wa);
              break outer;
            }
          }
        }
      }
    }
    assertThat(second).as("a contended account in 128 transfers over 16 accounts").isNotNull();

    // Plant: the second transfer read the version the first one read (it missed the first's
    // write), so it produced the same version, and its write clobbered the first's delta.
    int plantedLock = lock;
    TxRecord firstTx = first;
    List<TxRecord> planted = new ArrayList<>();
    for (TxRecord r : h.committed()) {
      if (r.txId() != second.txId()) {
        planted.add(r);
        continue;
      }
      long[] reads = r.reads().clone();
      long[] writes = r.writes().clone();
      for (int i = 0; i < reads.length; i++) {
        if (TxRecord.lockOf(reads[i]) == plantedLock) {
          reads[i] = TxRecord.entry(plantedLock, TxRecord.versionOf(reads[i]) - 1);
        }
      }
      for (int i = 0; i < writes.length; i++) {
        if (TxRecord.lockOf(writes[i]) == plantedLock) {
          writes[i] = TxRecord.entry(plantedLock, TxRecord.versionOf(writes[i]) - 1);
        }
      }
      planted.add(new TxRecord(r.txId(), reads, writes));
    }
    History lost = new History(initialVersions(h), planted);
    int[] balances = run.balances().clone();
    TxBatch batch = run.batch();
    int t = firstTx.txId();
    int k = BankWorkload.k(batch);
    int amount = batch.columns()[k][t];
    for (int j = 0; j < k; j++) {
      if (batch.columns()[j][t] == plantedLock) {
        balances[plantedLock] -= j == 0 ? -amount * (k - 1) : amount;
      }
    }

    Verdict verdict =
        BankVerifier.verify(run.initial(), batch, run.result(), balances);
    HistoryChecker.Verdict history = HistoryChecker.check(lost);

    assertThat(verdict.ok()).isFalse();
    assertThat(verdict.problems()).anyMatch(p -> p.startsWith("account " + plantedLock + ":"));
    assertThat(history.serializable()).isFalse();
    assertThat(String.join("\n", history.violations())).containsIgnoringCase("lost update");
  }

  @Test
  void verifierCatchesACommittedTransferWhoseEffectIsMissing() {
    // Two transfers from account 0 to 1, both reported committed, but only one applied.
    int[] initial = {1000, 1000};
    TxBatch batch = new TxBatch(BankWorkload.NAME, new int[] {0, 0},
        new int[][] {{0, 0}, {1, 1}, {10, 5}}, new int[] {2, 0}, 2, 1, 2);
    long[] counters = new long[Counter.COUNT];
    counters[Counter.COMMITS.ordinal()] = 2;
    byte committed = (byte) Outcome.COMMITTED.ordinal();
    BatchResult result = BatchResult.builder("planted", new byte[] {committed, committed})
        .counters(counters).timings(0, 1, 0).build();

    assertThat(BankVerifier.verify(initial, batch, result, new int[] {985, 1015}).ok()).isTrue();
    assertThat(BankVerifier.verify(initial, batch, result, new int[] {995, 1005}).problems())
        .contains("account 0: expected 985, found 995", "account 1: expected 1015, found 1005");
  }

  private static int[] initialVersions(History h) {
    int[] v = new int[h.lockCount()];
    for (int i = 0; i < v.length; i++) {
      v[i] = h.initialVersion(i);
    }
    return v;
  }
}
