package io.gstm.core.workload;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import java.util.List;
import java.util.Optional;

/**
 * What an exact verifier found ({@code BankVerifier}, {@code VacationVerifier},
 * {@code MemcachedVerifier}, {@code ProgramReplay}, the producer-consumer replay): whether every check passed and, where not,
 * the first problems.
 *
 * @param ok whether every check passed
 * @param problems the first failures, in words
 */
public record Verdict(boolean ok, List<String> problems) {
  /** {@code N transaction(s) never ran} when N of the batch's outcomes are still PENDING. */
  public static Optional<String> neverRan(BatchResult result, int txCount) {
    int pending = 0;
    for (int t = 0; t < txCount; t++) {
      if (result.outcome(t) == Outcome.PENDING) {
        pending++;
      }
    }
    return pending > 0 ? Optional.of(pending + " transaction(s) never ran") : Optional.empty();
  }

  @Override
  public String toString() {
    return ok ? "OK" : "FAILED " + problems;
  }
}
