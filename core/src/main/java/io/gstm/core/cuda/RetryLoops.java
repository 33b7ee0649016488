package io.gstm.core.cuda;

import java.util.HashMap;
import java.util.Map;

/**
 * Which retry loop a compiled program set that never retries runs, chosen by what its batches
 * meet. In place (each transaction retried until it ends, a warp's lanes together, as the
 * hand-written bank kernel runs) while they rarely abort. Once a batch aborts at least half its
 * attempts, the other loop, the semantic contention manager's (each lane on to its next
 * transaction while another waits), is tried on the next batch, and the set keeps the loop
 * whose last contended batch committed the more transactions per second of kernel, until a
 * batch aborts under a quarter of its attempts. Neither wins everywhere (H200, bench-programs
 * and bench-ds, docs/benchmarks.md): the k-means update ran 1.6x faster in the semantic loop,
 * Cederman's queue at full contention 1.2x faster in place, both at 91-94% aborts.
 * Not thread-safe: its owner locks.
 */
final class RetryLoops {
  /** A batch's aborts per attempt from which the two loops are compared. */
  static final double CONTENDED = 0.5;
  /** A batch's aborts per attempt below which the set retries in place again. */
  static final double CALM = 0.25;

  /** A set's loop and the rates of its last contended batch in each (NaN: none yet). */
  private static final class Choice {
    boolean semantic;
    double inPlaceRate = Double.NaN;
    double semanticRate = Double.NaN;
  }

  private final Map<String, Choice> sets = new HashMap<>();

  /** Whether set {@code set} (a key of its programs) runs in the semantic loop next. */
  boolean semantic(String set) {
    Choice c = sets.get(set);
    return c != null && c.semantic;
  }

  /**
   * What a batch of {@code set} met, run in the semantic loop or in place: its aborts per
   * attempt ({@code BatchResult.abortRate}) and its commits per second of kernel. Returns
   * whether the set's next batch runs in the other loop.
   */
  boolean note(String set, boolean ranSemantic, double abortRate, double commitsPerSecond) {
    Choice c = sets.get(set);
    if (abortRate < CALM) {
      return c != null && sets.remove(set).semantic; // most batches: nothing kept
    }
    if (abortRate < CONTENDED) {
      return false;
    }
    if (c == null) {
      c = new Choice();
      sets.put(set, c);
    }
    boolean before = c.semantic;
    if (ranSemantic) {
      c.semanticRate = commitsPerSecond;
    } else {
      c.inPlaceRate = commitsPerSecond;
    }
    double other = ranSemantic ? c.inPlaceRate : c.semanticRate;
    if (Double.isNaN(other)) {
      c.semantic = !ranSemantic; // try the other loop once
    } else {
      c.semantic = c.semanticRate > c.inPlaceRate;
    }
    return c.semantic != before;
  }
}
