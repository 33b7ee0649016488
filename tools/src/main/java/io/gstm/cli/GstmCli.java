package io.gstm.cli;

import picocli.CommandLine.Command;

/** {@code gstm}: run transaction batches and benchmarks on the GPU or the JVM engine. */
@Command(
    name = "gstm",
    mixinStandardHelpOptions = true,
    version = "gstm 0.1.0",
    description = "GPU transaction engine: run STM batches on the GPU (JCuda) or the JVM engine.",
    subcommands = {RunCommand.class, BenchCommand.class, BankCommand.class, LimitsCommand.class,
        BenchBankCommand.class, VacationCommand.class, BenchSemanticCommand.class,
        BenchCsmvCommand.class, BenchGraphCommand.class, BenchKMeansCommand.class,
        BenchProgramsCommand.class, BenchDsCommand.class, BenchTransfersCommand.class,
        SoakCommand.class, ExportGraphCommand.class, CheckPeerCommand.class})
public final class GstmCli extends CliMain.Top {
  /** Runs the CLI and exits with its status. */
  public static void main(String[] args) {
    System.exit(execute(args));
  }

  /** Runs the CLI and returns its status: 0 ok, 1 verification failed, 2 bad input. */
  public static int execute(String... args) {
    // Out of memory: sizes past what this JVM can hold (an array over 2^31 - 9, or over -Xmx).
    return CliMain.execute(new GstmCli(),
        "the sizes asked for need more than this JVM can hold; use smaller ones", args);
  }
}
