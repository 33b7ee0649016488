package io.gstm.spark.exec;

import java.util.Arrays;

/**
 * Large arrays allocated on several threads at once. The JVM zeroes a new array on the thread
 * that allocates it, at memory speed: the arrays of a batch of ten million transactions (a few
 * hundred MB) took tens of milliseconds one after another on a task's thread, while the
 * executor's other cores idled.
 */
public final class FreshArrays {
  /** Elements from which an array's allocation goes to another thread. */
  public static final int PARALLEL_ELEMENTS = 1 << 18;

  private FreshArrays() {}

  /** Runs the allocations, on the common pool's threads at once when arrays of {@code n}. */
  public static void together(int n, Runnable... allocations) {
    if (n < PARALLEL_ELEMENTS || allocations.length < 2) {
      for (Runnable a : allocations) {
        a.run();
      }
    } else {
      Arrays.stream(allocations).parallel().forEach(Runnable::run);
    }
  }

  /** {@code count} zeroed arrays of {@code n} longs. */
  public static long[][] longs(int count, int n) {
    long[][] out = new long[count][];
    Runnable[] each = new Runnable[count];
    for (int k = 0; k < count; k++) {
      int at = k;
      each[k] = () -> out[at] = new long[n];
    }
    together(n, each);
    return out;
  }

  /** {@code count} zeroed arrays of {@code n} ints. */
  public static int[][] ints(int count, int n) {
    int[][] out = new int[count][];
    Runnable[] each = new Runnable[count];
    for (int k = 0; k < count; k++) {
      int at = k;
      each[k] = () -> out[at] = new int[n];
    }
    together(n, each);
    return out;
  }
}
