package io.gstm.spark.cli;

import io.gstm.spark.bench.SparkBenchmark;
import io.gstm.spark.bench.TxBenchmark;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ./gstm-spark}: Spark jobs over gstm in local mode (relax, bench, tx-bench). */
@Command(name = "gstm-spark", mixinStandardHelpOptions = true,
    description = "Spark jobs over gstm (Spark local mode by default).",
    subcommands = {RelaxCommand.class, SparkBenchmark.class, TxBenchmark.class})
public final class GstmSparkCli implements Runnable {
  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  public static void main(String[] args) {
    CommandLine cli = new CommandLine(new GstmSparkCli());
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof IllegalArgumentException) {
        cmd.getErr().println("gstm-spark: " + e.getMessage());
        return 2;
      }
      throw e;
    });
    System.exit(cli.execute(args));
  }
}
