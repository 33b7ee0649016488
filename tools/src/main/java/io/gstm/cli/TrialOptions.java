package io.gstm.cli;

import picocli.CommandLine.Option;

/**
 * {@code --reps} and {@code --warmups} of the commands that report medians of timed runs (public:
 * {@code gstm-benchmarks peer} shares them).
 */
public final class TrialOptions {
  @Option(names = "--reps",
      description = "Timed runs per row; medians are reported. Default ${DEFAULT-VALUE}.")
  int reps;

  @Option(names = "--warmups", description = "Untimed runs per row first. Default "
      + "${DEFAULT-VALUE}.")
  int warmups;

  /** The command's defaults, shown in its help. */
  public TrialOptions(int reps, int warmups) {
    this.reps = reps;
    this.warmups = warmups;
  }

  public int reps() {
    return reps;
  }

  public int warmups() {
    return warmups;
  }

  /** Checked before anything runs. */
  void check() {
    Checks.atLeast("reps", reps, 1);
    Checks.atLeast("warmups", warmups, 0);
  }
}
