package io.gstm.cli;

import io.gstm.bench.SemanticScenario;
import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.bank.SemanticBankConfig;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-semantic}: the JPDC paper's bank and vacation experiments for the semantic
 * contention manager. Committed tx/s of the postpone and retry-in-place policies over the
 * semantic ratio (with and without pre-sorting), over thread counts and over lock coverage, plus
 * the overhead of the semantic kernel at 0% against plain PR-STM on the same transfers. Markdown
 * tables.
 */
@Command(name = "bench-semantic", mixinStandardHelpOptions = true,
    description = "Semantic contention manager: postpone vs retry-in-place, bank or vacation.")
final class BenchSemanticCommand extends EngineCommand {
  @Option(names = "--workload", defaultValue = "bank",
      description = "bank or vacation (the paper's hotel: 150,000 customers, 1000 room types of "
          + "150 rooms). Default ${DEFAULT-VALUE}.")
  String workload;

  @Option(names = "--accounts", defaultValue = "2621440", description = "Default ${DEFAULT-VALUE}.")
  int accounts;

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(224);

  @Option(names = "--threads", defaultValue = "6720",
      description = "Default ${DEFAULT-VALUE} (the paper's: 30 blocks of 224).")
  int threads;

  @Option(names = "--tx-per-thread", defaultValue = "32",
      description = "At most 32, the postponement window (default ${DEFAULT-VALUE}).")
  int txPerThread;

  @Option(names = "--ratios", split = ",", defaultValue = "0,0.25,0.5,0.75,1",
      description = "Semantic ratios (default ${DEFAULT-VALUE}).")
  List<Double> ratios;

  @Option(names = "--thread-sweep", split = ",", defaultValue = "960,1920,3840,6720,9600",
      description = "Thread counts at 100%% semantic (default ${DEFAULT-VALUE}).")
  List<Integer> threadSweep;

  @Option(names = "--coverage-sweep", split = ",", defaultValue = "1,4,16,64",
      description = "Lock coverages at 100%% semantic (default ${DEFAULT-VALUE}).")
  List<Integer> coverageSweep;

  @Mixin BestOfOption reps = new BestOfOption(2);

  private boolean allOk = true;

  @Override
  Run prepare() {
    reps.check();
    blockSize.check(); // blockSizeFor divides by it
    Checks.oneOf("workload", "workload", workload, "bank", "vacation");
    return e -> {
      if (workload.equals("bank")) {
        overhead(e);
      }
      System.out.printf("%n%s: semantic ratio, %,d threads, lock coverage 1%n", workload,
          threads);
      header();
      for (double ratio : ratios) {
        for (boolean presort : new boolean[] {false, true}) {
          for (SemanticPolicy p : SemanticPolicy.values()) {
            SemanticScenario sc = scenario(ratio, threads, 1);
            TxBatch batch = presort ? TxBatches.presort(sc.batch(), sc.tags()) : sc.batch();
            row(e, p.cliName() + (presort ? ", pre-sorted" : ""), sc, batch,
                RunOptions.defaults().withPolicy(p), ratio);
          }
        }
      }
      System.out.printf("%n%s: thread count, 100%% semantic, no pre-sorting, lock coverage 1%n",
          workload);
      header();
      for (int n : threadSweep) {
        for (SemanticPolicy p : SemanticPolicy.values()) {
          SemanticScenario sc = scenario(1, n, 1);
          row(e, p.cliName() + ", " + n + " threads", sc, sc.batch(),
              RunOptions.defaults().withPolicy(p), 1);
        }
      }
      System.out.printf("%n%s: lock coverage, 100%% semantic, no pre-sorting, %,d threads%n",
          workload, threads);
      header();
      for (int c : coverageSweep) {
        for (SemanticPolicy p : SemanticPolicy.values()) {
          SemanticScenario sc = scenario(1, threads, c);
          row(e, p.cliName() + ", coverage " + c, sc, sc.batch(),
              RunOptions.defaults().withPolicy(p), 1);
        }
      }
      return allOk ? 0 : 1;
    };
  }

  /** The semantic kernel against plain PR-STM on the same transfers, at 0% semantic. */
  private void overhead(Engine e) {
    System.out.println();
    System.out.println("Overhead at 0% semantic: the same transfers, plain PR-STM kernel vs "
        + "the semantic kernel (postpone)");
    header();
    SemanticScenario zero = scenario(0, threads, 1);
    TxBatch checked = zero.batch();
    TxBatch plain = new TxBatch(checked.workload(), checked.types(), checked.columns(),
        new int[] {checked.params()[0], 0}, checked.threadsPerBlock(), checked.blocks(),
        checked.capacity());
    BatchResult base = row(e, "plain PR-STM", zero, plain, RunOptions.defaults(), 0);
    BatchResult sem = row(e, "postpone", zero, checked, RunOptions.defaults(), 0);
    System.out.printf("%nsemantic kernel / plain PR-STM at 0%%: %.3f%n",
        sem.committedPerSecond() / base.committedPerSecond());
  }

  private SemanticScenario scenario(double ratio, int threadCount, int coverage) {
    int tpb = blockSizeFor(threadCount);
    int blocks = threadCount / tpb;
    if (workload.equals("vacation")) {
      return SemanticScenario.vacation(
          VacationConfig.paper(tpb, blocks, txPerThread, ratio, coverage, 7));
    }
    return SemanticScenario.bank(SemanticBankConfig.builder().accounts(accounts).k(2)
        .semanticRatio(ratio).lockCoverage(coverage).grid(tpb, blocks).txPerThread(txPerThread)
        .seed(7).build());
  }

  /** --threads-per-block when it divides the count, else the largest warp multiple that does. */
  private int blockSizeFor(int threadCount) {
    if (threadCount % blockSize.threadsPerBlock == 0) {
      return blockSize.threadsPerBlock;
    }
    for (int tpb = TxBatch.MAX_THREADS_PER_BLOCK; tpb >= 32; tpb -= 32) {
      if (threadCount % tpb == 0) {
        return tpb;
      }
    }
    throw new IllegalArgumentException("threads " + threadCount
        + " must be a multiple of 32 (whole warps) or of --threads-per-block");
  }

  private static void header() {
    Reports.tableHeader("run", "semantic", "tx/batch", "committed tx/s", "committed",
        "abandoned (semantic)", "semantic conflicts", "abort rate", "verifier");
  }

  private BatchResult row(Engine e, String label, SemanticScenario sc, TxBatch batch,
      RunOptions options, double ratio) {
    BatchResult best = null;
    boolean ok = true;
    try (TxStore store = e.createStore(sc.layout())) {
      for (int rep = 0; rep <= reps.reps; rep++) {
        sc.load(store);
        BatchResult r = e.run(store, batch, options);
        ok &= sc.verify(store, batch, r);
        if (rep > 0 && (best == null || r.committedPerSecond() > best.committedPerSecond())) {
          best = r;
        }
      }
    }
    allOk &= ok;
    System.out.printf("| %s | %.0f%% | %,d | %.2f M | %,d | %,d | %,d | %.2f%% | %s |%n", label,
        ratio * 100, batch.txCount(), best.committedPerSecond() / 1e6, best.commits(),
        best.count(Counter.ABANDONED_SEMANTIC), best.count(Counter.SEMANTIC_CONFLICTS),
        best.abortRate() * 100, ok ? "OK" : "FAILED");
    return best;
  }
}
