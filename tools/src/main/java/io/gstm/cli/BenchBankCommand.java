package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.LimitsReport;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-bank}: PR-STM bank throughput over thread counts, each row beside the
 * random read+CAS bound measured in the same run; prints a Markdown table.
 */
@Command(name = "bench-bank", mixinStandardHelpOptions = true,
    description = "Sweep thread counts for the bank; print committed tx/s beside the CAS bound.")
final class BenchBankCommand extends EngineCommand {
  @Option(names = "--accounts", defaultValue = "2621440", description = "Default ${DEFAULT-VALUE}.")
  int accounts;

  @Option(names = "--k", split = ",", defaultValue = "2,4",
      description = "Default ${DEFAULT-VALUE}.")
  List<Integer> ks;

  @Option(names = "--read-only", defaultValue = "0", description = "Default ${DEFAULT-VALUE}.")
  double readOnly;

  @Mixin LockCoverageOption coverage = new LockCoverageOption();

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(256);

  @Option(names = "--blocks", split = ",", defaultValue = "132,264,528,1056,2112,4224",
      description = "Block counts to sweep (threads = blocks x threads-per-block). "
          + "Default ${DEFAULT-VALUE}.")
  List<Integer> blocks;

  @Option(names = "--tx", defaultValue = "8388608",
      description = "Transactions per batch, about (default ${DEFAULT-VALUE}).")
  int txTarget;

  @Mixin BestOfOption reps = new BestOfOption(3);

  @Override
  Run prepare() {
    // Checked before anything runs: a sweep must not fail half way.
    reps.check();
    Checks.atLeast("tx", txTarget, 1);
    for (int b : blocks) {
      TxBatch.checkThreads(blockSize.threadsPerBlock, b);
    }
    for (int k : ks) {
      config(k, 1, 1, 0);
    }
    return e -> {
      LimitsReport bound = e.probeLimits(accounts);
      System.out.println("bound: " + bound);
      System.out.println();
      Reports.tableHeader("k", "threads", "tx/batch", "committed tx/s", "abort rate",
          "CAS bound / s", "tx/s per CAS/s", "verifier");
      boolean allOk = true;
      for (int k : ks) {
        for (int b : blocks) {
          int threads = b * blockSize.threadsPerBlock;
          int perThread = Math.max(1, txTarget / threads);
          BankConfig cfg = config(k, b, perThread, 42 + k);
          TxBatch batch = cfg.batch();
          BatchResult best;
          boolean[] ok = {true};
          try (TxStore store = e.createStore(cfg.layout())) {
            int[] initial = cfg.initialBalances();
            best = reps.fastest(() -> {
              store.writeInt32(0, initial);
              BatchResult r = e.run(store, batch, RunOptions.defaults());
              ok[0] &= BankVerifier.verify(initial, batch, r, store.readInt32(0)).ok();
              return r;
            }, BatchResult::kernelNanos);
          }
          allOk &= ok[0];
          System.out.printf("| %d | %,d | %,d | %.3f G | %.2f%% | %.2f G | %.3f | %s |%n", k,
              threads, cfg.txCount(), best.committedPerSecond() / 1e9, best.abortRate() * 100,
              bound.readCasPerSecond() / 1e9,
              best.committedPerSecond() / bound.readCasPerSecond(), ok[0] ? "OK" : "FAILED");
        }
      }
      return allOk ? 0 : 1;
    };
  }

  /** A row's bank: the options' accounts, read-only share and lock coverage. */
  private BankConfig config(int k, int blocks, int txPerThread, long seed) {
    return BankConfig.builder().accounts(accounts).k(k).readOnly(readOnly)
        .lockCoverage(coverage.lockCoverage).grid(blockSize.threadsPerBlock, blocks)
        .txPerThread(txPerThread).seed(seed).build();
  }
}
