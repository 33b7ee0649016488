package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.StoreContents;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;

/** Runs of {@link RandomPrograms} cases and the checks every engine's tests make of them. */
public final class RandomProgramRuns {
  private RandomProgramRuns() {}

  /** What one run left: its result and the store after it. */
  public record Run(ProgramResult result, long[][] after) {}

  /** The case's batch on a fresh store of {@code algorithm} holding the case's initial state. */
  public static Run run(Engine engine, RandomPrograms.Case c, Algorithm algorithm,
      RunOptions options) {
    try (TxStore store = engine.createStore(c.layout(), algorithm)) {
      StoreContents.write(store, c.initial());
      ProgramResult r = engine.run(store, c.batch(), options);
      return new Run(r, StoreContents.read(store));
    }
  }

  /**
   * Runs the case ({@code options} must record the history): no transaction outgrew its sets
   * (the checker's bounds size them), the committed history is serializable, and its serial
   * replay reproduces the outputs and the final state.
   */
  public static void assertSerializableAndReplays(Engine engine, RandomPrograms.Case c,
      Algorithm algorithm, RunOptions options) {
    Run run = run(engine, c, algorithm, options);
    ProgramResult r = run.result();
    assertThat(r.outcomeCounts()).doesNotContainKey(Outcome.TOO_LARGE);
    HistoryChecker.Verdict h = HistoryChecker.check(r.stats().history());
    assertThat(h.serializable()).as("%s\n%s", h.violations(), c.text()).isTrue();
    Verdict replay = ProgramReplay.verify(r, c.layout(), c.initial(), run.after(),
        h.serialOrder());
    assertThat(replay.ok()).as("%s\n%s", replay, c.text()).isTrue();
  }

  /** The case on {@code gpu} and on {@code jvm}: the same results and the same final store. */
  public static void assertSameOnBoth(Engine gpu, Engine jvm, RandomPrograms.Case c,
      Algorithm algorithm, RunOptions options) {
    Run g = run(gpu, c, algorithm, options);
    Run j = run(jvm, c, algorithm, options);
    ProgramCases.assertSame(g.result(), j.result());
    assertThat(StoreContents.firstDifference(c.layout(), j.after(), g.after())).as(c.text())
        .isNull();
  }
}
