package io.gstm.bench;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.memcached.MemcachedConfig;
import io.gstm.core.workload.memcached.MemcachedVerifier;
import java.util.List;

/**
 * What the CSMV experiments and {@code gstm bench-csmv} measure alike (public for the CLI): the
 * client grid every column shares and one verified bank or memcached batch.
 */
public final class CsmvRuns {
  private CsmvRuns() {}

  /**
   * Client blocks: as many as are co-resident beside CSMV's server on a GPU (one grid for every
   * algorithm, so that all run the same number of threads), 4 on the JVM.
   */
  public static int clientBlocks(Engine engine, Algorithm alg, int threadsPerBlock,
      String workload) {
    if (engine instanceof CudaEngine cuda) {
      Algorithm grid = alg.isCsmv() ? alg.withVariant(CsmvVariant.CSMV) : Algorithm.csmv(8);
      return Math.max(1, cuda.csmvMaxClientBlocks(grid, threadsPerBlock, workload));
    }
    return 4;
  }

  /** A batch and its verifier's verdict. */
  public record Verified(BatchResult result, Verdict verdict) {}

  /**
   * Loads the bank's initial balances, runs {@code batch} and verifies it: the balances, and
   * when its audits sum every account, that each committed one saw the invariant total.
   */
  public static Verified bank(Engine engine, TxStore store, BankConfig cfg, TxBatch batch,
      int maxRetries) {
    int[] initial = cfg.initialBalances();
    store.writeInt32(0, initial);
    BatchResult r = engine.run(store, batch, new RunOptions(maxRetries, false));
    Verdict v = BankVerifier.verify(initial, batch, r, store.readInt32(0));
    if (v.ok() && !auditsSawTotal(cfg, batch, r)) {
      v = new Verdict(false, List.of("a committed audit of every account missed the total"));
    }
    return new Verified(r, v);
  }

  private static boolean auditsSawTotal(BankConfig cfg, TxBatch batch, BatchResult r) {
    if (batch.params()[3] < cfg.accounts()) {
      return true;
    }
    long total = (long) cfg.accounts() * BankConfig.INITIAL_BALANCE;
    for (int t = 0; t < batch.txCount(); t++) {
      if (BankWorkload.Type.AUDIT.is(batch.types()[t]) && r.outcome(t) == Outcome.COMMITTED
          && r.results()[t] != total) {
        return false;
      }
    }
    return true;
  }

  /**
   * Loads the cache's {@code initial} contents ({@link MemcachedConfig#initialState}), runs
   * {@code batch} and verifies it.
   */
  public static Verified memcached(Engine engine, TxStore store, int[][] initial, TxBatch batch,
      int maxRetries) {
    StoreRegions.write(store, initial);
    BatchResult r = engine.run(store, batch, new RunOptions(maxRetries, false));
    int[][] after = StoreRegions.read(store, initial.length);
    return new Verified(r, MemcachedVerifier.verify(initial, batch, r, after));
  }
}
