package io.gstm.cli;

import io.gstm.bench.ProgramTrials;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.LimitsReport;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.Backoff;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsConfig;
import io.gstm.core.workload.ds.DsKind;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-ds}: Cederman's data structures (as transaction programs) on each algorithm
 * (by default all five: PR-STM, CSMV, GPU-STM, blocking, obstruction-free; the last two also
 * per backoff) at full and low contention; a table per structure of committed tx/s and aborts
 * per transaction, in all and by cause, beside the random read+CAS bound measured in the same
 * run, every batch verified.
 */
@Command(name = "bench-ds", mixinStandardHelpOptions = true,
    description = "Queue, hash map, tree and skip list on each algorithm (prstm, csmv, gpu-stm, "
        + "blocking, obstruction-free) at full and low contention: committed tx/s, aborts per "
        + "transaction in all and by cause, the CAS bound; every batch verified.")
final class BenchDsCommand extends EngineCommand {
  @Option(names = "--structures", split = ",", defaultValue = "queue,hashmap,tree,skiplist",
      description = "Default ${DEFAULT-VALUE}.")
  List<String> structures;

  @Option(names = "--algorithms", split = ",",
      defaultValue = "prstm,csmv,gpu-stm,blocking,obstruction-free",
      description = "prstm, the CSMV variants (csmv, csmv-nocv, csmv-onlycs, jvstm-gpu), "
          + "gpu-stm, blocking and obstruction-free (these two optionally with a backoff: "
          + "blocking:none, obstruction-free:linear, ...). Default ${DEFAULT-VALUE}.")
  List<String> algorithms;

  @Option(names = "--backoffs", split = ",",
      description = "Blocking and obstruction-free: a row per backoff instead of the "
          + "algorithm's own (none, linear, exponential, each optionally :unit:max in ns), as "
          + "the paper's figures compare them.")
  List<String> backoffs;

  @Option(names = "--contention", split = ",", defaultValue = "full,low",
      description = "full (back to back, small key range) and/or low (local work between "
          + "transactions, the widest key range). Default ${DEFAULT-VALUE}.")
  List<String> contention;

  @Option(names = "--transactions", defaultValue = "65536",
      description = "Transactions per batch. Default ${DEFAULT-VALUE}.")
  int transactions;

  @Option(names = "--local-work", defaultValue = "256",
      description = "Low contention: local work iterations drawn from 0..N before each "
          + "transaction. Default ${DEFAULT-VALUE}.")
  int localWork;

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(256);

  @Option(names = "--blocks", defaultValue = "64",
      description = "Default ${DEFAULT-VALUE} (CSMV on the GPU is a cooperative launch: the "
          + "grid must be resident).")
  int blocks;

  @Mixin TrialOptions trials = new TrialOptions(3, 1);

  @Option(names = "--history", description = "Also record the history: the history checker, "
      + "the model replay in its serial order and the programs' serial replay (slower; not "
      + "for CSMV on the GPU, whose kernel records none).")
  boolean history;

  @Mixin SeedOption seed = new SeedOption(42);

  @Option(names = "--urgent-after", defaultValue = "" + RunOptions.DEFAULT_URGENT_AFTER,
      description = "PR-STM: aborts in a row before a transaction turns urgent (visible reads, "
          + "oldest first); 2147483647: never, the paper's static priorities alone. "
          + "Default ${DEFAULT-VALUE}.")
  int urgentAfter;

  @Override
  Run prepare() {
    // Everything checked before anything runs: a sweep must not fail half way.
    trials.check();
    Checks.atLeast("urgent-after", urgentAfter, 1);
    if (localWork < 0 || localWork > DsConfig.MAX_WORK) {
      throw new IllegalArgumentException("local-work must be in 0.." + DsConfig.MAX_WORK
          + " iterations, got " + localWork);
    }
    List<DsKind> kinds = new ArrayList<>();
    for (String s : structures) {
      kinds.add(DsKind.parse("structures", s));
    }
    List<Algorithm> algs = new ArrayList<>();
    for (String a : algorithms) {
      Algorithm alg = AlgorithmOption.parse("algorithms", a);
      if (alg.isCederman() && backoffs != null) {
        for (String b : backoffs) {
          algs.add(alg.withBackoff(Backoff.parse("backoffs", b)));
        }
      } else {
        algs.add(alg);
      }
    }
    for (String c : contention) {
      Checks.oneOf("contention", "level", c, "full", "low");
    }
    for (DsKind k : kinds) {
      for (String c : contention) {
        for (Algorithm a : algs) {
          config(k, c).runnableOn(a).checkAlgorithm(a);
        }
      }
    }
    return e -> {
      boolean allOk = true;
      LimitsReport bound = e.probeLimits(1 << 16);
      System.out.println("bound: " + bound);
      for (DsKind k : kinds) {
        System.out.println();
        System.out.println("### " + k.label());
        System.out.println();
        Reports.tableHeader("contention", "algorithm", "transactions", "committed tx/s",
            "aborts per tx", "aborts per tx by cause", "walk/pool ends", "CAS bound / s",
            "tx/s per CAS/s", "verifier");
        for (String c : contention) {
          for (Algorithm a : algs) {
            allOk &= row(e, bound, config(k, c).runnableOn(a), c, a);
          }
        }
      }
      return allOk ? 0 : 1;
    };
  }

  private DsConfig config(DsKind k, String level) {
    int tpb = blockSize.threadsPerBlock;
    if (level.equals("full")) {
      return DsConfig.fullContention(k, transactions, tpb, blocks, seed.seed());
    }
    return DsConfig.lowContention(k, transactions, tpb, blocks, seed.seed())
        .withMaxWork(localWork);
  }

  private boolean row(Engine e, LimitsReport bound, DsConfig cfg, String level, Algorithm a) {
    // The CUDA CSMV kernel records no history: its rows get the verifier alone.
    boolean recorded = history && !(a.isCsmv() && e.name().equals("cuda"));
    ProgramTrials.Measured m = ProgramTrials.dataStructure(e, DsBatch.of(cfg), a,
        RunOptions.defaults().withHistory(recorded).withUrgentAfter(urgentAfter),
        trials.warmups(), trials.reps());
    if (cfg.kind() == DsKind.SKIPLIST) {
      level += ", " + cfg.levels() + " levels"; // CSMV runs the skip list on 4
    }
    double rate = m.committedPerSecond();
    System.out.printf("| %s | %s | %,d | %.3f M | %.3f | %s | %,d | %.2f G | %.5f | %s |%n",
        level, a.label(), m.tx(), rate / 1e6, m.abortsPerTx(), m.abortsByCause(),
        m.userAborts(), bound.readCasPerSecond() / 1e9, rate / bound.readCasPerSecond(),
        (m.ok() ? "OK" : "FAILED: " + m.problems().get(0))
            + (history && !recorded ? " (no history)" : ""));
    return m.ok();
  }
}
