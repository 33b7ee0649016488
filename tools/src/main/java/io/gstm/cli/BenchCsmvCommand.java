package io.gstm.cli;

import io.gstm.bench.CsmvRuns;
import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.memcached.MemcachedConfig;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-csmv}: the CSMV paper's experiments. Bank with audits over every account at
 * several read-only fractions (CSMV, its two ablations, JVSTM-GPU, PR-STM side by side, with the
 * ratios the targets name), memcached over associativities, and memory and aborts per number of
 * versions. Every batch is verified; prints Markdown tables.
 */
@Command(name = "bench-csmv", mixinStandardHelpOptions = true,
    description = "CSMV vs its ablations, JVSTM-GPU and PR-STM: bank, memcached, versions.",
    footer = "%n--reps 0: the one batch of a cell, cold, counts (for long cells).")
final class BenchCsmvCommand extends EngineCommand {
  @Option(names = "--accounts", defaultValue = "4096", description = "Default ${DEFAULT-VALUE}.")
  int accounts;

  @Option(names = "--read-only", split = ",", defaultValue = "0.01,0.1,0.25,0.5,0.75,0.9,0.99",
      description = "Read-only fractions. Default ${DEFAULT-VALUE}.")
  List<Double> readOnly;

  @Option(names = "--versions", defaultValue = "8", description = "Default ${DEFAULT-VALUE}.")
  int versions;

  @Option(names = "--version-sweep", split = ",", defaultValue = "2,3,4,5,6,7,8,9,10",
      description = "Versions for the memory table (at 90%% read-only). Default ${DEFAULT-VALUE}.")
  List<Integer> versionSweep;

  @Option(names = "--ways", split = ",", defaultValue = "4,8,16,32,64,128,256",
      description = "Memcached associativities. Default ${DEFAULT-VALUE}.")
  List<Integer> ways;

  @Option(names = "--cache-items", defaultValue = "1048576",
      description = "Memcached capacity in items. Default ${DEFAULT-VALUE}.")
  int cacheItems;

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(256);

  @Option(names = "--blocks", defaultValue = "0",
      description = "Client blocks; 0 = as many as are co-resident beside the server (GPU), "
          + "4 on the JVM. Default ${DEFAULT-VALUE}.")
  int blocks;

  @Option(names = "--tx-per-thread", defaultValue = "8", description = "Default ${DEFAULT-VALUE}.")
  int txPerThread;

  @Option(names = "--csmv-audit-span", defaultValue = "0",
      description = "Accounts a CSMV audit sums; 0 = all (the paper's audit). Default "
          + "${DEFAULT-VALUE}.")
  int csmvSpan;

  @Option(names = "--prstm-audit-span", defaultValue = "0",
      description = "Accounts a PR-STM audit sums (one range read, validated by its version "
          + "sum); 0 = all, as CSMV's. Default ${DEFAULT-VALUE}.")
  int prstmSpan;

  @Option(names = "--parts", split = ",", defaultValue = "bank,memcached,versions",
      description = "Which tables. Default ${DEFAULT-VALUE}.")
  List<String> parts;

  @Mixin BestOfOption reps = BestOfOption.orCold(2);

  @Option(names = "--max-retries", defaultValue = "10000",
      description = "Aborts a transaction may meet before it is ABANDONED, so that every cell "
          + "ends (an audit over all accounts can keep losing its versions to transfers). "
          + "Default ${DEFAULT-VALUE}.")
  int maxRetries;

  @Option(names = "--variants", split = ",", defaultValue = "csmv,csmv-nocv,csmv-onlycs,jvstm-gpu",
      description = "CSMV variants the bank table runs (others print '-'). Default "
          + "${DEFAULT-VALUE}.")
  List<String> variants;

  @Option(names = "--no-prstm", description = "Leave PR-STM out of the bank table.")
  boolean noPrstm;

  private boolean allOk = true;

