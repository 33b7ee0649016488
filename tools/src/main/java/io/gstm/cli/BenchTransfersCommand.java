package io.gstm.cli;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.cuda.CopyProbe;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankPrograms;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-transfers}: a library user's batch path, timed end to end. Random transfers
 * between accounts, as Java arrays, run as a transfer program in batches (an epoch each): the
 * time from the arrays to the committed outcomes, split into building the batch, the engine's
 * upload, kernel and download, and the rest of {@code Engine.run}. Verified exactly: every
 * account ends at its opening balance plus the amounts of the committed transfers into it,
 * minus those out of it (transfers commute when none overdraws), and no money appears or goes.
 */
@Command(name = "bench-transfers", mixinStandardHelpOptions = true,
    description = "Random transfers from Java arrays in batches: committed tx/s end to end, with "
        + "the engine's share (upload, kernel, download), every account checked.")
final class BenchTransfersCommand extends EngineCommand {
  /** The program: the one TxState's bank benchmark runs. */
  static final String TRANSFER = BankPrograms.KEYED_TRANSFER;

  @Option(names = "--accounts", defaultValue = "1000000",
      description = "Accounts (default ${DEFAULT-VALUE}).")
  int accounts;

  @Option(names = "--transfers", defaultValue = "10000000",
      description = "Transfers in all (default ${DEFAULT-VALUE}).")
  long transfers;

  @Option(names = "--batches", defaultValue = "10",
      description = "Batches the transfers run in, one after another (default ${DEFAULT-VALUE}).")
  int batches;

  @Option(names = "--warmup-batches", defaultValue = "2",
      description = "Untimed batches first, of the same size (default ${DEFAULT-VALUE}).")
  int warmups;

  @Option(names = "--balance", defaultValue = "1000000000",
      description = "Opening balance of every account (default ${DEFAULT-VALUE}).")
  long balance;

  @Option(names = "--max-amount", defaultValue = "100",
      description = "Amounts are drawn from 1..this (default ${DEFAULT-VALUE}).")
  long maxAmount;

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(256);

  @Mixin SeedOption seed = new SeedOption(1);

  /** One batch's input, as a user holds it. */
  private record Arrays(int[] src, int[] dst, long[] amount) {}

  @Override
  Run prepare() {
    blockSize.check();
    Checks.atLeast("accounts", accounts, 1);
    Checks.atLeast("batches", batches, 1);
    Checks.atLeast("warmup-batches", warmups, 0);
    Checks.atLeast("balance", balance, 0);
    Checks.atLeast("max-amount", maxAmount, 1);
    if (transfers < batches) {
      throw new IllegalArgumentException("--transfers " + transfers + " is fewer than --batches "
          + batches + ": every batch needs a transfer");
    }
    if ((transfers + batches - 1) / batches > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("--transfers " + transfers + " in " + batches
          + " batches: a batch holds at most " + (Integer.MAX_VALUE - 8)
          + " transfers; use more --batches");
    }
    ProgramSet programs = ProgramSet.parse(TRANSFER);
    StoreLayout layout = new StoreLayout(List.of(
        new RegionSpec("balance", RegionType.INT64, accounts, 1)));
    return e -> {
      try (TxStore store = e.createStore(layout)) {
        long[] opening = new long[accounts];
        java.util.Arrays.fill(opening, balance);
        StoreContents.write(store, new long[][] {opening});
        long[] expected = opening.clone();
        for (int w = 0; w < warmups; w++) {
          Arrays in = generate(batchSize(0), seed.seed() ^ (0x5eedL + w));
          ProgramResult r = e.run(store, batch(programs, in), RunOptions.defaults());
          apply(expected, in, r);
        }
        System.out.printf(Locale.ROOT, "%,d transfers over %,d accounts in %d batches on %s "
            + "(%s)%n", transfers, accounts, batches, e.name(), e.device());
        Totals all = new Totals();
        for (int b = 0; b < batches; b++) {
          Arrays in = generate(batchSize(b), seed.seed() + b);
          long t0 = System.nanoTime();
          ProgramBatch pb = batch(programs, in);
          long t1 = System.nanoTime();
          ProgramResult r = e.run(store, pb, RunOptions.defaults());
          long committed = r.commits();
          long t2 = System.nanoTime();
          Totals one = new Totals(in.src().length, committed, t1 - t0, t2 - t1,
              r.stats().uploadNanos(), r.stats().kernelNanos(), r.stats().downloadNanos());
          System.out.println("  batch " + (b + 1) + ": " + one.line());
          all.add(one);
          apply(expected, in, r);
        }
        System.out.println("total: " + all.line());
        System.out.printf(Locale.ROOT, "the kernel is %.1f%% of the wall%n",
            100.0 * all.kernel / Math.max(1, all.build + all.run));
        if (e instanceof CudaEngine cuda) {
          // The bus's bounds in the same run: a batch's columns are 16 B a transfer.
          long columnBytes = 16L * batchSize(0);
          CopyProbe p = cuda.probeCopies((int) Math.min(1 << 26, columnBytes / 4));
          System.out.println("copies, " + p);
          System.out.printf(Locale.ROOT, "a batch's columns (%,d MB) take %.2f ms at the DMA "
                  + "rate, %.2f ms staged; the mean upload was %.2f ms%n", columnBytes >> 20,
              columnBytes * 1e3 / p.pinnedUpload(), columnBytes * 1e3 / p.stagedUpload(),
              all.upload / 1e6 / batches);
        }
        String verdict = verify(StoreContents.read(store)[0], expected);
        System.out.println("verifier: " + verdict);
        return verdict.startsWith("OK") ? 0 : 1;
      }
    };
  }

