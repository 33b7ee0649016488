package io.gstm.core.workload;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.memcached.MemcachedWorkload;

/** What a batch must satisfy to run on a CSMV store, checked on both engines before running. */
public final class CsmvChecks {
  /**
   * Items one transaction may write on either engine: the size of a commit-record entry
   * ({@code kMaxWrites} in {@code gstm/csmv.cuh}, which KernelConstantsTest reads).
   */
  public static final int MAX_WRITES = 8;

  private CsmvChecks() {}

  /** Throws an IllegalArgumentException naming the parameter and limit for a bad batch. */
  public static void validate(Workload workload, TxBatch batch) {
    if (workload instanceof BankWorkload) {
      if (BankWorkload.checked(batch)) {
        throw new IllegalArgumentException("params[2] (checked): CSMV stores have no semantic "
            + "contention manager; run checked transfers on a PR-STM store");
      }
      for (int type : batch.types()) {
        if (!BankWorkload.Type.TRANSFER.is(type) && !BankWorkload.Type.AUDIT.is(type)) {
          throw new IllegalArgumentException("types: CSMV bank batches hold transfers and "
              + "audits only, got type " + type);
        }
      }
      if (BankWorkload.k(batch) > MAX_WRITES) {
        throw new IllegalArgumentException("k must be at most " + MAX_WRITES + " on a CSMV store "
            + "(a transfer writes k accounts; a commit-record entry holds " + MAX_WRITES
            + "), got " + BankWorkload.k(batch));
      }
    } else if (!(workload instanceof MemcachedWorkload)) {
      throw new IllegalArgumentException("workload: CSMV stores run 'bank' and 'memcached', not '"
          + workload.name() + "'");
    }
  }

  /** Most items an update transaction of this batch reads (the server's read-set slots). */
  public static int maxUpdateReads(Workload workload, TxBatch batch) {
    if (workload instanceof MemcachedWorkload) {
      return MemcachedWorkload.maxPutReads(batch);
    }
    return BankWorkload.k(batch);
  }
}
