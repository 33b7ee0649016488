package io.gstm.core.workload.bank;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.List;

/**
 * The bank's exact verifier: every final balance equals its initial balance plus the deltas of
 * the committed transactions that touched it, account by account; no transaction is left
 * pending. With a history, {@link #replay} also checks every committed withdrawal saw enough.
 */
public final class BankVerifier {
  private static final int MAX_REPORTED = 10;

  private BankVerifier() {}

  /** Balances the batch must have produced from {@code initial}, given who committed. */
  public static long[] expected(int[] initial, TxBatch batch, BatchResult result) {
    long[] expected = new long[initial.length];
    for (int i = 0; i < initial.length; i++) {
      expected[i] = initial[i];
    }
    for (int t = 0; t < batch.txCount(); t++) {
      if (result.outcome(t) == Outcome.COMMITTED) {
        apply(expected, batch, t);
      }
    }
    return expected;
  }

  /** Applies committed transaction {@code t} to {@code balances}. */
  private static void apply(long[] balances, TxBatch batch, int t) {
    int k = BankWorkload.k(batch);
    int[][] cols = batch.columns();
    int amount = cols[k][t];
    switch (BankWorkload.Type.of(batch.types()[t])) {
      case DEPOSIT -> balances[cols[0][t]] += amount;
      case WITHDRAW -> balances[cols[0][t]] -= amount;
      case TRANSFER -> {
        balances[cols[0][t]] -= (long) amount * (k - 1);
        for (int j = 1; j < k; j++) {
          balances[cols[j][t]] += amount;
        }
      }
      default -> { }
    }
  }

  /**
   * Replays the committed transactions in {@code serialOrder} (the history checker's) and checks
   * that every committed withdrawal, and every checked transfer, saw enough money.
   */
  public static Verdict replay(int[] initial, TxBatch batch, int[] serialOrder) {
    long[] balances = new long[initial.length];
    for (int i = 0; i < initial.length; i++) {
      balances[i] = initial[i];
    }
    int k = BankWorkload.k(batch);
    int[][] cols = batch.columns();
    List<String> problems = new ArrayList<>();
    for (int t : serialOrder) {
      int type = batch.types()[t];
      long need = BankWorkload.Type.WITHDRAW.is(type) ? cols[k][t]
          : BankWorkload.Type.TRANSFER.is(type) && BankWorkload.checked(batch)
              ? (long) cols[k][t] * (k - 1) : Long.MIN_VALUE;
      if (need != Long.MIN_VALUE && balances[cols[0][t]] < need && problems.size() < MAX_REPORTED) {
        problems.add("transaction " + t + " committed taking " + need + " from account "
            + cols[0][t] + ", which held " + balances[cols[0][t]] + " at its serial position");
      }
      apply(balances, batch, t);
    }
    return new Verdict(problems.isEmpty(), List.copyOf(problems));
  }

  public static Verdict verify(int[] initial, TxBatch batch, BatchResult result, int[] actual) {
    List<String> problems = new ArrayList<>();
    Verdict.neverRan(result, batch.txCount()).ifPresent(problems::add);
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
