package io.gstm.cli;

import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import picocli.CommandLine.Option;

/**
 * {@code --reps} of the commands that keep the fastest of their timed runs (those that report
 * medians take {@link TrialOptions}).
 */
final class BestOfOption {
  @Option(names = "--reps",
      description = "Timed runs after one warm-up; the fastest is kept. Default ${DEFAULT-VALUE}.")
  int reps;

  /** The command's default, shown in its help. */
  BestOfOption(int reps) {
    this.reps = reps;
  }

  /** Checked before anything runs: a sweep must not fail half way. */
  void check() {
    Checks.atLeast("reps", reps, 1);
  }

  /** {@code run} once to warm up, then {@code --reps} times; the run of least kernel time. */
  <T> T fastest(Supplier<T> run, ToLongFunction<T> kernelNanos) {
    return Reports.fastest(reps, run, kernelNanos);
  }
}
