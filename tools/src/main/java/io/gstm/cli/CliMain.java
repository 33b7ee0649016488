package io.gstm.cli;

import io.gstm.core.engine.GstmException;
import picocli.CommandLine;

/**
 * How gstm's command lines run ({@code gstm}, {@code gstm-benchmarks}, {@code gstm-spark}): bad
 * input is one line naming the parameter and status 2, never a stack trace.
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
   * The bad input (an {@link IllegalArgumentException} or a {@link GstmException}, such as "no
   * usable GPU") that {@code e} is or was caused by: a Spark job wraps its task's failure in a
   * SparkException, whose message is a stage report with the cause's stack trace in it.
   */
  static Throwable badInput(Throwable e) {
    for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof IllegalArgumentException || t instanceof GstmException) {
        return t;
      }
    }
    return null;
  }

  /**
   * Runs {@code command} on {@code args} and returns its status: 0 ok, 1 a check failed, 2 bad
   * input ({@code name: message}, with the name its {@code @Command} gives). Running out of
   * memory is bad input for this machine, said as a line that advises {@code smaller} (what to
   * ask for less of) or more heap, rather than as a stack trace.
   */
  public static int execute(Top command, String smaller, String... args) {
    CommandLine cli = new CommandLine(command);
    String name = cli.getCommandName();
    cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
      Throwable bad = badInput(e);
      if (bad == null) {
        throw e;
      }
      cmd.getErr().println(name + ": " + bad.getMessage());
      return 2;
    });
    try {
      return cli.execute(args);
    } catch (OutOfMemoryError e) {
      cli.getErr().println(name + ": out of memory (" + e.getMessage() + "): " + smaller
          + ", or raise -Xmx (GSTM_JAVA_OPTS for ./" + name + ")");
      return 2;
    }
  }
}
