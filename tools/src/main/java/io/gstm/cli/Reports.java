package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.history.History;
import io.gstm.core.history.HistoryChecker;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/** How the CLI prints what a batch did. */
final class Reports {
  private Reports() {}

  static void printOutcome(BatchResult r) {
    long postponedThenCommitted = 0;
    for (int t = 0; t < r.outcomes().length; t++) {
      if (r.semanticConflicts()[t] > 0 && r.outcome(t) == Outcome.COMMITTED) {
        postponedThenCommitted++;
      }
    }
    System.out.printf("committed: %,d (%,d read-only, %,d after semantic conflicts), "
            + "abandoned %,d (conflicts) + %,d (semantic), too large %,d%n",
        r.commits(), r.count(Counter.READ_ONLY_COMMITS), postponedThenCommitted,
        r.count(Counter.ABANDONED), r.count(Counter.ABANDONED_SEMANTIC),
        r.count(Counter.TOO_LARGE));
    System.out.printf("throughput: %.3f M committed tx/s (%.3f ms), abort rate %.2f%% "
            + "(%s), semantic conflicts %,d%n",
        r.committedPerSecond() / 1e6, r.kernelNanos() / 1e6, r.abortRate() * 100,
        abortsByCause(r.counters()), r.count(Counter.SEMANTIC_CONFLICTS));
  }

  /**
   * The aborts by cause, those that happened ("validation 12, lock busy 3"), and the locks the
   * obstruction-free STM stole; "no aborts" when there were none.
   */
  static String abortsByCause(long[] counters) {
    StringBuilder b = new StringBuilder();
    for (Counter c : Counter.values()) {
      long n = counters[c.ordinal()];
      if ((c.isAbort() || c == Counter.LOCKS_STOLEN) && n != 0) {
        b.append(b.length() == 0 ? "" : ", ").append(c.label()).append(String.format(" %,d", n));
      }
    }
    return b.length() == 0 ? "no aborts" : b.toString();
  }

  /** A replay of the serial order the history checker found. */
  interface Replay {
    /** Replays {@code serialOrder}, prints the verdict and returns whether it passed. */
    boolean passes(int[] serialOrder);
  }

  /**
   * Runs the history checker on {@code h} and, when the history is serializable, {@code replay}
   * of its serial order, printing both verdicts; whether both passed.
   */
  static boolean checkHistory(History h, Replay replay) {
    return checkHistory(HistoryChecker.check(h), replay);
  }

  /** As {@link #checkHistory(History, Replay)}, with the checker's verdict already at hand. */
  static boolean checkHistory(HistoryChecker.Verdict v, Replay replay) {
    System.out.println("history checker: " + (v.serializable() ? "OK (serializable)"
        : "FAILED " + v.violations()));
    return v.serializable() && replay.passes(v.serialOrder());
  }

  /** A Markdown table's header: the columns' row and the rule under it. */
  static void tableHeader(String... columns) {
    System.out.println("| " + String.join(" | ", columns) + " |");
    System.out.println("|" + "---|".repeat(columns.length));
  }

  /**
   * Runs {@code run} once to warm up (module load, caches), then {@code reps} times, and returns
   * the run of least kernel time; with {@code reps} 0, the one cold run.
   */
  static <T> T fastest(int reps, Supplier<T> run, ToLongFunction<T> kernelNanos) {
    return timedRuns(reps, run).stream().min(Comparator.comparingLong(kernelNanos)).orElseThrow();
  }

  /** {@code run} once to warm up, then {@code reps} times: the timed runs (0: the cold one). */
  static <T> List<T> timedRuns(int reps, Supplier<T> run) {
    List<T> timed = new ArrayList<>();
    for (int rep = 0; rep <= reps; rep++) {
      T r = run.get();
      if (rep > 0 || reps == 0) {
        timed.add(r);
      }
    }
    return timed;
  }
}
