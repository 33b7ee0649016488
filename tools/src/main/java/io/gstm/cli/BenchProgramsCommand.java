package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.kmeans.KMeansPrograms;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationPrograms;
import io.gstm.core.workload.vacation.VacationVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-programs}: the bank and vacation as transaction programs against their
 * hand-written kernels, same seeded batches, same engine, alternating runs; committed tx/s over
 * kernel time, and the ratio of the wall time of {@code Engine.run} as the caller sees it
 * (upload, checks and binding included), every batch verified.
 */
@Command(name = "bench-programs", mixinStandardHelpOptions = true,
    description = "Programs (the interpreter) against the hand-written bank and vacation, same "
        + "batches, same run: committed tx/s and their ratio, every batch verified. A run is a "
        + "pair of batches, one per side, alternating which goes first.")
final class BenchProgramsCommand extends EngineCommand {
  @Option(names = "--workloads", split = ",", defaultValue = "bank,vacation",
      description = "bank, vacation, kmeans. Default ${DEFAULT-VALUE}.")
  List<String> workloads;

  @Mixin BankOptions bank = new BankOptions(2621440, 2, 0);

  @Option(names = "--customers", defaultValue = "150000",
      description = "Vacation customers (default ${DEFAULT-VALUE}, the paper's).")
  int customers;

  @Option(names = "--kmeans-points", defaultValue = "262144",
      description = "k-means: points (2-D, k = 16, 4 per transaction; default ${DEFAULT-VALUE}).")
  int kmeansPoints;

  @Mixin GridOptions grid = new GridOptions(256, 2112, 8);

  @Mixin TrialOptions trials = new TrialOptions(5, 2);

  @Option(names = "--algorithms", split = ",", defaultValue = "prstm",
      description = "prstm, and for the bank the CSMV variants (csmv, csmv-nocv, csmv-onlycs, "
          + "jvstm-gpu). Default ${DEFAULT-VALUE}.")
  List<String> algorithms;

  /** Per row, the kernel time and the attempts of each side. */
  private final List<String> details = new ArrayList<>();

  @Override
  Run prepare() {
    // Checked before anything runs: a sweep must not fail half way.
    trials.check();
    for (String w : workloads) {
      Checks.oneOf("workloads", "workload", w, "bank", "vacation", "kmeans");
    }
    for (String alg : algorithms) {
      AlgorithmOption.parse("algorithms", alg);
    }
    return e -> {
      boolean allOk = true;
      for (String alg : algorithms) {
        Algorithm a = AlgorithmOption.parse("algorithms", alg);
        if ((a.isGpuStm() || a.isCederman()) && e.name().equals("cuda")) {
          throw new IllegalArgumentException("algorithms: " + a.label() + " runs transaction "
              + "programs only on the GPU, so it has no hand-written kernel to compare with "
              + "(run it with --engine jvm, or its programs with bench-ds or run)");
        }
      }
      System.out.println();
      Reports.tableHeader("workload", "algorithm", "transactions", "hand-written tx/s",
          "program tx/s", "program / hand-written (min..max)",
          "end to end, program / hand-written", "verifier");
      for (String w : workloads) {
        for (String alg : algorithms) {
          Algorithm algorithm = AlgorithmOption.parse("algorithms", alg);
          if (!w.equals("bank") && algorithm.isCsmv()) {
            continue; // vacation retries, k-means runs under the semantic CM: PR-STM only
          }
          allOk &= switch (w) {
            case "bank" -> bank(e, algorithm);
            case "vacation" -> vacation(e);
            default -> kmeans(e);
          };
        }
      }
      System.out.println();
      Reports.tableHeader("workload", "algorithm", "hand-written: kernel (median), attempts",
          "program: kernel (median), attempts");
      details.forEach(System.out::println);
      return allOk ? 0 : 1;
    };
  }

