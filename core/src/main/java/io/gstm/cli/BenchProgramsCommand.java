package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationPrograms;
import io.gstm.core.workload.vacation.VacationVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-programs}: the bank and vacation as transaction programs against their
 * hand-written kernels, same seeded batches, same engine, alternating runs; committed tx/s over
 * kernel time and end to end, every batch verified.
 */
@Command(name = "bench-programs", mixinStandardHelpOptions = true,
    description = "Programs (the interpreter) against the hand-written bank and vacation, same "
        + "batches, same run: committed tx/s and their ratio, every batch verified.")
final class BenchProgramsCommand implements Callable<Integer> {
  @Mixin EngineOption engine = new EngineOption();

  @Option(names = "--workloads", split = ",", defaultValue = "bank,vacation",
      description = "bank, vacation. Default ${DEFAULT-VALUE}.")
  List<String> workloads;

  @Option(names = "--accounts", defaultValue = "2621440", description = "Default ${DEFAULT-VALUE}.")
  int accounts;

  @Option(names = "--k", defaultValue = "2", description = "Default ${DEFAULT-VALUE}.")
  int k;

  @Option(names = "--read-only", defaultValue = "0", description = "Default ${DEFAULT-VALUE}.")
  double readOnly;

  @Option(names = "--customers", defaultValue = "150000",
      description = "Vacation customers (default ${DEFAULT-VALUE}, the paper's).")
  int customers;

  @Option(names = "--threads-per-block", defaultValue = "256",
      description = "Default ${DEFAULT-VALUE}.")
  int threadsPerBlock;

  @Option(names = "--blocks", defaultValue = "2112", description = "Default ${DEFAULT-VALUE}.")
  int blocks;

  @Option(names = "--tx-per-thread", defaultValue = "8", description = "Default ${DEFAULT-VALUE}.")
  int txPerThread;

  @Option(names = "--reps", defaultValue = "3",
      description = "Timed batches per side after one warm-up; the median is kept.")
  int reps;

  @Option(names = "--algorithms", split = ",", defaultValue = "prstm",
      description = "prstm, and for the bank the CSMV variants (csmv, csmv-nocv, csmv-onlycs, "
          + "jvstm-gpu). Default ${DEFAULT-VALUE}.")
  List<String> algorithms;

  /** One measured side: the median batch and whether every batch verified. */
  private record Side(BatchResult median, boolean ok) {}

  @Override
  public Integer call() {
    boolean allOk = true;
    try (Engine e = engine.open().engine()) {
      System.out.println();
      System.out.println("| workload | algorithm | transactions | hand-written tx/s | program "
          + "tx/s | program / hand-written | end to end: hand-written ms | program ms | "
          + "ratio | verifier |");
      System.out.println("|---|---|---|---|---|---|---|---|---|---|");
      for (String w : workloads) {
        for (String alg : algorithms) {
          Algorithm algorithm = alg.equals("prstm") ? Algorithm.prStm()
              : Algorithm.csmv(Algorithm.DEFAULT_VERSIONS).withVariant(CsmvVariant.parse(alg));
          if (w.equals("vacation") && algorithm.isCsmv()) {
            continue; // vacation retries: PR-STM's semantic contention manager only
          }
          allOk &= switch (w) {
            case "bank" -> bank(e, algorithm);
            case "vacation" -> vacation(e);
            default -> throw new IllegalArgumentException("workloads: unknown workload '" + w
                + "', expected bank or vacation");
          };
        }
      }
    }
    return allOk ? 0 : 1;
  }

  private boolean bank(Engine e, Algorithm algorithm) {
    int b = blocks;
    if (algorithm.isCsmv() && e.name().equals("cuda")) {
      b = Math.min(b, 64); // a cooperative launch: the grid must be resident
    }
    BankConfig cfg = new BankConfig(accounts, k, readOnly, 1, threadsPerBlock, b, txPerThread,
        42);
    int[] initial = cfg.initialBalances();
    boolean ok = true;
    for (boolean checked : algorithm.isCsmv() ? new boolean[] {false}
        : new boolean[] {false, true}) {
      // Checked transfers (a transfer that would overdraw waits) run the semantic contention
      // manager on both sides; the balances never run short here, so the work is the same.
      TxBatch plain = cfg.batch();
      TxBatch batch = checked ? new TxBatch(plain.workload(), plain.types(), plain.columns(),
          new int[] {k, 0, 1}, plain.threadsPerBlock(), plain.blocks(), plain.capacity())
          : plain;
      ProgramBatch programs = BankPrograms.batch(batch, BankPrograms.set(batch, false));
      ok &= compare("bank k=" + k + (checked ? ", checked" : ""), algorithm, e, cfg.layout(),
          batch, programs, store -> store.writeInt32(0, initial),
          (store, r) -> BankVerifier.verify(initial, batch, r, store.readInt32(0)).ok());
    }
    return ok;
  }

  private boolean vacation(Engine e) {
    VacationConfig cfg = new VacationConfig(customers, VacationConfig.PAPER_ROOM_TYPES,
        VacationConfig.PAPER_ROOMS_PER_TYPE, 0.5, 1, threadsPerBlock, blocks, txPerThread, 7);
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

  private interface Init {
    void write(TxStore store);
  }

  private interface Check {
    boolean ok(TxStore store, BatchResult r);
  }

  private boolean compare(String name, Algorithm algorithm, Engine e, StoreLayout layout,
      TxBatch batch, ProgramBatch programs, Init init, Check check) {
    List<BatchResult> hand = new ArrayList<>();
    List<BatchResult> prog = new ArrayList<>();
    boolean ok = true;
    try (TxStore store = e.createStore(layout, algorithm)) {
      for (int rep = 0; rep <= reps; rep++) {
        init.write(store);
        BatchResult h = e.run(store, batch, RunOptions.defaults());
        ok &= check.ok(store, h);
        init.write(store);
        ProgramResult p = e.run(store, programs, RunOptions.defaults());
        ok &= check.ok(store, p.stats());
        if (rep > 0) { // the first of each warms up
          hand.add(h);
          prog.add(p.stats());
        }
      }
    }
    BatchResult h = median(hand);
    BatchResult p = median(prog);
    double endH = (h.uploadNanos() + h.kernelNanos() + h.downloadNanos()) / 1e6;
    double endP = (p.uploadNanos() + p.kernelNanos() + p.downloadNanos()) / 1e6;
    System.out.printf("| %s | %s | %,d | %.3f M | %.3f M | **%.2f** | %.2f | %.2f | %.2f | %s |%n",
        name, algorithm.label(), batch.txCount(), h.committedPerSecond() / 1e6,
        p.committedPerSecond() / 1e6, p.committedPerSecond() / h.committedPerSecond(), endH,
        endP, endH / endP, ok ? "OK" : "FAILED");
    return ok;
  }

  private static BatchResult median(List<BatchResult> runs) {
    List<BatchResult> sorted = new ArrayList<>(runs);
    sorted.sort((a, b) -> Long.compare(a.kernelNanos(), b.kernelNanos()));
    return sorted.get(sorted.size() / 2);
  }
}
