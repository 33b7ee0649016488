package io.gstm.bench;

import java.util.Arrays;
import java.util.Locale;

/** How large an experiment runs: the sweep's points and each batch's size. */
public enum Scale {
  /** Seconds on the JVM engine: CI checks the files, not the figures. */
  SMOKE,
  /** A few minutes on the JVM engine of a 2-core machine. */
  SMALL,
  /** The papers' sizes, for the GPU. */
  PAPER;

  /** The scale named {@code value} (smoke, small, paper); bad input names the choices. */
  public static Scale parse(String value) {
    for (Scale s : values()) {
      if (s.cliName().equals(String.valueOf(value).trim().toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    throw new IllegalArgumentException("size: unknown size '" + value + "', expected one of "
        + Arrays.stream(values()).map(Scale::cliName).toList());
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** {@code smoke}, {@code small} or {@code paper}, by scale. */
  public <T> T pick(T smoke, T small, T paper) {
    return switch (this) {
      case SMOKE -> smoke;
      case SMALL -> small;
      case PAPER -> paper;
    };
  }
}
