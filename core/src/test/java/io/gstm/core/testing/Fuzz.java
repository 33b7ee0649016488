package io.gstm.core.testing;

import java.util.Locale;
import java.util.function.Supplier;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Assumptions;

/**
 * Seeds, iteration counts and time bounds of the seeded fuzzers. Every fuzzer runs the seeds
 * {@code base .. base + iterations - 1}, one test invocation each (named by its seed), from a
 * fixed base seed so that CI is reproducible; {@code -Dgstm.fuzz.seed=S} and
 * {@code -Dgstm.fuzz.iterations=N} change them (a failing seed alone: its seed and 1 iteration),
 * {@code -Dgstm.fuzz.seconds=T} scales every fuzzer's time bound ({@code T} is the bound of a
 * fuzzer whose default is {@value #DEFAULT_SECONDS} s). Seeds past a fuzzer's time bound are
 * skipped, and say so, so that all fuzzers together stay within CI's time on a slow machine.
 */
public final class Fuzz {
  /** The base seed of CI runs. */
  public static final long DEFAULT_SEED = 20_251_015L;
  /** The time bound that {@code -Dgstm.fuzz.seconds} replaces; others scale with it. */
  public static final double DEFAULT_SECONDS = 20;

  private Fuzz() {}

  public static long baseSeed() {
    return Long.getLong("gstm.fuzz.seed", DEFAULT_SEED);
  }

  public static int iterations(int defaultIterations) {
    return Integer.getInteger("gstm.fuzz.iterations", defaultIterations);
  }

  /** The seeds of fuzzer {@code name}, printed (surefire keeps them in the test's output). */
  public static LongStream seeds(String name, int defaultIterations) {
    long base = baseSeed();
    int n = iterations(defaultIterations);
    System.out.printf(Locale.ROOT, "fuzz %s: seeds %d..%d (%d iterations; -Dgstm.fuzz.seed, "
        + "-Dgstm.fuzz.iterations, -Dgstm.fuzz.seconds)%n", name, base, base + n - 1, n);
    return LongStream.range(base, base + n);
  }

  /**
   * Runs {@code action}: its value, or null when it failed with a clear error, an
   * IllegalArgumentException (a ProgramException is one) with a message, not a raw
   * NumberFormatException; or, where the input held a null ({@code nullGiven}), a
   * NullPointerException with a message. Anything else fails the test with {@code about}.
   */
  public static <T> T resultOrClearError(String about, boolean nullGiven, Supplier<T> action) {
    try {
      return action.get();
    } catch (NumberFormatException e) {
      throw new AssertionError("a raw NumberFormatException: " + about, e);
    } catch (IllegalArgumentException e) {
      if (e.getMessage() == null || e.getMessage().isBlank()) {
        throw new AssertionError("an IllegalArgumentException without a message: " + about, e);
      }
      return null;
    } catch (NullPointerException e) {
      if (nullGiven && e.getMessage() != null) {
        return null;
      }
      throw new AssertionError("a NullPointerException: " + about, e);
    } catch (RuntimeException | StackOverflowError e) {
      throw new AssertionError("a crash: " + about, e);
    }
  }

  /** A fuzzer's time bound: seeds started after it are skipped. */
  public static final class Budget {
    private final String name;
    private final double seconds;
    private long start;
    private long skipped;

    /** {@code defaultSeconds} at the default scale ({@value #DEFAULT_SECONDS} s). */
    public Budget(String name, double defaultSeconds) {
      this.name = name;
      String scale = System.getProperty("gstm.fuzz.seconds");
      this.seconds = scale == null ? defaultSeconds
          : defaultSeconds * Double.parseDouble(scale) / DEFAULT_SECONDS;
    }

    /** Call at the start of each seed: skips it (an aborted test) once the time is up. */
    public void check(long seed) {
      long now = System.nanoTime();
      if (start == 0) {
        start = now;
      }
      if ((now - start) / 1e9 > seconds) {
        if (skipped++ == 0) {
          System.out.printf(Locale.ROOT, "fuzz %s: time bound of %.0f s reached at seed %d; "
              + "later seeds skipped%n", name, seconds, seed);
        }
        Assumptions.abort("fuzz " + name + ": time bound of " + seconds + " s reached");
      }
    }
  }
}
