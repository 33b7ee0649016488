package io.gstm.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gstm limits}: the random-access bounds every STM benchmark is compared against. */
@Command(name = "limits", mixinStandardHelpOptions = true,
    description = "Probe random read+CAS, atomicAdd and dependent-load rates on an array of words.")
final class LimitsCommand extends EngineCommand {
  @Option(names = "--words", defaultValue = "2621440",
      description = "32-bit words in the probed array (default ${DEFAULT-VALUE}).")
  int words;

  @Override
  Run prepare() {
    return e -> {
      System.out.println("limits: " + e.probeLimits(words));
      return 0;
    };
  }
}
