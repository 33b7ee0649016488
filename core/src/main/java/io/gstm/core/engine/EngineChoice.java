package io.gstm.core.engine;

import java.util.Arrays;
import java.util.Locale;

/** Which engine to open: the GPU when usable (AUTO), the GPU or fail (GPU), or the JVM. */
public enum EngineChoice {
  AUTO,
  GPU,
  JVM;

  /** Parses "auto", "gpu" or "jvm", case-insensitively; the error echoes the bad value. */
  public static EngineChoice parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(
          "engine: unknown engine '" + value + "', expected one of "
              + Arrays.toString(values()).toLowerCase(Locale.ROOT));
    }
  }
}
