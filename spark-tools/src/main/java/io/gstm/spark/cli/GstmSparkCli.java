package io.gstm.spark.cli;

import io.gstm.cli.CliMain;
import io.gstm.spark.bench.SparkBenchmark;
import io.gstm.spark.bench.TxBenchmark;
import picocli.CommandLine.Command;

/** {@code ./gstm-spark}: Spark jobs over gstm (relax, executors, gen, bench, tx-bench). */
@Command(name = "gstm-spark", mixinStandardHelpOptions = true,
    description = "Spark jobs over gstm (Spark local mode by default; --master for a cluster).",
    subcommands = {RelaxCommand.class, ExecutorsCommand.class, GenCommand.class,
        SparkBenchmark.class, TxBenchmark.class})
public final class GstmSparkCli extends CliMain.Top {
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the command line; 0 ok, 1 a check failed, 2 bad input (one line, no stack trace). */
  public static int execute(String... args) {
    return CliMain.execute(new GstmSparkCli(), "a smaller graph, fewer points or transfers",
        args);
  }
}
