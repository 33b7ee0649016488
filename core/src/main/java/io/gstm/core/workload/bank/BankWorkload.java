package io.gstm.core.workload.bank;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.BatchChecks;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.ValueChecks;
import io.gstm.core.workload.NamedWorkload;
import io.gstm.core.workload.ParamSlot;
import io.gstm.core.workload.TxType;

/**
 * The bank over an INT32 region of balances: transfers among k distinct accounts, read-only
 * audits (sums) of k accounts, deposits and withdrawals. Twin of {@code gstm/workloads/bank.cuh};
 * keep the two in step.
 *
 * <p>Batch encoding: columns {@code 0..k-1} are the accounts, column {@code k} the amount;
 * {@code params = {k, region}}, {@code {k, region, checked}} or
 * {@code {k, region, checked, auditSpan, accounts}}. A transfer moves the amount from
 * account 0 to each other account, so account 0 pays {@code (k - 1) * amount} and the total is
 * conserved; with {@code checked = 1} a transfer that would overdraw account 0 is a semantic
 * conflict. A deposit adds the amount to account 0; a withdrawal takes it, and one that would
 * overdraw is always a semantic conflict. With {@code auditSpan > 0} an audit instead sums
 * {@code auditSpan} consecutive accounts from its account 0, wrapping (the account count audits
 * the whole bank, the CSMV paper's read-only transaction).
 */
public final class BankWorkload extends NamedWorkload {
  public static final String NAME = "bank";
  public static final BankWorkload INSTANCE = new BankWorkload();

  /** The transaction types, in code order ({@code Type} of {@code bank.cuh}). */
  public enum Type implements TxType {
    TRANSFER, AUDIT, DEPOSIT, WITHDRAW;

    private static final Type[] BY_CODE = values();

    /** The type of a code a validated batch carries. */
    public static Type of(int code) {
      return BY_CODE[code];
    }
  }

  /** The slots of {@code params}; a batch ends after REGION, CHECKED or ACCOUNTS. */
  public enum Param implements ParamSlot { K, REGION, CHECKED, AUDIT_SPAN, ACCOUNTS }

  private BankWorkload() {
    super(NAME, 0, 0, 1, 0); // deposits run before withdrawals when a batch is pre-sorted
  }

  @Override
  public void validate(StoreLayout layout, TxBatch batch) {
    BatchChecks.params(batch, "the bank", "{k, region}, {k, region, checked} or {k, region, "
        + "checked, auditSpan, accounts}", 2, 3, 5);
    int np = batch.params().length;
    int k = k(batch);
    int region = Param.REGION.region(batch, layout, RegionType.INT32, "balances");
    int accounts = layout.region(region).length();
    ValueChecks.inRange("k", k, 1, accounts, "the account count");
    int span = auditSpan(batch);
    if (np == 5 && accountsOf(batch) != accounts) {
      throw new IllegalArgumentException("params[4] (accounts) must equal region " + region
          + "'s length " + accounts + ", got " + accountsOf(batch));
    }
    ValueChecks.inRange("auditSpan", span, 0, accounts, "the account count");
    BatchChecks.columns(batch, "the bank", k + 1, "k accounts, then the amount");
    BatchChecks.types(batch, "bank", Type.values());
    for (int j = 0; j < k; j++) {
      int[] col = batch.columns()[j];
      for (int t = 0; t < col.length; t++) {
        BatchChecks.index(col[t], accounts, t, "account", "region " + region + " has accounts");
      }
    }
  }

  @Override
  public long run(TxContext tx, TxBatch batch, int t) {
    int region = region(batch);
    int[][] cols = batch.columns();
    int k = k(batch);
    int amount = cols[k][t];
    switch (Type.of(batch.types()[t])) {
      case DEPOSIT -> {
        int v = (int) tx.read(region, cols[0][t]);
        tx.write(region, cols[0][t], v + amount);
        return 0;
      }
      case WITHDRAW -> {
        int v = (int) tx.read(region, cols[0][t]);
        if (v < amount) {
          tx.semanticConflict();
          return 0;
        }
        tx.write(region, cols[0][t], v - amount);
        return 0;
      }
      case AUDIT -> {
        long sum = 0;
        int span = auditSpan(batch);
        if (span > 0) {
          return tx.sumRange(region, cols[0][t], span, accountsOf(batch));
        }
        for (int j = 0; j < k; j++) {
          sum += (int) tx.read(region, cols[j][t]);
        }
        return sum;
      }
      default -> {
        int pays = amount * (k - 1);
        for (int j = 0; j < k; j++) {
          int v = (int) tx.read(region, cols[j][t]);
          if (j == 0 && checked(batch) && v < pays) {
            tx.semanticConflict();
            return 0;
          }
          tx.write(region, cols[j][t], v + (j == 0 ? -pays : amount));
        }
        return 0;
      }
    }
  }

  @Override
  public boolean readOnly(TxBatch batch, int type) {
    return Type.AUDIT.is(type);
  }

  /** Accounts an audit sums when it does not sum its k accounts; 0 for the k accounts. */
  public static int auditSpan(TxBatch batch) {
    return Param.AUDIT_SPAN.in(batch) ? Param.AUDIT_SPAN.of(batch) : 0;
  }

  /** The account count, which a batch with an audit span carries. */
  private static int accountsOf(TxBatch batch) {
    return Param.ACCOUNTS.of(batch);
  }

  /** True when an overdrawing transfer is a semantic conflict. */
  public static boolean checked(TxBatch batch) {
    return Param.CHECKED.in(batch) && Param.CHECKED.of(batch) != 0;
  }

  /** True when the batch needs only what the plain PR-STM bank kernel does. */
  public static boolean plain(TxBatch batch) {
    if (checked(batch) || auditSpan(batch) > 0) {
      return false;
    }
    for (int type : batch.types()) {
      if (!Type.TRANSFER.is(type) && !Type.AUDIT.is(type)) {
        return false;
      }
    }
    return true;
  }

  public static int k(TxBatch batch) {
    return Param.K.of(batch);
  }

  public static int region(TxBatch batch) {
    return Param.REGION.of(batch);
  }
}
