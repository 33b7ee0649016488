package io.gstm.cli;

import io.gstm.core.engine.GstmException;
import picocli.CommandLine;

/**
 * How gstm's command lines run ({@code gstm}, {@code gstm-benchmarks}): bad input is one line
 * naming the parameter and status 2, never a stack trace.
 */
public final class CliMain {
  private CliMain() {}

  /** A CLI's top command: run without a subcommand, it prints its usage. */
  public abstract static class Top implements Runnable {
    @Override
    public void run() {
      new CommandLine(this).usage(System.out);
    }
  }

  /**
   * Runs {@code command} on {@code args} and returns its status: 0 ok, 1 a check failed, 2 bad
   * input ({@code name: message}). Running out of memory is bad input for this machine, said
   * with {@code oomAdvice} rather than as a stack trace.
   */
  public static int execute(Object command, String name, String oomAdvice, String... args) {
    CommandLine cli = new CommandLine(command);
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof IllegalArgumentException || e instanceof GstmException) {
        cmd.getErr().println(name + ": " + e.getMessage());
        return 2;
      }
      throw e;
    });
    try {
      return cli.execute(args);
    } catch (OutOfMemoryError e) {
      cli.getErr().println(name + ": out of memory (" + e.getMessage() + "): " + oomAdvice);
      return 2;
    }
  }
}
