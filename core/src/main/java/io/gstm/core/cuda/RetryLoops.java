package io.gstm.core.cuda;

import java.util.HashSet;
import java.util.Set;

/**
 * Which retry loop a compiled program set that never retries runs. In place (each transaction
 * retried until it ends, a warp's lanes together, as the hand-written bank kernel runs) while
 * its batches rarely abort; under the semantic contention manager's loop (each lane on to its
 * next transaction while another waits) once a batch of the set aborted at least half its
 * attempts, until one aborts fewer than a quarter. In place a warp waits for its unluckiest
 * lane: the k-means update (15 attempts a commit) ran 1.6x faster in the semantic loop, the
 * bank (1.1) faster in place (docs/benchmarks.md). Not thread-safe: its owner locks.
 */
final class RetryLoops {
  /** A batch's aborts per attempt from which its set runs in the semantic loop. */
  static final double CONTENDED = 0.5;
  /** A batch's aborts per attempt below which its set goes back to retrying in place. */
  static final double CALM = 0.25;

  private final Set<String> contended = new HashSet<>();

  /** Whether set {@code set} (a key of its programs) runs in the semantic loop. */
  boolean semantic(String set) {
    return contended.contains(set);
  }

  /**
   * What a batch of {@code set} met: its aborts per attempt ({@code BatchResult.abortRate}).
   * Returns whether the set's loop changed.
   */
  boolean note(String set, double abortRate) {
    if (abortRate >= CONTENDED) {
      return contended.add(set);
    }
    if (abortRate < CALM) {
      return contended.remove(set);
    }
    return false;
  }
}
