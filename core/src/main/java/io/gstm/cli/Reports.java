package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;

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
            + "(read-locked %,d, validation %,d, pre-lock refused %,d, stolen %,d), "
            + "semantic conflicts %,d%n",
        r.committedPerSecond() / 1e6, r.kernelNanos() / 1e6, r.abortRate() * 100,
        r.count(Counter.ABORT_READ_LOCKED), r.count(Counter.ABORT_VALIDATION),
        r.count(Counter.ABORT_PRELOCK_REFUSED), r.count(Counter.ABORT_STOLEN),
        r.count(Counter.SEMANTIC_CONFLICTS));
  }
}