  @Override
  Run prepare() {
    reps.check();
    blockSize.check();
    return e -> {
      if (parts.contains("bank")) {
        bank(e);
      }
      if (parts.contains("memcached")) {
        memcached(e);
      }
      if (parts.contains("versions")) {
        versions(e);
      }
      System.out.println(allOk ? "all batches verified" : "VERIFICATION FAILED");
      return allOk ? 0 : 1;
    };
  }

  private int blocksFor(Engine e, Algorithm alg, String workload) {
    if (blocks > 0) {
      return blocks;
    }
    return CsmvRuns.clientBlocks(e, alg, blockSize.threadsPerBlock, workload);
  }

  private BankConfig bankConfig(Engine e, Algorithm alg, double ro) {
    return BankConfig.builder().accounts(accounts).k(2).readOnly(ro).lockCoverage(1)
        .grid(blockSize.threadsPerBlock, blocksFor(e, alg, BankWorkload.NAME))
        .txPerThread(txPerThread).seed(42).build();
  }

  /** Best of reps bank runs on a fresh store per run; null cell when it failed to verify. */
  private BatchResult bankRun(Engine e, Algorithm alg, BankConfig cfg, TxBatch batch) {
    try (TxStore store = e.createStore(cfg.layout(), alg)) {
      return reps.fastest(() -> {
        CsmvRuns.Verified v = CsmvRuns.bank(e, store, cfg, batch, maxRetries);
        BatchResult r = v.result();
        if (!v.verdict().ok()) {
          System.out.println("FAILED verification: " + alg.label() + " " + cfg + ": "
              + v.verdict());
          allOk = false;
        }
        System.err.printf("# %s %s: %d blocks, %.1f ms, %s tx/s, aborts %s%n", alg.label(),
            cfg, batch.blocks(), r.kernelNanos() / 1e6, rate(r), causes(r));
        return r;
      }, BatchResult::kernelNanos);
    }
  }

  private static String rate(BatchResult r) {
    if (r == null) {
      return "-";
    }
    return String.format("%.3g", r.committedPerSecond());
  }

  private static String causes(BatchResult r) {
    if (r == null) {
      return "-";
    }
    return String.format("%.1f%% (age %d, rec %d, rw %d, pre %d)", r.abortRate() * 100,
        r.count(Counter.ABORT_DATA_AGE), r.count(Counter.ABORT_RECORD_AGE),
        r.count(Counter.ABORT_RW_CONFLICT), r.count(Counter.ABORT_PREVALIDATION));
  }

  private void bank(Engine e) {
    System.out.printf("%n## bank: %d accounts, transfers of k=2, CSMV audits over %d "
        + "accounts, PR-STM audits over %d; %d versions; committed tx/s%n%n", accounts,
        csmvSpan(), prstmSpan(), versions);
    Reports.tableHeader("read-only", "CSMV", "CSMV-NoCV", "CSMV-onlyCS", "JVSTM-GPU", "PR-STM",
        "CSMV/PR-STM", "CSMV/JVSTM-GPU", "CSMV aborts", "JVSTM-GPU aborts", "PR-STM aborts");
    for (double ro : readOnly) {
      BatchResult[] r = new BatchResult[CsmvVariant.values().length];
      for (CsmvVariant v : CsmvVariant.values()) {
        if (!variants.contains(v.label())) {
          continue;
        }
        Algorithm alg = Algorithm.csmv(versions).withVariant(v);
        BankConfig cfg = bankConfig(e, alg, ro);
        r[v.ordinal()] = bankRun(e, alg, cfg, cfg.batchWithAuditSpan(csmvSpan()));
      }
      // PR-STM on the CSMV grid: the same threads as the server variants.
      BankConfig pcfg = bankConfig(e, Algorithm.csmv(versions), ro);
      TxBatch pb = pcfg.batchWithAuditSpan(prstmSpan());
      BatchResult p = noPrstm ? null : bankRun(e, Algorithm.prStm(), pcfg, pb);
      BatchResult c = r[CsmvVariant.CSMV.ordinal()];
      BatchResult j = r[CsmvVariant.JVSTM_GPU.ordinal()];
      System.out.printf("| %.0f%% | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
          ro * 100, rate(c), rate(r[1]), rate(r[2]), rate(j), rate(p), ratio(c, p), ratio(c, j),
          causes(c), causes(j), p == null ? "-" : String.format("%.1f%%", p.abortRate() * 100));
    }
    System.out.println();
    System.out.println("Targets: CSMV/PR-STM >= 100x at 99% read-only; CSMV/JVSTM-GPU >= 20x at "
        + "1% read-only.");
  }

