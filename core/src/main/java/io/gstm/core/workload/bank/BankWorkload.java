package io.gstm.core.workload.bank;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.Workload;

/**
 * The bank: transfers among k distinct accounts and read-only audits (sums) of k accounts, over
 * an INT32 region of balances. Twin of {@code gstm/workloads/bank.cuh}; keep the two in step.
 *
 * <p>Batch encoding: columns {@code 0..k-1} are the accounts, column {@code k} the amount;
 * {@code params = {k, region}}. A transfer moves the amount from account 0 to each other account,
 * so account 0 pays {@code (k - 1) * amount} and the total is conserved.
 */
public final class BankWorkload implements Workload {
  public static final String NAME = "bank";
  public static final BankWorkload INSTANCE = new BankWorkload();

  public static final int TRANSFER = 0;
  public static final int AUDIT = 1;
  public static final int PARAM_K = 0;
  public static final int PARAM_REGION = 1;

  private BankWorkload() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    if (batch.params().length != 2) {
      throw new IllegalArgumentException("params: the bank expects {k, region}");
    }
    int k = k(batch);
    int region = region(batch);
    layout.checkRegion(region);
    if (layout.region(region).type() != RegionType.INT32) {
      throw new IllegalArgumentException(
          "region " + region + " holds " + layout.region(region).type()
              + "; bank balances must be INT32");
    }
    int accounts = layout.region(region).length();
    if (k < 1 || k > accounts) {
      throw new IllegalArgumentException(
          "k must be in 1.." + accounts + " (the account count), got " + k);
    }
    if (batch.columns().length != k + 1) {
      throw new IllegalArgumentException(
          "columns: the bank expects k + 1 = " + (k + 1) + " columns, got "
              + batch.columns().length);
    }
    int[] types = batch.types();
    for (int t = 0; t < types.length; t++) {
      if (types[t] != TRANSFER && types[t] != AUDIT) {
        throw new IllegalArgumentException(
            "types[" + t + "] = " + types[t] + " is not a bank type (0 transfer, 1 audit)");
      }
    }
    for (int j = 0; j < k; j++) {
      int[] col = batch.columns()[j];
      for (int t = 0; t < col.length; t++) {
        if (col[t] < 0 || col[t] >= accounts) {
          throw new IllegalArgumentException(
              "account " + col[t] + " (transaction " + t + ", position " + j + ") is out of "
                  + "range: region " + region + " has accounts 0.." + (accounts - 1));
        }
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int k = k(batch);
    int region = region(batch);
    int[][] cols = batch.columns();
    boolean audit = batch.types()[t] == AUDIT;
    int amount = cols[k][t];
    long sum = 0;
    for (int j = 0; j < k; j++) {
      int account = cols[j][t];
      int v = (int) tx.read(region, account);
      if (audit) {
        sum += v;
      } else {
        int delta = j == 0 ? -amount * (k - 1) : amount;
        tx.write(region, account, v + delta);
      }
    }
    return sum;
  }

  public static int k(TxBatch batch) {
    return batch.params()[PARAM_K];
  }

  public static int region(TxBatch batch) {
    return batch.params()[PARAM_REGION];
  }
}
