package io.gstm.core.batch;

import io.gstm.core.engine.Choices;
import java.util.Locale;

/**
 * What a thread does with a transaction that meets a semantic conflict (the application cannot
 * proceed yet). Concurrency conflicts always retry in place under PR-STM's priority rule. Order
 * matches the kernels' codes.
 */
public enum SemanticPolicy {
  /**
   * The JPDC paper's semantic contention manager: postpone the transaction and take the thread's
   * next uncommitted one, wrapping around, so that it runs again once others have changed the
   * state. Default limit: 10,000 postponements.
   */
  POSTPONE(10_000),
  /**
   * The comparator (how the JPDC paper ran GPU-STM): retry the same transaction in place, giving
   * up after 100 semantic conflicts.
   */
  RETRY_IN_PLACE(100);

  private final int defaultLimit;

  SemanticPolicy(int defaultLimit) {
    this.defaultLimit = defaultLimit;
  }

  /** The code the kernels use. */
  public int code() {
    return ordinal();
  }

  /** Semantic conflicts a transaction may meet before it is abandoned, by default. */
  public int defaultLimit() {
    return defaultLimit;
  }

  /** Parses "postpone" or "retry-in-place"; the error echoes the bad value. */
  public static SemanticPolicy parse(String value) {
    return Choices.parse("policy", "semantic policy", value, values(), SemanticPolicy::cliName);
  }

  /** "postpone" or "retry-in-place". */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
