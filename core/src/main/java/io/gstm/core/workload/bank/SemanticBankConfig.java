package io.gstm.core.workload.bank;

import io.gstm.core.batch.Grid;
import io.gstm.core.batch.OnGrid;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.Shuffles;
import io.gstm.core.workload.ValueChecks;
import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A bank batch with semantic conflicts, for the semantic contention manager.
 *
 * <p>The accounts are split in two halves. A {@code semanticRatio} share of the transactions are
 * deposit/withdrawal pairs on the upper half, whose accounts start empty: each withdrawal takes
 * exactly what its own deposit brings, and the two sit at random places in the table, so about
 * half the withdrawals come before their deposit and meet a semantic conflict (an overdraft)
 * unless something else paid in first. The rest are checked k-account transfers on the lower
 * half, whose accounts start with {@link #INITIAL_BALANCE} plus everything they pay in the batch,
 * so no transfer ever has to wait. Every withdrawal can eventually run, so with enough patience
 * (and at most 32 transactions per thread: the postponement window) every transaction commits.
 *
 * @param accounts accounts, at least 2 (and at least 2k when there are transfers)
 * @param k accounts per transfer, 1..16 (0..16 when the batch has no transfers)
 * @param semanticRatio share of transactions in deposit/withdrawal pairs, 0..1
 * @param lockCoverage accounts per lock, at least 1
 * @param grid 1..256 threads per block, at least 1 block, at least 1 transaction per thread
 * @param seed random seed of the batch
 */
public record SemanticBankConfig(
    int accounts,
    int k,
    double semanticRatio,
    int lockCoverage,
    Grid grid,
    long seed) implements OnGrid {

  /** Lower-half accounts start with this much plus what they pay; upper-half ones empty. */
  public static final int INITIAL_BALANCE = 1_000;

  public SemanticBankConfig {
    Objects.requireNonNull(grid, "grid");
    ValueChecks.fraction("semanticRatio", semanticRatio);
    ValueChecks.atLeast("accounts", accounts, 2, "(two halves)");
    // The sizes are checked by the plain bank config, which has the same limits.
    new BankConfig(accounts, 1, 0, lockCoverage, grid, seed);
    // An odd count leaves one transfer even at ratio 1: k matters whenever there is one. Without
    // transfers it still sizes the batch's columns and set capacity: 0..16.
    int n = grid.txCount();
    int maxK = TxBatch.CAPACITIES[TxBatch.CAPACITIES.length - 1];
    if (n - 2 * pairs(semanticRatio, n) > 0) {
      ValueChecks.inRange("k", k, 1, Math.min(maxK, accounts / 2),
          "distinct accounts of the lower half, at most the largest set capacity");
    }
    ValueChecks.inRange("k", k, 0, maxK,
        "accounts per transfer, at most the largest set capacity");
  }

  /**
   * A builder with the {@code gstm bank --semantic-ratio 1} defaults: 2^20 accounts, k 2, only
   * deposit/withdrawal pairs, one account per lock, 132 blocks of 256 threads, 4 transactions per
   * thread, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** Deposit/withdrawal pairs in the batch: {@code round(semanticRatio * n / 2)}, at most n/2. */
  public int pairs() {
    return pairs(semanticRatio, txCount());
  }

  private static int pairs(double ratio, int n) {
    return (int) Math.min(Math.round(ratio * n / 2), n / 2);
  }

  public StoreLayout layout() {
    return StoreLayout.of(new RegionSpec("balances", RegionType.INT32, accounts, lockCoverage));
  }

  /**
   * Lower half: {@link #INITIAL_BALANCE} plus what the account pays in the batch's transfers, so
   * transfers never wait; upper half: empty, so withdrawals wait for their deposits.
   */
  public int[] initialBalances() {
    int[] b = new int[accounts];
    Arrays.fill(b, 0, accounts / 2, INITIAL_BALANCE);
    TxBatch batch = batch();
    int kk = BankWorkload.Param.K.of(batch);
    for (int t = 0; t < batch.txCount(); t++) {
      if (BankWorkload.Type.TRANSFER.is(batch.types()[t])) {
        b[batch.columns()[0][t]] += batch.columns()[kk][t] * (kk - 1);
      }
    }
    return b;
  }

  /** The seeded batch: params {k, region 0, checked transfers}. */
  public TxBatch batch() {
    int n = txCount();
    SplittableRandom rnd = new SplittableRandom(seed);
    int pairs = pairs();
    int kk = Math.max(1, k);
    int[] types = new int[n];
    int[][] cols = new int[kk + 1][n];
    int low = accounts / 2;
    int high = accounts - low;
    // Pairs first, then transfers; a shuffle puts them anywhere.
    for (int p = 0; p < pairs; p++) {
      int account = low + rnd.nextInt(high);
      int amount = 1 + rnd.nextInt(BankConfig.MAX_AMOUNT);
      types[2 * p] = BankWorkload.Type.DEPOSIT.code();
      types[2 * p + 1] = BankWorkload.Type.WITHDRAW.code();
      for (int j = 0; j < kk; j++) {
        cols[j][2 * p] = account;
        cols[j][2 * p + 1] = account;
      }
      cols[kk][2 * p] = amount;
      cols[kk][2 * p + 1] = amount;
    }
    int[] picked = new int[kk];
    for (int t = 2 * pairs; t < n; t++) {
      types[t] = BankWorkload.Type.TRANSFER.code();
      BankConfig.pickDistinct(rnd, low, kk, picked, cols, t);
      cols[kk][t] = 1 + rnd.nextInt(BankConfig.MAX_AMOUNT);
    }
    Shuffles.rows(types, cols, rnd);
    return new TxBatch(BankWorkload.NAME, types, cols, new int[] {kk, 0, 1}, threadsPerBlock(),
        blocks(), TxBatch.capacityFor(kk));
  }

  /**
   * Named settings of a {@link SemanticBankConfig}; {@link #build} checks them. Accounts: at least
   * 2, and at least 2k when there are transfers; k: 1..16 (0..16 when the batch has no transfers).
   */
  public static final class Builder extends BankBuilder<Builder> {
    private double semanticRatio = 1;

    private Builder() {}

    /** Share of transactions in deposit/withdrawal pairs, 0..1. */
    public Builder semanticRatio(double value) {
      semanticRatio = value;
      return this;
    }

    /** The configuration; an IllegalArgumentException names a bad value and its limit. */
    public SemanticBankConfig build() {
      return new SemanticBankConfig(accounts(), k(), semanticRatio, lockCoverage(), grid(),
          seed());
    }
  }
}
