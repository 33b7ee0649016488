package io.gstm.core.engine;

import java.util.Arrays;
import java.util.function.Function;

/**
 * A user's choice of one constant of an enum (an option, a setting), read the one way gstm reads
 * them, with an error that names the parameter, echoes the bad value and lists the choices.
 */
public final class Choices {
  private Choices() {}

  /**
   * The constant whose {@code label} (or Java name) is {@code value}, trimmed, in any case; else
   * an IllegalArgumentException such as "policy: unknown semantic policy 'wait', expected one of
   * [postpone, retry-in-place]".
   *
   * @param parameter what the value was given for, first in the error
   * @param what what a constant is, in the error
   */
  public static <E extends Enum<E>> E parse(String parameter, String what, String value,
      E[] constants, Function<? super E, String> label) {
    String word = value == null ? "" : value.trim();
    for (E c : constants) {
      if (label.apply(c).equalsIgnoreCase(word) || c.name().equalsIgnoreCase(word)) {
        return c;
      }
    }
    throw new IllegalArgumentException(parameter + ": unknown " + what + " '" + value
        + "', expected one of " + Arrays.stream(constants).map(label).toList());
  }
}
