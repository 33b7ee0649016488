package io.gstm.core.workload.bank;

import io.gstm.core.batch.Grid;
import io.gstm.core.batch.OnGrid;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.ValueChecks;
import java.util.SplittableRandom;

/**
 * A bank run: the store layout, the initial balances and a seeded random batch. Every transaction
 * touches k distinct accounts chosen uniformly at random; a {@code readOnlyFraction} of them are
 * audits (sums), the rest transfers.
 *
 * @param accounts number of accounts, at least 1
 * @param k accounts per transaction, 1..min(accounts, 16)
 * @param readOnlyFraction share of audits, 0..1
 * @param lockCoverage accounts per lock, at least 1
 * @param grid 1..256 threads per block, at least 1 block, at least 1 transaction per thread
 * @param seed random seed of the batch
 */
public record BankConfig(
    int accounts,
    int k,
    double readOnlyFraction,
    int lockCoverage,
    Grid grid,
    long seed) implements OnGrid {

  /** Every account starts with this balance. */
  public static final int INITIAL_BALANCE = 1_000;
  /** Transfers move 1..MAX_AMOUNT. */
  public static final int MAX_AMOUNT = 100;

  public BankConfig {
    java.util.Objects.requireNonNull(grid, "grid");
    ValueChecks.atLeast("accounts", accounts, 1);
    int maxK = Math.min(accounts, TxBatch.CAPACITIES[TxBatch.CAPACITIES.length - 1]);
    ValueChecks.inRange("k", k, 1, maxK, "distinct accounts per transaction, at most the account "
        + "count " + accounts + " and the largest set capacity");
    ValueChecks.fraction("readOnlyFraction", readOnlyFraction);
    ValueChecks.atLeast("lockCoverage", lockCoverage, 1, "account per lock");
    ValueChecks.grid(grid);
  }

  /**
   * A builder with the {@code gstm bank} defaults: 2^20 accounts, k 2, 20% audits, one account
   * per lock, 132 blocks of 256 threads, 4 transactions per thread, seed 1.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to derive another. */
  public Builder toBuilder() {
    return new Builder().accounts(accounts).k(k).readOnly(readOnlyFraction)
        .lockCoverage(lockCoverage).grid(grid.threadsPerBlock(), grid.blocks())
        .txPerThread(grid.txPerThread()).seed(seed);
  }

  /** One INT32 region of balances. */
  public StoreLayout layout() {
    return StoreLayout.of(new RegionSpec("balances", RegionType.INT32, accounts, lockCoverage));
  }

  public int[] initialBalances() {
    int[] b = new int[accounts];
    java.util.Arrays.fill(b, INITIAL_BALANCE);
    return b;
  }

  /** The seeded batch, with the smallest set capacity that holds k entries. */
  public TxBatch batch() {
    return batch(TxBatch.capacityFor(k));
  }

  /** The seeded batch with an explicit set capacity (smaller than k gives TOO_LARGE outcomes). */
  public TxBatch batch(int capacity) {
    int n = txCount();
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] types = new int[n];
    int[][] cols = new int[k + 1][n];
    int[] picked = new int[k];
    for (int t = 0; t < n; t++) {
      BankWorkload.Type type = rnd.nextDouble() < readOnlyFraction
          ? BankWorkload.Type.AUDIT : BankWorkload.Type.TRANSFER;
      types[t] = type.code();
      pickDistinct(rnd, accounts, k, picked, cols, t);
      cols[k][t] = 1 + rnd.nextInt(MAX_AMOUNT);
    }
    return new TxBatch(BankWorkload.NAME, types, cols, new int[] {k, 0}, threadsPerBlock(),
        blocks(), capacity);
  }

  /**
   * The seeded batch whose audits sum {@code auditSpan} consecutive accounts (wrapping) instead
   * of their k; {@code accounts} audits the whole bank, so every committed audit must see the
   * invariant total {@code accounts * INITIAL_BALANCE}.
   */
  public TxBatch batchWithAuditSpan(int auditSpan) {
    TxBatch b = batch();
    return new TxBatch(b.workload(), b.types(), b.columns(),
        new int[] {k, 0, 0, auditSpan, accounts}, b.threadsPerBlock(), b.blocks(), b.capacity());
  }

  /**
   * Draws {@code k} distinct accounts below {@code range} (each redrawn until new) into columns
   * {@code 0..k-1} of transaction {@code t}; {@code picked} is scratch of at least {@code k}.
   */
  static void pickDistinct(SplittableRandom rnd, int range, int k, int[] picked, int[][] cols,
      int t) {
    for (int j = 0; j < k; j++) {
      int a;
      do {
        a = rnd.nextInt(range);
      } while (contains(picked, j, a));
      picked[j] = a;
      cols[j][t] = a;
    }
  }

  private static boolean contains(int[] a, int n, int v) {
    for (int i = 0; i < n; i++) {
      if (a[i] == v) {
        return true;
      }
    }
    return false;
  }

  /**
   * Named settings of a {@link BankConfig}; {@link #build} checks them. Accounts: at least 1; k:
   * 1..min(accounts, 16).
   */
  public static final class Builder extends BankBuilder<Builder> {
    private double readOnly = 0.2;

    private Builder() {}

    /** Share of audits (read-only sums), 0..1; the rest are transfers. */
    public Builder readOnly(double fraction) {
      readOnly = fraction;
      return this;
    }

    /** The configuration; an IllegalArgumentException names a bad value and its limit. */
    public BankConfig build() {
      return new BankConfig(accounts(), k(), readOnly, lockCoverage(), grid(), seed());
    }
  }
}
