package io.gstm.benchmarks;

import io.gstm.cli.CliMain;
import picocli.CommandLine.Command;

/**
 * {@code gstm-benchmarks}: gstm's JVM engine beside a JVM STM peer. The JMH benchmarks run
 * through JMH's own main ({@code ./gstm-benchmarks jmh ...}).
 */
@Command(
    name = "gstm-benchmarks",
    mixinStandardHelpOptions = true,
    version = "gstm-benchmarks 0.1.0",
    description = "gstm's JVM engine beside a JVM STM peer (ScalaSTM), in the same run.",
    subcommands = {PeerCommand.class},
    footer = "%nJMH benchmarks of the JVM engine's hot paths: ./gstm-benchmarks jmh [JMH options]"
        + " (see benchmarks/README.md).")
public final class BenchmarksCli extends CliMain.Top {
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the CLI and returns its status: 0 ok, 1 a side failed verification, 2 bad input. */
  public static int execute(String... args) {
    return CliMain.execute(new BenchmarksCli(), "use fewer --transfers", args);
  }
}
