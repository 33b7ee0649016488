package io.gstm.spark.state;

import java.util.stream.IntStream;

/**
 * Chunks of {@code [0, n)} for loops over millions of entries on all the executor's cores: a
 * loop runs {@code for (i = from(c); i < to(c, n); i++)} per chunk {@code c} of {@link #of}.
 */
final class Chunks {
  /** Entries per chunk of work. */
  private static final int SIZE = 1 << 15;

  private Chunks() {}

  /** How many chunks {@link #of} gives for {@code n} entries (at least one). */
  static int count(int n) {
    return Math.max(1, (n + SIZE - 1) / SIZE);
  }

  /** The chunks of {@code [0, n)}, in parallel when there is more than one. */
  static IntStream of(int n) {
    int chunks = count(n);
    IntStream cs = IntStream.range(0, chunks);
    return chunks > 1 ? cs.parallel() : cs;
  }

  static int from(int chunk) {
    return chunk * SIZE;
  }

  static int to(int chunk, int n) {
    return Math.min(n, (chunk + 1) * SIZE);
  }
}