  private boolean bank(Engine e, Algorithm algorithm) {
    int b = grid.blocks;
    if (algorithm.isCsmv() && e.name().equals("cuda")) {
      b = Math.min(b, 64); // a cooperative launch: the grid must be resident
    }
    BankConfig cfg = BankConfig.builder().accounts(bank.accounts).k(bank.k)
        .readOnly(bank.readOnly).lockCoverage(1).grid(grid.threadsPerBlock(), b)
        .txPerThread(grid.txPerThread).seed(42).build();
    int[] initial = cfg.initialBalances();
    boolean ok = true;
    for (boolean checked : algorithm.isCsmv() ? new boolean[] {false}
        : new boolean[] {false, true}) {
      // Checked transfers (a transfer that would overdraw waits) run the semantic contention
      // manager on both sides; the balances never run short here, so the work is the same.
      TxBatch plain = cfg.batch();
      TxBatch batch = checked ? new TxBatch(plain.workload(), plain.types(), plain.columns(),
          new int[] {bank.k, 0, 1}, plain.threadsPerBlock(), plain.blocks(),
          plain.capacity()) : plain;
      // Checked rows: every account starts with what it pays in the batch on top, so that no
      // transfer waits whatever the account count (with few accounts, 1,000 each ran short and
      // the batch crawled through semantic conflicts).
      int[] start = checked ? coveringBalances(initial, plain) : initial;
      ProgramBatch programs = BankPrograms.batch(batch, BankPrograms.set(batch, false));
      ok &= compare("bank k=" + bank.k + (checked ? ", checked" : ""), algorithm, e,
          cfg.layout(), batch, programs, store -> store.writeInt32(0, start),
          (store, r) -> BankVerifier.verify(start, batch, r, store.readInt32(0)).ok());
    }
    return ok;
  }

  /** {@code initial} plus what each account pays as the first account of the transfers. */
  private static int[] coveringBalances(int[] initial, TxBatch batch) {
    long[] b = new long[initial.length];
    for (int i = 0; i < b.length; i++) {
      b[i] = initial[i];
    }
    int kk = batch.params()[0];
    for (int t = 0; t < batch.txCount(); t++) {
      if (BankWorkload.Type.TRANSFER.is(batch.types()[t])) {
        b[batch.columns()[0][t]] += (long) batch.columns()[kk][t] * (kk - 1);
      }
    }
    int[] out = new int[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (int) Math.min(Integer.MAX_VALUE, b[i]);
    }
    return out;
  }

  private boolean vacation(Engine e) {
    VacationConfig cfg = VacationConfig.builder().customers(customers)
        .roomTypes(VacationConfig.PAPER_ROOM_TYPES)
        .roomsPerType(VacationConfig.PAPER_ROOMS_PER_TYPE).semanticRatio(0.5).lockCoverage(1)
        .grid(grid.threadsPerBlock(), grid.blocks).txPerThread(grid.txPerThread).seed(7).build();
    TxBatch batch = cfg.batch();
    ProgramBatch programs = VacationPrograms.batch(batch, VacationPrograms.set(batch, false));
    int[] rooms = cfg.initialRooms();
    int[] custs = cfg.initialCustomers();
    return compare("vacation", Algorithm.prStm(), e, cfg.layout(), batch, programs, store -> {
      store.writeInt32(0, rooms);
      store.writeInt32(1, custs);
    }, (store, r) -> VacationVerifier.verify(rooms, custs, batch, r, store.readInt32(0),
        store.readInt32(1)).ok());
  }

  /**
   * The k-means update (accumulate each point into its centroid's sums, slices of 2 words) over
   * {@code --kmeans-points} 2-D points, k = 16, 4 points per transaction: the semantic kernel's
   * workload against its program.
   */
  private boolean kmeans(Engine e) {
    int n = kmeansPoints;
    int k = 16;
    int dims = 2;
    int perTx = 4;
    SplittableRandom rnd = new SplittableRandom(11);
    double[] points = new double[n * dims];
    for (int i = 0; i < points.length; i++) {
      points[i] = rnd.nextDouble(-10, 10);
    }
    int[] assign = new int[n];
    for (int p = 0; p < n; p++) {
      assign[p] = rnd.nextInt(k);
    }
    TxBatch batch = KMeansWorkload.batch(assign, k, dims, perTx, 2,
        grid.threadsPerBlock());
    ProgramBatch programs = KMeansPrograms.batch(batch,
        KMeansPrograms.set(batch, perTx, false));
    StoreLayout layout = KMeansWorkload.layout(n, dims, k);
    double[] expected = new double[k * (dims + 1)];
    for (int p = 0; p < n; p++) {
      expected[assign[p] * (dims + 1)] += 1;
      for (int d = 0; d < dims; d++) {
        expected[assign[p] * (dims + 1) + 1 + d] += points[p * dims + d];
      }
    }
    return compare("kmeans", Algorithm.prStm(), e, layout, batch, programs, store -> {
      store.writeFloat64(0, new double[k * (dims + 1)]);
      store.writeFloat64(1, points);
      store.writeInt32(2, assign);
    }, (store, r) -> {
      double[] got = store.readFloat64(0);
      for (int i = 0; i < got.length; i++) {
        if (Math.abs(got[i] - expected[i]) > 1e-9 * Math.max(1, Math.abs(expected[i]))) {
          return false;
        }
      }
      return r.commits() == batch.txCount();
    });
  }

