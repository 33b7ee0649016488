package io.gstm.cli;

import io.gstm.core.engine.EngineChoice;
import io.gstm.core.engine.Engines;
import picocli.CommandLine.Option;

/** The {@code --engine} option every command shares. */
final class EngineOption {
  @Option(
      names = "--engine",
      defaultValue = "auto",
      description = "auto (GPU when usable, else JVM), gpu (fail without one) or jvm. "
          + "Default: ${DEFAULT-VALUE}.")
  String engine;

  Engines.Selection open() {
    Engines.Selection s = Engines.open(EngineChoice.parse(engine));
    System.out.printf("engine: %s on %s (%s)%n", s.engine().name(), s.engine().device(),
        s.reason());
    return s;
  }
}
