package io.gstm.cli;

import java.util.List;

/**
 * The checks the commands make before anything runs (a sweep must not fail half way), each
 * error naming the option and its limit.
 */
final class Checks {
  private Checks() {}

  /** {@code value}, or an error "option must be at least min, got value". */
  static long atLeast(String option, long value, long min) {
    if (value < min) {
      throw new IllegalArgumentException(option + " must be at least " + min + ", got " + value);
    }
    return value;
  }

  /** {@code value} if one of {@code known}, else "option: unknown what 'value', expected ...". */
  static String oneOf(String option, String what, String value, String... known) {
    if (!List.of(known).contains(value)) {
      throw new IllegalArgumentException(option + ": unknown " + what + " '" + value
          + "', expected " + either(known));
    }
    return value;
  }

  /** "a", "a or b", "a, b or c". */
  private static String either(String... known) {
    int n = known.length;
    return n == 1 ? known[0]
        : String.join(", ", List.of(known).subList(0, n - 1)) + " or " + known[n - 1];
  }
}
