package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Tables of bad input: each case an action that must be refused with an
 * IllegalArgumentException whose message names the parameter and its limit. A test lists its
 * cases with {@link #refused} in a {@code @MethodSource} and checks each with
 * {@link #assertRefused}.
 */
public final class Refusals {
  private Refusals() {}

  /** A case {@code (action, fragments)}, shown by its fragments. */
  public static Arguments refused(ThrowingCallable action, String... fragments) {
    return Arguments.of(Named.of(String.join(", ", fragments), action), fragments);
  }

  /** {@code action} throws an IllegalArgumentException whose message holds every fragment. */
  public static void assertRefused(ThrowingCallable action, String... fragments) {
    AbstractThrowableAssert<?, ? extends Throwable> thrown =
        assertThatThrownBy(action).isInstanceOf(IllegalArgumentException.class);
    for (String fragment : fragments) {
      thrown.hasMessageContaining(fragment);
    }
  }
}
