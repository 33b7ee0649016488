package io.gstm.spark;

import static org.assertj.core.api.Assertions.fail;

import io.gstm.core.testing.Fuzz;
import java.util.stream.LongStream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the Spark fuzzers add to core's {@code io.gstm.core.testing.Fuzz} (their seeds and time
 * bounds): what counts as a clear error on the driver, and the tally of how the seeds ended.
 */
public final class SparkFuzz implements AfterAllCallback {
  private final String name;
  private final int iterations;
  private final Fuzz.Budget budget;
  private final String checkedAs;
  private final String otherAs;
  /** Seeds checked against a reference, seeds that ended otherwise, clear errors. */
  private final long[] counts = new long[3];

  /**
   * Fuzzer {@code name}: {@code iterations} seeds in {@code seconds} at the default scale, whose
   * ends the tally printed after the last names {@code checkedAs} and {@code otherAs}. Register
   * it as an extension.
   */
  public SparkFuzz(String name, int iterations, double seconds, String checkedAs,
      String otherAs) {
    this.name = name;
    this.iterations = iterations;
    this.budget = new Fuzz.Budget(name, seconds);
    this.checkedAs = checkedAs;
    this.otherAs = otherAs;
  }

  /**
   * Whether {@code e} is a clear error: an IllegalArgumentException with a message (not a raw
   * NumberFormatException), on the driver, not a task failure wrapped in a SparkException.
   */
  public static boolean clear(Throwable e) {
    return e instanceof IllegalArgumentException && !(e instanceof NumberFormatException)
        && e.getMessage() != null && !e.getMessage().isBlank();
  }

  /** The fuzzer's seeds, for its {@code @MethodSource}. */
  public LongStream seeds() {
    return Fuzz.seeds(name, iterations);
  }

  /** Call first for each seed: skips it once the time bound is reached. */
  public void start(long seed) {
    budget.check(seed);
  }

  /** The seed's result was checked against a reference. */
  public void checked() {
    counts[0]++;
  }

  /** The seed ended in a result there was no reference for. */
  public void other() {
    counts[1]++;
  }

  /** The seed ended in {@code e}: a clear error, counted, or else the test fails. */
  public void ended(Exception e, Object about) {
    if (!clear(e)) {
      fail("not a clear error: " + about, e);
    }
    counts[2]++;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    System.out.printf("fuzz %s: %d %s, %d %s, %d clear errors%n", name, counts[0], checkedAs,
        counts[1], otherAs, counts[2]);
  }
}
