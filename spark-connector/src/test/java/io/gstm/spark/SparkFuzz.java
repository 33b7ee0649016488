package io.gstm.spark;

/**
 * What the Spark fuzzers add to core's {@code io.gstm.core.testing.Fuzz} (their seeds and time
 * bounds): what counts as a clear error on the driver.
 */
public final class SparkFuzz {
  private SparkFuzz() {}

  /**
   * Whether {@code e} is a clear error: an IllegalArgumentException with a message (not a raw
   * NumberFormatException), on the driver, not a task failure wrapped in a SparkException.
   */
  public static boolean clear(Throwable e) {
    return e instanceof IllegalArgumentException && !(e instanceof NumberFormatException)
        && e.getMessage() != null && !e.getMessage().isBlank();
  }
}
