package io.gstm.core.workload.bank;

import io.gstm.core.batch.GridBuilder;

/**
 * The settings both bank configurations' builders share, with the {@code gstm bank} defaults:
 * 2^20 accounts, k 2, one account per lock, 132 blocks of 256 threads, 4 transactions per thread.
 * Each configuration's {@code build()} checks them against its own limits.
 *
 * @param <B> the configuration's builder, returned by every setter
 */
public abstract class BankBuilder<B extends BankBuilder<B>> extends GridBuilder<B> {
  private int accounts = 1 << 20;
  private int k = 2;
  private int lockCoverage = 1;

  BankBuilder() {
    super(256, 132, 4);
  }

  /** Number of accounts (see the configuration for its least). */
  public B accounts(int value) {
    accounts = value;
    return me();
  }

  /** Distinct accounts per transaction, at most 16 (see the configuration for its range). */
  public B k(int value) {
    k = value;
    return me();
  }

  /** Accounts per lock, at least 1. */
  public B lockCoverage(int value) {
    lockCoverage = value;
    return me();
  }

  int accounts() {
    return accounts;
  }

  int k() {
    return k;
  }

  int lockCoverage() {
    return lockCoverage;
  }

  @SuppressWarnings("unchecked")
  private B me() {
    return (B) this;
  }
}
