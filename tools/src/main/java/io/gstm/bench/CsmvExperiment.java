package io.gstm.bench;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.memcached.MemcachedConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The CSMV paper's figures: the bank over the read-only fraction for CSMV, its two ablations,
 * JVSTM-GPU and PR-STM (audits over every account); memory and throughput over the number of
 * versions; memcached over the associativity (no PR-STM: a GET reads more than its sets hold).
 */
final class CsmvExperiment implements Experiment {

  /** Which figure. */
  enum Figure {
    READ_ONLY("csmv-read-only", "read_only", "committed_tx_per_s", "read-only fraction"),
    VERSIONS("csmv-versions", "versions", "memory_bytes", "versions kept per item"),
    MEMCACHED("csmv-memcached", "ways", "committed_tx_per_s", "memcached associativity");

    final String experiment;
    final String x;
    final String y;
    final String words;

    Figure(String experiment, String x, String y, String words) {
      this.experiment = experiment;
      this.x = x;
      this.y = y;
      this.words = words;
    }
  }

  /** Aborts a transaction may meet before ABANDONED: an all-account audit can keep losing. */
  private static final int MAX_RETRIES = 10_000;
  private static final int TX_PER_THREAD = 8;

  private final Figure figure;

  CsmvExperiment(Figure figure) {
    this.figure = figure;
  }

  @Override
  public About about() {
    String description = switch (figure) {
      case READ_ONLY -> "Bank over the read-only fraction: CSMV, CSMV-NoCV, CSMV-onlyCS, "
          + "JVSTM-GPU and PR-STM, committed tx/s (CSMV paper).";
      case VERSIONS -> "CSMV memory (bytes) and bank throughput over the versions kept per "
          + "item, 90% read-only (CSMV paper).";
      case MEMCACHED -> "Memcached (99.8% GET, Zipf 0.99) over the associativity: CSMV, its "
          + "ablations and JVSTM-GPU, committed tx/s (CSMV paper).";
    };
    String title = "CSMV: " + figure.y + " vs " + figure.words;
    // Throughputs of the STMs differ by orders of magnitude, as in the paper's log-scale plots.
    Plot plot = switch (figure) {
      case READ_ONLY -> Plot.lines(title, figure.x, figure.y, "algorithm").withLogY();
      case VERSIONS -> Plot.lines(title, figure.x, figure.y, "algorithm");
      case MEMCACHED -> Plot.logLines(title, figure.x, figure.y, "algorithm").withLogY();
    };
    return new About(figure.experiment, description, List.of("algorithm", "read_only",
        "versions", "ways", "threads", "tx", "committed_tx_per_s", "abort_rate", "memory_bytes",
        "verified"), plot);
  }

  /** Sizes of one scale. */
  private record Sizes(int accounts, int cacheItems, int threadsPerBlock, int defaultVersions) {}

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    Sizes sz = scale.pick(new Sizes(256, 4096, 32, 8), new Sizes(4096, 65_536, 64, 8),
        new Sizes(4096, 1 << 20, 256, 8));
    int reps = Trials.reps(scale);
    List<Step> steps = new ArrayList<>();
    switch (figure) {
      case READ_ONLY -> {
        for (double ro : scale.pick(List.of(0.1, 0.9), List.of(0.01, 0.5, 0.9, 0.99),
            List.of(0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99))) {
          for (CsmvVariant v : CsmvVariant.values()) {
            Algorithm alg = Algorithm.csmv(sz.defaultVersions()).withVariant(v);
            steps.add(out -> bank(engine, alg, sz, ro, reps, out));
          }
          steps.add(out -> bank(engine, Algorithm.prStm(), sz, ro, reps, out));
        }
      }
      case VERSIONS -> {
        for (int versions : scale.pick(List.of(2, 8), List.of(2, 4, 8), List.of(2, 3, 4, 5, 6,
            7, 8, 9, 10))) {
          steps.add(out -> bank(engine, Algorithm.csmv(versions), sz, 0.9, reps, out));
        }
      }
      case MEMCACHED -> {
        for (int ways : scale.pick(List.of(4, 16), List.of(4, 16, 64),
            List.of(4, 8, 16, 32, 64, 128, 256))) {
          for (CsmvVariant v : CsmvVariant.values()) {
            Algorithm alg = Algorithm.csmv(sz.defaultVersions()).withVariant(v);
            steps.add(out -> memcached(engine, alg, sz, ways, reps, out));
          }
        }
      }
    }
    return steps;
  }

  private static void bank(Engine engine, Algorithm alg, Sizes sz, double ro, int reps,
      ResultTable out) {
    BankConfig cfg = BankConfig.builder().accounts(sz.accounts()).k(2).readOnly(ro).lockCoverage(1)
        .grid(sz.threadsPerBlock(), CsmvRuns.clientBlocks(engine, alg, sz.threadsPerBlock(),
            BankWorkload.NAME))
        .txPerThread(TX_PER_THREAD).seed(42).build();
    TxBatch batch = cfg.batchWithAuditSpan(sz.accounts());
    long memory;
    Trials.Checked best;
    try (TxStore store = engine.createStore(cfg.layout(), alg)) {
      memory = alg.isCsmv() ? store.csmvMemory().allocatedBytes() : 12L * sz.accounts();
      best = Trials.best(reps, () -> checked(CsmvRuns.bank(engine, store, cfg, batch,
          MAX_RETRIES)));
    }
    BatchResult r = best.result();
    out.add(alg.label(), ro, alg.isCsmv() ? alg.versions() : 1, 0, batch.threads(),
        batch.txCount(), r.committedPerSecond(), r.abortRate(), memory, best.ok());
  }

  private static void memcached(Engine engine, Algorithm alg, Sizes sz, int ways, int reps,
      ResultTable out) {
    MemcachedConfig cfg = MemcachedConfig.of(sz.cacheItems(), ways, sz.threadsPerBlock(),
        CsmvRuns.clientBlocks(engine, alg, sz.threadsPerBlock(), "memcached"), TX_PER_THREAD, 7);
    TxBatch batch = cfg.batch();
    int[][] initial = cfg.initialState();
    CsmvMemory memory;
    Trials.Checked best;
    try (TxStore store = engine.createStore(cfg.layout(), alg)) {
      memory = store.csmvMemory();
      best = Trials.best(reps, () -> checked(CsmvRuns.memcached(engine, store, initial, batch,
          MAX_RETRIES)));
    }
    BatchResult r = best.result();
    out.add(alg.label(), cfg.getFraction(), alg.versions(), ways, batch.threads(),
        batch.txCount(), r.committedPerSecond(), r.abortRate(), memory.allocatedBytes(),
        best.ok());
  }

  private static Trials.Checked checked(CsmvRuns.Verified v) {
    return new Trials.Checked(v.result(), v.verdict().ok());
  }
}