  private static String ratio(BatchResult a, BatchResult b) {
    if (a == null || b == null) {
      return "-";
    }
    return String.format("%.1fx", a.committedPerSecond() / Math.max(1e-9,
        b.committedPerSecond()));
  }

  private int csmvSpan() {
    return span(csmvSpan);
  }

  private int prstmSpan() {
    return span(prstmSpan);
  }

  /** An audit span option: 0 means every account. */
  private int span(int option) {
    return option > 0 ? Math.min(option, accounts) : accounts;
  }

  private void memcached(Engine e) {
    System.out.printf("%n## memcached: %d items, 99.8%% GET, Zipf 0.99, %d versions; committed "
        + "tx/s%n%n", cacheItems, versions);
    Reports.tableHeader("ways", "CSMV", "CSMV-NoCV", "CSMV-onlyCS", "JVSTM-GPU",
        "CSMV/JVSTM-GPU", "CSMV aborts", "memory (formula)");
    for (int w : ways) {
      BatchResult[] r = new BatchResult[CsmvVariant.values().length];
      CsmvMemory mem = null;
      for (CsmvVariant v : CsmvVariant.values()) {
        Algorithm alg = Algorithm.csmv(versions).withVariant(v);
        MemcachedConfig cfg = MemcachedConfig.of(cacheItems, w, blockSize.threadsPerBlock,
            blocksFor(e, alg, "memcached"), txPerThread, 7);
        TxBatch batch = cfg.batch();
        int[][] initial = cfg.initialState();
        try (TxStore store = e.createStore(cfg.layout(), alg)) {
          mem = store.csmvMemory();
          r[v.ordinal()] = reps.fastest(() -> {
            CsmvRuns.Verified run = CsmvRuns.memcached(e, store, initial, batch, maxRetries);
            if (!run.verdict().ok()) {
              System.out.println("FAILED verification: " + alg.label() + " ways " + w + ": "
                  + run.verdict());
              allOk = false;
            }
            return run.result();
          }, BatchResult::kernelNanos);
        }
      }
      BatchResult c = r[0];
      System.out.printf("| %d | %s | %s | %s | %s | %.1fx | %s | %,d B |%n", w, rate(c),
          rate(r[1]), rate(r[2]), rate(r[3]),
          c.committedPerSecond() / Math.max(1e-9, r[3].committedPerSecond()), causes(c),
          mem.formulaBytes());
    }
    System.out.println();
    System.out.println("PR-STM: no GPU memcached kernel (a GET reads up to 256 tags, beyond its "
        + "16-entry read set).");
  }

  private void versions(Engine e) {
    System.out.printf("%n## versions: bank %d accounts, 90%% read-only, audits over all "
        + "accounts%n%n", accounts);
    Reports.tableHeader("store", "memory (paper formula)", "allocated", "committed tx/s",
        "abort rate (causes)");
    System.out.printf("| PR-STM | %,d B (4 B value + 8 B lock) | | | |%n", 12L * accounts);
    for (int v : versionSweep) {
      Algorithm alg = Algorithm.csmv(v);
      BankConfig cfg = bankConfig(e, alg, 0.9);
      CsmvMemory mem;
      try (TxStore s = e.createStore(cfg.layout(), alg)) {
        mem = s.csmvMemory();
      }
      BatchResult r = bankRun(e, alg, cfg, cfg.batchWithAuditSpan(accounts));
      if (!mem.matchesFormula()) {
        allOk = false;
      }
      System.out.printf("| CSMV %dv | %,d B | %,d B%s | %s | %s |%n", v, mem.formulaBytes(),
          mem.allocatedBytes(), mem.matchesFormula() ? "" : " MISMATCH", rate(r), causes(r));
    }
  }
}
