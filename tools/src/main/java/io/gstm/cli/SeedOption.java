package io.gstm.cli;

import picocli.CommandLine.Option;

/** {@code --seed}: what the run generates is drawn from it (public: gstm-benchmarks shares it). */
public final class SeedOption {
  @Option(names = "--seed",
      description = "Seed of the generated input (default ${DEFAULT-VALUE}).")
  long seed;

  /** The command's default, shown in its help. */
  public SeedOption(long seed) {
    this.seed = seed;
  }

  public long seed() {
    return seed;
  }
}
