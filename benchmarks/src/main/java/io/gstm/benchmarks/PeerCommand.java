package io.gstm.benchmarks;

import io.gstm.bench.ResultTable;
import io.gstm.cli.SeedOption;
import io.gstm.cli.TrialOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm-benchmarks peer}: the bank's transfers on gstm's JVM engine (PR-STM) and on
 * ScalaSTM in the same run; writes a CSV, prints the table. Exits 1 when a side fails its check.
 */
@Command(name = "peer", mixinStandardHelpOptions = true,
    description = "gstm's JVM engine (PR-STM bank batch) vs ScalaSTM on the same transfers: "
        + "committed tx/s of each (medians of timed runs alternating sides) and the ratio.")
final class PeerCommand implements Callable<Integer> {

  @Option(names = "--accounts", split = ",", defaultValue = "1024,65536",
      description = "Account counts, one row each. Default ${DEFAULT-VALUE}.")
  List<Integer> accounts;

  @Option(names = "--k", defaultValue = "2",
      description = "Accounts per transfer (read k balances, write k), 2..16. "
          + "Default ${DEFAULT-VALUE}.")
  int k;

  @Option(names = "--threads", defaultValue = "2",
      description = "Threads of each side (gstm's JVM workers, ScalaSTM's threads). "
          + "Default ${DEFAULT-VALUE}.")
  int threads;

  @Option(names = "--lanes", defaultValue = "1",
      description = "gstm's logical (GPU) threads per worker, 1..256. Default ${DEFAULT-VALUE}.")
  int lanes;

  @Option(names = "--transfers", defaultValue = "8000000",
      description = "Transfers per run (the same list on both sides). Default ${DEFAULT-VALUE}.")
  int transfers;

  // Runs of each side per size; BankPeer.Settings checks them.
  @Mixin TrialOptions trials = new TrialOptions(5, 2);

  @Mixin SeedOption seed = new SeedOption(1);

  @Option(names = "--out", defaultValue = "results/jvm-peer.csv",
      description = "CSV file to write. Default ${DEFAULT-VALUE}.")
  Path out;

  @Option(names = "--quiet", description = "No line per run on stderr.")
  boolean quiet;

  @Override
  public Integer call() {
    BankPeer.Settings s = new BankPeer.Settings(accounts, k, threads, lanes, transfers,
        trials.warmups(), trials.reps(), seed.seed());
    System.out.printf("peer: gstm JVM engine (PR-STM) vs ScalaSTM 0.11.1, k=%d, %d thread(s), "
        + "%d lane(s) per gstm worker, %d warm-up(s) + %d rep(s), Java %s, %d processor(s), "
        + "load %.2f%n", k, threads, lanes, trials.warmups(), trials.reps(), Runtime.version(),
        Runtime.getRuntime().availableProcessors(), BankPeer.loadAverage());
    ResultTable table = BankPeer.run(s, quiet ? line -> { } : System.err::println);
    try {
      Path parent = out.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      table.writeCsv(out);
    } catch (IOException e) {
      throw new UncheckedIOException("out: cannot write " + out, e);
    }
    System.out.print(table.toMarkdown());
    System.out.println("wrote " + out);
    boolean ok = true;
    for (int r = 0; r < table.size(); r++) {
      ok &= Boolean.TRUE.equals(table.value(r, "gstm_verified"))
          && Boolean.TRUE.equals(table.value(r, "scalastm_verified"));
    }
    if (!ok) {
      System.err.println("gstm-benchmarks: a side failed verification (see the table)");
    }
    return ok ? 0 : 1;
  }
}
