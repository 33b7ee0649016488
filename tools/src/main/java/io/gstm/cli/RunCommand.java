package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.Column;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramException;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm run}: user-written transaction programs over a state and transactions read from
 * CSV; prints the outcome summary and writes the new state and the per-transaction outcomes.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Run transaction programs (docs/programs.md) over state and transactions "
        + "from CSV files; write the new state and every transaction's outcome.")
final class RunCommand extends EngineCommand {
  @Mixin SemanticOptions semantic = new SemanticOptions();

  @Option(names = "--program", required = true,
      description = "File of one or more programs.")
  Path programFile;

  @Option(names = "--state", required = true,
      description = "CSV: a column per region (header = region name), a row per word.")
  Path stateFile;

  @Option(names = "--transactions", required = true,
      description = "CSV: a 'program' column (optional with one program) and the parameters' "
          + "columns by name.")
  Path txFile;

  @Option(names = "--out-state", description = "Where the new state goes (default: "
      + "<state>.out.csv).")
  Path outState;

  @Option(names = "--outcomes", description = "Where the per-transaction outcomes go "
      + "(default: <transactions>.outcomes.csv).")
  Path outcomes;

  @Option(names = "--algorithm", defaultValue = "prstm",
      description = "prstm, gpu-stm, csmv, csmv-nocv, csmv-onlycs, jvstm-gpu, blocking or "
          + "obstruction-free; the last two take a backoff after a colon: none, linear or "
          + "exponential, optionally :unit:max in ns, e.g. blocking:linear:100:10000 (default "
          + "${DEFAULT-VALUE}).")
  String algorithm;

  @Mixin LockCoverageOption coverage = new LockCoverageOption();

  @Option(names = "--batch-size", defaultValue = "1000000",
      description = "Transactions per batch, about 8 per thread; a longer file runs as several "
          + "batches in order, with progress shown (default ${DEFAULT-VALUE}).")
  int batchSize;

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(256);

  @Option(names = "--history", description = "Record versions; check serializability and "
      + "replay the committed transactions serially (small runs).")
  boolean history;

  @Option(names = "--record-order", description = "Write each committed transaction's place "
      + "in a serial order equivalent to the run (outcomes column 'serial'): replayed one by one "
      + "in that order from the initial state, the committed transactions give the new state "
      + "and the same outputs. Records the history (memory per transaction, as --history).")
  boolean recordOrder;

  @Override
  Run prepare() throws IOException {
    Checks.atLeast("batch-size", batchSize, 1);
    Checks.atLeast("lock-coverage", coverage.lockCoverage, 1);
    blockSize.check();
    ProgramSet programs;
    try {
      programs = ProgramSet.parse(read(programFile));
    } catch (ProgramException e) {
      throw new IllegalArgumentException(e.getMessage() + " (in " + programFile + ")", e);
    } catch (StackOverflowError e) {
      // The parser recurses per nesting level; a pathologically deep file must not crash.
      throw new IllegalArgumentException("program: " + programFile + " nests expressions or "
          + "blocks too deeply to parse");
    }
    ProgramCsv.State state = ProgramCsv.readState(stateFile, programs, coverage.lockCoverage);
    ProgramCsv.Transactions txs = ProgramCsv.readTransactions(txFile, programs);
    Algorithm alg = AlgorithmOption.parse("algorithm", algorithm);
    RunOptions options = semantic.apply(RunOptions.defaults()
        .withHistory(history || recordOrder));
    int n = txs.types().length;
    System.out.printf("programs: %s; %,d transactions; store %s%n",
        programs.programs().stream().map(p -> p.name()).toList(), n, state.layout());
    long t0 = System.nanoTime();
    return e -> {
      List<ProgramResult> results = new ArrayList<>();
      List<int[]> orders = new ArrayList<>();
      List<long[]> serials = recordOrder ? new ArrayList<>() : null;
      long committedBefore = 0;
      boolean ok = true;
      long kernelNanos = 0;
      try (TxStore store = e.createStore(state.layout(), alg);
          ProgressBar progress = n > batchSize ? progress(n) : null) {
        StoreContents.write(store, state.contents());
        for (int from = 0; from < n; from += batchSize) {
          int to = Math.min(n, from + batchSize);
          ProgramBatch batch = slice(programs, txs, from, to);
          int[] order = identity(to - from);
          if (semantic.presort) {
            ProgramBatch.Sorted sorted = batch.presort();
            batch = sorted.batch();
            order = sorted.order();
          }
          long[][] before = history ? StoreContents.read(store) : null;
          ProgramResult r = e.run(store, batch, options);
          kernelNanos += r.stats().kernelNanos();
          HistoryChecker.Verdict verdict = history || recordOrder
              ? HistoryChecker.check(r.stats().history()) : null;
          if (history) {
            ok &= check(r, store, before, verdict);
          } else if (recordOrder && !verdict.serializable()) {
            System.out.println("history checker: FAILED " + verdict.violations());
            ok = false;
          }
          if (recordOrder) {
            serials.add(SerialPlaces.of(r, verdict, committedBefore));
            committedBefore += r.commits();
          }
          results.add(r);
          orders.add(order);
          if (progress != null) {
            progress.stepTo(to);
          }
        }
        long wall = System.nanoTime() - t0;
        Path stateOut = out(outState, stateFile, ".out.csv");
        try {
          ProgramCsv.writeState(stateOut, state.layout(), StoreContents.read(store));
        } catch (IOException io) {
          throw ProgramCsv.unreadable("out-state", stateOut, io);
        }
        Path outcomesOut = out(outcomes, txFile, ".outcomes.csv");
        try {
          ProgramCsv.writeOutcomes(outcomesOut, results, orders, serials, programs);
        } catch (IOException io) {
          throw ProgramCsv.unreadable("outcomes", outcomesOut, io);
        }
        summary(results, n, kernelNanos, wall);
      }
      System.out.println("new state: " + out(outState, stateFile, ".out.csv"));
      System.out.println("outcomes:  " + out(outcomes, txFile, ".outcomes.csv"));
      return ok ? 0 : 1;
    };
  }

