package io.gstm.core.workload.ds;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a data-structure batch on an engine and checks it every way there is: the structure's
 * verifier ({@link DsVerifier}) and, when the run recorded its history, the history checker,
 * the model replay in its serial order and the word-for-word serial replay of the programs
 * ({@link ProgramReplay}).
 *
 * @param result the run's outcomes, outputs and counters
 * @param after the store's contents after the batch
 * @param problems what failed, empty when every check passed
 */
public record DsRun(ProgramResult result, long[][] after, List<String> problems) {

  public boolean ok() {
    return problems.isEmpty();
  }

  /** Runs {@code b} on a fresh store of {@code algorithm} and checks it. */
  public static DsRun run(Engine engine, Algorithm algorithm, DsBatch b, RunOptions options) {
    b.cfg().checkAlgorithm(algorithm);
    try (TxStore store = engine.createStore(b.layout(), algorithm)) {
      StoreContents.write(store, b.initial());
      ProgramResult r = engine.run(store, b.batch(), options);
      long[][] after = StoreContents.read(store);
      return new DsRun(r, after, check(b, r, after));
    }
  }

  /** Every check that the run's records allow; empty when all pass. */
  public static List<String> check(DsBatch b, ProgramResult r, long[][] after) {
    List<String> problems = new ArrayList<>();
    int[] order = null;
    if (r.stats().history() != null) {
      HistoryChecker.Verdict h = HistoryChecker.check(r.stats().history());
      if (!h.serializable()) {
        problems.add("history: " + h.violations());
      } else {
        order = h.serialOrder();
        Verdict replay = ProgramReplay.verify(r, b.layout(), b.initial(), after,
            order);
        if (!replay.ok()) {
          problems.add("replay: " + replay.problems());
        }
      }
    }
    DsVerifier.check(b, r, after, order).forEach(p -> problems.add("verifier: " + p));
    return problems;
  }
}