  private interface Init {
    void write(TxStore store);
  }

  private interface Check {
    boolean ok(TxStore store, BatchResult r);
  }

  private boolean compare(String name, Algorithm algorithm, Engine e, StoreLayout layout,
      TxBatch batch, ProgramBatch programs, Init init, Check check) {
    List<Double> hand = new ArrayList<>();
    List<Double> prog = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    List<Double> wallRatios = new ArrayList<>();
    List<BatchResult[]> runs = new ArrayList<>();
    boolean ok = true;
    try (TxStore store = e.createStore(layout, algorithm)) {
      for (int rep = 0; rep < trials.warmups() + trials.reps(); rep++) {
        // The two sides alternate which goes first; each pair gives one ratio, so a drift of
        // the machine's speed between pairs cancels out.
        double[] rate = new double[2];
        long[] wall = new long[2];
        BatchResult[] pair = new BatchResult[2];
        for (int i = 0; i < 2; i++) {
          boolean programSide = (i == 1) != (rep % 2 == 1);
          init.write(store);
          long t0 = System.nanoTime();
          BatchResult r = programSide ? e.run(store, programs, RunOptions.defaults()).stats()
              : e.run(store, batch, RunOptions.defaults());
          int side = programSide ? 1 : 0;
          wall[side] = System.nanoTime() - t0;
          rate[side] = r.committedPerSecond();
          pair[side] = r;
          ok &= check.ok(store, r);
        }
        if (rep >= trials.warmups()) {
          hand.add(rate[0]);
          prog.add(rate[1]);
          ratios.add(rate[1] / rate[0]);
          wallRatios.add((double) wall[0] / wall[1]);
          runs.add(pair);
        }
      }
    }
    if (e instanceof CudaEngine cuda) {
      details.add("programs of " + name + ": " + cuda.lastProgramPath());
    }
    System.out.printf("| %s | %s | %,d | %.3f M | %.3f M | **%.2f** (%.2f..%.2f) | %.2f | %s |%n",
        name, algorithm.label(), batch.txCount(), median(hand) / 1e6, median(prog) / 1e6,
        median(ratios), min(ratios), max(ratios), median(wallRatios), ok ? "OK" : "FAILED");
    details.add(String.format("| %s | %s | %s | %s |", name, algorithm.label(),
        detail(runs, 0), detail(runs, 1)));
    return ok;
  }

  /** Kernel time, attempts per commit and semantic conflicts of one side, over its runs. */
  private static String detail(List<BatchResult[]> runs, int side) {
    List<Double> ms = new ArrayList<>();
    long commits = 0;
    long aborts = 0;
    long semantic = 0;
    for (BatchResult[] pair : runs) {
      BatchResult r = pair[side];
      ms.add(r.kernelNanos() / 1e6);
      commits += r.commits();
      aborts += r.aborts();
      semantic += r.count(io.gstm.core.batch.Counter.SEMANTIC_CONFLICTS);
    }
    return String.format("%.2f ms, %.3f attempts/commit, %,d semantic conflicts", median(ms),
        (commits + aborts + semantic) / (double) Math.max(1, commits), semantic / runs.size());
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static double min(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
  }

  private static double max(List<Double> values) {
    return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

}