  private static ProgressBar progress(int n) {
    return new ProgressBarBuilder().setTaskName("transactions").setInitialMax(n)
        .setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(500).continuousUpdate()
        .build();
  }

  private ProgramBatch slice(ProgramSet programs, ProgramCsv.Transactions txs, int from,
      int to) {
    int m = to - from;
    int[] types = java.util.Arrays.copyOfRange(txs.types(), from, to);
    ProgramBatch.Builder b = ProgramBatch.builder(programs).types(types);
    for (Column c : txs.columns()) {
      long[] bits = new long[m];
      for (int i = 0; i < m; i++) {
        bits[i] = c.bits(from + i);
      }
      b.column(Column.ofBits(c.name(), c.type(), bits));
    }
    int tpb = Math.min(blockSize.threadsPerBlock, Math.max(1, m));
    return b.grid(tpb, Math.max(1, (m + tpb * 8 - 1) / (tpb * 8))).build();
  }

  private boolean check(ProgramResult r, TxStore store, long[][] before,
      HistoryChecker.Verdict verdict) {
    return Reports.checkHistory(verdict, order -> {
      Verdict v = ProgramReplay.verify(r, store.layout(), before,
          StoreContents.read(store), order);
      System.out.println("serial replay: " + v);
      return v.ok();
    });
  }

  private void summary(List<ProgramResult> results, int n, long kernelNanos, long wallNanos) {
    Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
    long postponed = 0;
    long aborts = 0;
    long[] counters = new long[io.gstm.core.batch.Counter.COUNT];
    for (ProgramResult r : results) {
      BatchResult s = r.stats();
      for (int t = 0; t < r.batch().txCount(); t++) {
        counts.merge(s.outcome(t), 1L, Long::sum);
        if (s.outcome(t) == Outcome.COMMITTED && s.semanticConflicts()[t] > 0) {
          postponed++;
        }
      }
      aborts += s.aborts();
      for (int c = 0; c < counters.length; c++) {
        counters[c] += s.counters()[c];
      }
    }
    System.out.printf("outcomes: %s%n", counts);
    System.out.printf("committed after semantic conflicts: %,d; concurrency aborts: %,d (%s)%n",
        postponed, aborts, Reports.abortsByCause(counters));
    long commits = counts.getOrDefault(Outcome.COMMITTED, 0L);
    System.out.printf("time: %.3f s end to end (%.3f s running transactions), %,.0f "
            + "committed tx/s end to end%n", wallNanos / 1e9, kernelNanos / 1e9,
        commits / (wallNanos / 1e9));
  }

  private static Path out(Path given, Path input, String suffix) {
    if (given != null) {
      return given;
    }
    String name = input.getFileName().toString();
    String base = name.endsWith(".csv") ? name.substring(0, name.length() - 4) : name;
    return input.resolveSibling(base + suffix);
  }

  private static int[] identity(int n) {
    int[] o = new int[n];
    for (int i = 0; i < n; i++) {
      o[i] = i;
    }
    return o;
  }

  private static String read(Path file) {
    ProgramCsv.checkReadable("program", file);
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw ProgramCsv.unreadable("program", file, e);
    }
  }
}