  private int batchSize(int b) {
    return (int) ((b + 1) * transfers / batches - b * transfers / batches);
  }

  /** The batch a user builds from the arrays: read in place, one program for all. */
  private ProgramBatch batch(ProgramSet programs, Arrays in) {
    int m = in.src().length;
    return ProgramBatch.builder(programs).all("transfer", m)
        .wrapInt32("src", in.src()).wrapInt32("dst", in.dst()).wrapInt64("amount", in.amount())
        .grid(blockSize.threadsPerBlock, (int) Math.max(1, (m + 8L * blockSize.threadsPerBlock
            - 1) / (8L * blockSize.threadsPerBlock))).build();
  }

  /** Seeded arrays, filled on all cores (not timed: the user's input). */
  private Arrays generate(int m, long s) {
    int[] src = new int[m];
    int[] dst = new int[m];
    long[] amount = new long[m];
    int slice = 1 << 16;
    IntStream.range(0, (m + slice - 1) / slice).parallel().forEach(i -> {
      SplittableRandom rnd = new SplittableRandom(s * 0x9E3779B97F4A7C15L + i);
      for (int t = i * slice, end = Math.min(m, t + slice); t < end; t++) {
        src[t] = rnd.nextInt(accounts);
        dst[t] = rnd.nextInt(accounts);
        amount[t] = 1 + rnd.nextLong(maxAmount);
      }
    });
    return new Arrays(src, dst, amount);
  }

  /** The committed transfers' effect on the expected balances. */
  private static void apply(long[] expected, Arrays in, ProgramResult r) {
    byte[] outcomes = r.stats().outcomes();
    byte ok = (byte) Outcome.COMMITTED.code();
    for (int t = 0; t < outcomes.length; t++) {
      if (outcomes[t] == ok && in.src()[t] != in.dst()[t]) {
        expected[in.src()[t]] -= in.amount()[t];
        expected[in.dst()[t]] += in.amount()[t];
      }
    }
  }

  static String verify(long[] actual, long[] expected) {
    for (int a = 0; a < expected.length; a++) {
      if (actual[a] != expected[a]) {
        return "MISMATCH: account " + a + " holds " + actual[a] + ", the committed transfers "
            + "leave it " + expected[a];
      }
    }
    return "OK: every account holds its opening balance plus its committed transfers";
  }

  /** Transfers, commits and time in nanoseconds (build, Engine.run, and the engine's parts). */
  private static final class Totals {
    long transfers;
    long committed;
    long build;
    long run;
    long upload;
    long kernel;
    long download;

    Totals() {}

    Totals(long transfers, long committed, long build, long run, long upload, long kernel,
        long download) {
      this.transfers = transfers;
      this.committed = committed;
      this.build = build;
      this.run = run;
      this.upload = upload;
      this.kernel = kernel;
      this.download = download;
    }

    void add(Totals o) {
      transfers += o.transfers;
      committed += o.committed;
      build += o.build;
      run += o.run;
      upload += o.upload;
      kernel += o.kernel;
      download += o.download;
    }

    String line() {
      long wall = build + run;
      return String.format(Locale.ROOT, "%,d transfers, %,d committed in %.2f ms: %,.1f M "
              + "committed tx/s (build %.2f ms; Engine.run %.2f ms: upload %.2f, kernel %.2f, "
              + "download %.2f, other %.2f)", transfers, committed, wall / 1e6,
          committed * 1e3 / Math.max(1, wall), build / 1e6, run / 1e6, upload / 1e6,
          kernel / 1e6, download / 1e6, (run - upload - kernel - download) / 1e6);
    }
  }
}
