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
  ABANDONED_SEMANTIC;


  private static final Outcome[] BY_CODE = values();

  public static Outcome ofCode(int code) {
    return BY_CODE[code];
  }
}
