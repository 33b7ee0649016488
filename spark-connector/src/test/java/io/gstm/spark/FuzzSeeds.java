package io.gstm.spark;

import java.util.Locale;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Assumptions;

/**
 * Seeds and time bounds of the Spark fuzzers, as core's {@code io.gstm.core.testing.Fuzz}: the
 * seeds {@code base .. base + iterations - 1} from a fixed base ({@code -Dgstm.fuzz.seed},
 * {@code -Dgstm.fuzz.iterations}), a time bound per fuzzer scaled by
 * {@code -Dgstm.fuzz.seconds} (relative to {@value #DEFAULT_SECONDS} s).
 */
public final class FuzzSeeds {
  public static final long DEFAULT_SEED = 20_251_015L;
  public static final double DEFAULT_SECONDS = 20;

  private FuzzSeeds() {}

  /** The seeds of fuzzer {@code name}, printed. */
  public static LongStream seeds(String name, int defaultIterations) {
    long base = Long.getLong("gstm.fuzz.seed", DEFAULT_SEED);
    int n = Integer.getInteger("gstm.fuzz.iterations", defaultIterations);
    System.out.printf(Locale.ROOT, "fuzz %s: seeds %d..%d (%d iterations; -Dgstm.fuzz.seed, "
        + "-Dgstm.fuzz.iterations, -Dgstm.fuzz.seconds)%n", name, base, base + n - 1, n);
    return LongStream.range(base, base + n);
  }

  /** A fuzzer's time bound: seeds started after it are skipped (aborted, and said once). */
  public static final class Budget {
    private final String name;
    private final double seconds;
    private long start;
    private boolean said;

    public Budget(String name, double defaultSeconds) {
      this.name = name;
      String scale = System.getProperty("gstm.fuzz.seconds");
      this.seconds = scale == null ? defaultSeconds
          : defaultSeconds * Double.parseDouble(scale) / DEFAULT_SECONDS;
    }

    public void check(long seed) {
      long now = System.nanoTime();
      if (start == 0) {
        start = now;
      }
      if ((now - start) / 1e9 > seconds) {
        if (!said) {
          said = true;
          System.out.printf(Locale.ROOT, "fuzz %s: time bound of %.0f s reached at seed %d; "
              + "later seeds skipped%n", name, seconds, seed);
        }
        Assumptions.abort("fuzz " + name + ": time bound reached");
      }
    }
  }

  /**
   * Whether {@code e} is a clear error: an IllegalArgumentException with a message (not a raw
   * NumberFormatException), on the driver, not a task failure wrapped in a SparkException.
   */
  public static boolean clear(Throwable e) {
    return e instanceof IllegalArgumentException && !(e instanceof NumberFormatException)
        && e.getMessage() != null && !e.getMessage().isBlank();
  }
}
