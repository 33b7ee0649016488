package io.gstm.cli;

import java.util.List;
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

  /** 0 (the one cold run counts) or 1. */
  private final int least;

  /** The command's default, shown in its help. */
  BestOfOption(int reps) {
    this(reps, 1);
  }

  private BestOfOption(int reps, int least) {
    this.reps = reps;
    this.least = least;
  }

  /** For long runs: {@code --reps 0} times the one cold run (the command's help says so). */
  static BestOfOption orCold(int reps) {
    return new BestOfOption(reps, 0);
  }

  /** Checked before anything runs: a sweep must not fail half way. */
  void check() {
    Checks.atLeast("reps", reps, least);
  }

  /**
   * {@code run} once to warm up, then {@code --reps} times; the run of least kernel time (with
   * {@code --reps 0}, the one cold run).
   */
  <T> T fastest(Supplier<T> run, ToLongFunction<T> kernelNanos) {
    return Reports.fastest(reps, run, kernelNanos);
  }

  /**
   * {@code a} and {@code b} take turns: each once to warm up, then {@code --reps} times each,
   * a before b; the timed runs go to {@code intoA} and {@code intoB}. A null {@code b} runs
   * {@code a} alone.
   */
  <A, B> void alternate(Supplier<A> a, List<A> intoA, Supplier<B> b, List<B> intoB) {
    for (int rep = 0; rep <= reps; rep++) {
      A ra = a.get();
      B rb = b == null ? null : b.get();
      if (rep > 0 || reps == 0) {
        intoA.add(ra);
        if (b != null) {
          intoB.add(rb);
        }
      }
    }
  }
}
