package io.gstm.core.batch;

/** How one transaction of a batch ended. Codes match the kernels' {@code gstm::Outcome}. */
public enum Outcome {
  /** Never ran (the batch failed before reaching it). */
  PENDING,
  COMMITTED,
  /** Gave up after {@link RunOptions#maxRetries()} concurrency aborts; changed nothing. */
  ABANDONED,
  /** Its read, write or lock set outgrew the batch's set capacity; changed nothing. */
  TOO_LARGE,
  /**
   * Gave up after {@link RunOptions#semanticLimit()} semantic conflicts (the application could
   * not proceed: an overdraft, a sold-out room, an empty buffer); changed nothing.
   */
  ABANDONED_SEMANTIC,
  /** A program ended it with {@code abort(code)} (the code is in the result); changed nothing. */
  USER_ABORT,
  /**
   * A program indexed a region or an array parameter out of its range, in a state its reads
   * proved consistent; changed nothing.
   */
  OUT_OF_RANGE,
  /** A program divided an integer by zero, in a consistent state; changed nothing. */
  DIVIDE_BY_ZERO,
  /**
   * A program's loop would run more trips than its declared {@code max}, or an attempt ran more
   * instructions than the program's bound; changed nothing.
   */
  LOOP_LIMIT,
  /**
   * A program's integer arithmetic overflowed ({@code + - *}, unary minus, {@code abs} or
   * {@code /} beyond the int32 or int64 range), in a consistent state; changed nothing. The
   * {@code wrapping_} functions wrap instead.
   */
  OVERFLOW;


  private static final Outcome[] BY_CODE = values();

  public static Outcome ofCode(int code) {
    return BY_CODE[code];
  }

  /** The code the kernels use. */
  public int code() {
    return ordinal();
  }

  /** True for the outcomes a transaction program chooses or faults into (it changed nothing). */
  public boolean isProgramEnd() {
    return ordinal() >= USER_ABORT.ordinal();
  }
}
