package io.gstm.cli;

import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.ProgramResult;

/**
 * Where each committed transaction of a batch stands in a serial order equivalent to the run
 * ({@code gstm run --record-order}): the history checker's order of the batch, numbered on from
 * the commits of the batches before it, so that a run of several batches has one order.
 */
final class SerialPlaces {
  private SerialPlaces() {}

  /** No place: the transaction did not commit, or its place is not known. */
  static final long NONE = -1;

  /**
   * Per transaction of the batch (by its index in the batch), its place counted from
   * {@code first}, or {@link #NONE}. A program that uses {@code sum()} gets none: its range read
   * is not in the history, so the order does not fix where it read (it is read-only, so the
   * state does not depend on it). A history that is not serializable gives no places at all.
   */
  static long[] of(ProgramResult r, HistoryChecker.Verdict verdict, long first) {
    int n = r.batch().txCount();
    long[] place = new long[n];
    java.util.Arrays.fill(place, NONE);
    if (!verdict.serializable()) {
      return place;
    }
    int[] order = verdict.serialOrder();
    for (int pos = 0; pos < order.length; pos++) {
      int t = order[pos];
      if (r.batch().programs().get(r.batch().type(t)).analysis().sums() == 0) {
        place[t] = first + pos;
      }
    }
    return place;
  }
}
