package io.gstm.core.workload.bank;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import java.util.ArrayList;
import java.util.List;

/**
 * The bank's exact verifier: every final balance equals its initial balance plus the deltas of
 * the committed transfers that touched it, account by account; no transaction is left pending.
 */
public final class BankVerifier {
  private static final int MAX_REPORTED = 10;

  /**
   * @param ok whether every account matched
   * @param problems the first mismatches, in words
   */
  public record Verdict(boolean ok, List<String> problems) {
    @Override
    public String toString() {
      return ok ? "OK" : "FAILED " + problems;
    }
  }

  private BankVerifier() {}

  /** Balances the batch must have produced from {@code initial}, given who committed. */
  public static long[] expected(int[] initial, TxBatch batch, BatchResult result) {
    int k = BankWorkload.k(batch);
    int[][] cols = batch.columns();
    long[] expected = new long[initial.length];
    for (int i = 0; i < initial.length; i++) {
      expected[i] = initial[i];
    }
    for (int t = 0; t < batch.txCount(); t++) {
      if (batch.types()[t] != BankWorkload.TRANSFER || result.outcome(t) != Outcome.COMMITTED) {
        continue;
      }
      int amount = cols[k][t];
      expected[cols[0][t]] -= (long) amount * (k - 1);
      for (int j = 1; j < k; j++) {
        expected[cols[j][t]] += amount;
      }
    }
    return expected;
  }

  public static Verdict verify(int[] initial, TxBatch batch, BatchResult result, int[] actual) {
    List<String> problems = new ArrayList<>();
    int pending = 0;
    for (int t = 0; t < batch.txCount(); t++) {
      if (result.outcome(t) == Outcome.PENDING) {
        pending++;
      }
    }
    if (pending > 0) {
      problems.add(pending + " transaction(s) never ran");
    }
    long[] expected = expected(initial, batch, result);
    int mismatches = 0;
    for (int i = 0; i < expected.length; i++) {
      if ((int) expected[i] != actual[i]) {
        if (mismatches++ < MAX_REPORTED) {
          problems.add("account " + i + ": expected " + (int) expected[i] + ", found " + actual[i]);
        }
      }
    }
    if (mismatches > MAX_REPORTED) {
      problems.add("... " + (mismatches - MAX_REPORTED) + " more accounts differ");
    }
    return new Verdict(problems.isEmpty(), List.copyOf(problems));
  }
}
