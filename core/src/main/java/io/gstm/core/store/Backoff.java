package io.gstm.core.store;

import java.util.Locale;

/**
 * How long a transaction of Cederman's STMs waits after an abort before it tries again (section
 * 4.5 of the paper): not at all, linearly longer with every abort in a row, or doubling with
 * every abort, in both cases up to a cap. Immutable.
 *
 * @param kind none, linear or exponential
 * @param unitNanos the first wait, {@value #MIN_UNIT}..{@value #MAX_UNIT} ns (0 for none)
 * @param maxNanos the longest wait, unitNanos..{@value #MAX_WAIT} ns (0 for none); a GPU lane
 *     sleeps with {@code __nanosleep}, whose longest sleep is about a millisecond
 */
public record Backoff(Kind kind, int unitNanos, int maxNanos) {
  public static final int MIN_UNIT = 1;
  public static final int MAX_UNIT = 100_000;
  public static final int MAX_WAIT = 1_000_000;
  /** As the semantic kernel's own backoff: 64 ns doubling to about 8 us. */
  public static final int DEFAULT_UNIT = 64;
  public static final int DEFAULT_MAX = 8_192;

  /** The backoff functions of the paper. */
  public enum Kind {
    NONE,
    LINEAR,
    EXPONENTIAL;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public Backoff {
    if (kind == null) {
      throw new IllegalArgumentException("backoff kind must not be null");
    }
    if (kind == Kind.NONE) {
      unitNanos = 0;
      maxNanos = 0;
    } else {
      if (unitNanos < MIN_UNIT || unitNanos > MAX_UNIT) {
        throw new IllegalArgumentException("backoff unit must be in " + MIN_UNIT + ".." + MAX_UNIT
            + " ns, got " + unitNanos);
      }
      if (maxNanos < unitNanos || maxNanos > MAX_WAIT) {
        throw new IllegalArgumentException("backoff max must be in the unit (" + unitNanos
            + ").." + MAX_WAIT + " ns, got " + maxNanos);
      }
    }
  }

  public static Backoff none() {
    return new Backoff(Kind.NONE, 0, 0);
  }

  public static Backoff linear(int unitNanos, int maxNanos) {
    return new Backoff(Kind.LINEAR, unitNanos, maxNanos);
  }

  public static Backoff exponential(int unitNanos, int maxNanos) {
    return new Backoff(Kind.EXPONENTIAL, unitNanos, maxNanos);
  }

  /** Exponential, {@value #DEFAULT_UNIT} ns doubling up to {@value #DEFAULT_MAX} ns. */
  public static Backoff defaults() {
    return exponential(DEFAULT_UNIT, DEFAULT_MAX);
  }

  /** The wait after the {@code abortsInARow}-th abort in a row of one transaction (from 1). */
  public long delayNanos(int abortsInARow) {
    if (abortsInARow < 1) {
      return 0;
    }
    return switch (kind) {
      case NONE -> 0;
      case LINEAR -> Math.min((long) maxNanos, (long) unitNanos * abortsInARow);
      case EXPONENTIAL -> Math.min((long) maxNanos,
          (long) unitNanos << Math.min(abortsInARow - 1, 30));
    };
  }

  /** "none", "linear", "exponential", with ":unit:max" when they are not the defaults. */
  public String label() {
    if (kind == Kind.NONE || (unitNanos == DEFAULT_UNIT && maxNanos == DEFAULT_MAX)) {
      return kind.label();
    }
    return kind.label() + ":" + unitNanos + ":" + maxNanos;
  }

  /**
   * {@code none}, {@code linear} or {@code exponential}, optionally followed by
   * {@code :unit:max} in ns; bad input is an error naming {@code option}.
   */
  public static Backoff parse(String option, String text) {
    String[] parts = text.trim().split(":", -1);
    Kind kind = null;
    for (Kind k : Kind.values()) {
      if (k.label().equalsIgnoreCase(parts[0].trim())) {
        kind = k;
      }
    }
    if (kind == null) {
      throw new IllegalArgumentException(option + ": unknown backoff '" + parts[0]
          + "', known: none, linear, exponential");
    }
    if (parts.length == 1) {
      return kind == Kind.NONE ? none() : new Backoff(kind, DEFAULT_UNIT, DEFAULT_MAX);
    }
    if (parts.length != 3 || kind == Kind.NONE) {
      throw new IllegalArgumentException(option + ": a backoff is none, linear or exponential, "
          + "the last two optionally followed by :unit:max in ns, got '" + text + "'");
    }
    try {
      return new Backoff(kind, Integer.parseInt(parts[1].trim()),
          Integer.parseInt(parts[2].trim()));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + ": backoff unit and max must be whole "
          + "nanoseconds, got '" + text + "'");
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(option + ": " + e.getMessage());
    }
  }
}
