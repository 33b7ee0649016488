package io.gstm.cli;

import picocli.CommandLine.Option;

/** {@code --lock-coverage}: consecutive words (accounts, vertices) that share one lock. */
final class LockCoverageOption {
  @Option(names = "--lock-coverage", defaultValue = "1",
      description = "Words per lock (default ${DEFAULT-VALUE}).")
  int lockCoverage;
}
