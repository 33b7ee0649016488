package io.gstm.spark.exec;

import java.util.stream.IntStream;

/**
 * Chunks of {@code [0, n)} for loops over millions of entries on all the executor's cores: a
 * loop runs {@code for (i = from(c); i < to(c, n); i++)} per chunk {@code c} of {@link #of}
 * (or, with chunks of {@code size} entries, the methods that take it).
 */
public final class Chunks {
  /** Entries per chunk of work. */
  private static final int SIZE = 1 << 15;

  private Chunks() {}

  /** How many chunks {@link #of} gives for {@code n} entries (at least one). */
  public static int count(int n) {
    return count(n, SIZE);
  }

  /** How many chunks of {@code size} entries {@code [0, n)} makes (at least one). */
  public static int count(int n, int size) {
    return n <= 0 ? 1 : (n - 1) / size + 1;
  }

  /** The chunks of {@code [0, n)}, in parallel when there is more than one. */
  public static IntStream of(int n) {
    return of(n, SIZE);
  }

  /** The chunks of {@code size} entries of {@code [0, n)}, in parallel when there are several. */
  public static IntStream of(int n, int size) {
    int chunks = count(n, size);
    IntStream cs = IntStream.range(0, chunks);
    return chunks > 1 ? cs.parallel() : cs;
  }

  public static int from(int chunk) {
    return from(chunk, SIZE);
  }

  public static int from(int chunk, int size) {
    return chunk * size;
  }

  public static int to(int chunk, int n) {
    return to(chunk, n, SIZE);
  }

  public static int to(int chunk, int n, int size) {
    return (int) Math.min(n, (long) (chunk + 1) * size);
  }
}
