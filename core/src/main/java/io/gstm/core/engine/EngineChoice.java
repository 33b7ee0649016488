package io.gstm.core.engine;

import java.util.Locale;

/** Which engine to open: the GPU when usable (AUTO), the GPU or fail (GPU), or the JVM. */
public enum EngineChoice {
  AUTO,
  GPU,
  JVM;

  /** Parses "auto", "gpu" or "jvm", case-insensitively; the error echoes the bad value. */
  public static EngineChoice parse(String value) {
    return Choices.parse("engine", "engine", value, values(),
        e -> e.name().toLowerCase(Locale.ROOT));
  }
}
