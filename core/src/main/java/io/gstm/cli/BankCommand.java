package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gstm bank}: one bank batch on the chosen engine, verified. */
@Command(name = "bank", mixinStandardHelpOptions = true,
    description = "Run one PR-STM bank batch and verify it: k-account transfers and audits.")
final class BankCommand implements Callable<Integer> {
  @Mixin EngineOption engine = new EngineOption();

  @Option(names = "--accounts", defaultValue = "1048576", description = "Accounts (default ${DEFAULT-VALUE}).")
  int accounts;

  @Option(names = "--k", defaultValue = "2", description = "Accounts per transaction (default ${DEFAULT-VALUE}).")
  int k;

  @Option(names = "--read-only", defaultValue = "0.2",
      description = "Fraction of read-only audits, 0..1 (default ${DEFAULT-VALUE}).")
  double readOnly;

  @Option(names = "--lock-coverage", defaultValue = "1",
      description = "Accounts per lock (default ${DEFAULT-VALUE}).")
  int lockCoverage;

  @Option(names = "--threads-per-block", defaultValue = "256", description = "Default ${DEFAULT-VALUE}.")
  int threadsPerBlock;

  @Option(names = "--blocks", defaultValue = "132", description = "Default ${DEFAULT-VALUE}.")
  int blocks;

  @Option(names = "--tx-per-thread", defaultValue = "4", description = "Default ${DEFAULT-VALUE}.")
  int txPerThread;

  @Option(names = "--seed", defaultValue = "1", description = "Batch seed (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--max-retries", defaultValue = "" + RunOptions.DEFAULT_MAX_RETRIES,
      description = "Attempts per transaction before it is abandoned (default ${DEFAULT-VALUE}).")
  int maxRetries;

  @Option(names = "--history",
      description = "Record versions and run the serializability checker (small batches).")
  boolean history;

  @Override
  public Integer call() {
    BankConfig cfg = new BankConfig(accounts, k, readOnly, lockCoverage, threadsPerBlock, blocks,
        txPerThread, seed);
    RunOptions options = new RunOptions(maxRetries, history);
    TxBatch batch = cfg.batch();
    try (Engine e = engine.open().engine();
        TxStore store = e.createStore(cfg.layout())) {
      int[] initial = cfg.initialBalances();
      store.writeInt32(0, initial);
      BatchResult r = e.run(store, batch, options);
      BankVerifier.Verdict verdict = BankVerifier.verify(initial, batch, r, store.readInt32(0));
      System.out.printf("bank: %,d accounts, k=%d, %.0f%% read-only, lock coverage %d, "
              + "%,d threads x %d tx = %,d transactions%n",
          accounts, k, readOnly * 100, lockCoverage, cfg.threads(), txPerThread, cfg.txCount());
      System.out.printf("committed: %,d (%,d read-only), abandoned %,d, too large %,d%n",
          r.commits(), r.count(Counter.READ_ONLY_COMMITS), r.count(Counter.ABANDONED),
          r.count(Counter.TOO_LARGE));
      System.out.printf("throughput: %.3f M committed tx/s (%.3f ms), abort rate %.2f%% "
              + "(read-locked %,d, validation %,d, pre-lock refused %,d, stolen %,d)%n",
          r.committedPerSecond() / 1e6, r.kernelNanos() / 1e6, r.abortRate() * 100,
          r.count(Counter.ABORT_READ_LOCKED), r.count(Counter.ABORT_VALIDATION),
          r.count(Counter.ABORT_PRELOCK_REFUSED), r.count(Counter.ABORT_STOLEN));
      System.out.println("verifier: " + verdict);
      boolean ok = verdict.ok();
      if (history) {
        HistoryChecker.Verdict h = HistoryChecker.check(r.history());
        System.out.println("history checker: " + (h.serializable() ? "OK (serializable)"
            : "FAILED " + h.violations()));
        ok &= h.serializable();
      }
      return ok ? 0 : 1;
    }
  }
}
