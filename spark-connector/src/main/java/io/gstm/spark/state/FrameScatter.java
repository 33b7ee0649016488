package io.gstm.spark.state;

import java.util.stream.IntStream;

/**
 * Fills one {@link CrossRounds.Frame} per destination partition from millions of entries on all
 * the executor's cores: each chunk of items counts its entries per destination, the counts give
 * every chunk its place in each frame, and each chunk writes its entries there (no growing
 * arrays, no locks; the frames come out in item order).
 */
final class FrameScatter {
  /** Items per chunk of work. */
  private static final int CHUNK = 1 << 15;

  /** Where an item's entries go: {@link #put} once per entry. */
  interface Sink {
    /** An entry for {@code dest}; with values, its row and {@code from[r][at]} per region. */
    void put(int dest, long seq, long key, int row, long[][] from, int at);
  }

  /** What the items are: {@link #emit} puts item {@code i}'s entries, the same each time. */
  interface Items {
    void emit(int i, Sink sink);
  }

  private FrameScatter() {}

  /**
   * One frame per destination ({@code p}) of the entries of items {@code [0, n)}; with {@code
   * regions} >= 0 the frames carry rows and values, else sequences and keys only.
   */
  static CrossRounds.Frame[] scatter(int n, int p, int regions, Items items) {
    int chunks = chunkCount(n);
    int[][] counts = new int[chunks][p];
    IntStream cs = IntStream.range(0, chunks);
    (chunks > 1 ? cs.parallel() : cs).forEach(c -> {
      int[] mine = counts[c];
      Sink count = (dest, seq, key, row, from, at) -> mine[dest]++;
      for (int i = c * CHUNK, to = Math.min(n, i + CHUNK); i < to; i++) {
        items.emit(i, count);
      }
    });
    int[] total = new int[p];
    int[][] start = new int[chunks][p];
    for (int c = 0; c < chunks; c++) {
      for (int d = 0; d < p; d++) {
        start[c][d] = total[d];
        total[d] += counts[c][d];
      }
    }
    long[][] seqs = new long[p][];
    long[][] keys = new long[p][];
    int[][] rows = regions < 0 ? null : new int[p][];
    long[][][] bits = regions < 0 ? null : new long[p][regions][];
    for (int d = 0; d < p; d++) {
      seqs[d] = new long[total[d]];
      keys[d] = new long[total[d]];
      if (rows != null) {
        rows[d] = new int[total[d]];
        for (int r = 0; r < regions; r++) {
          bits[d][r] = new long[total[d]];
        }
      }
    }
    IntStream fs = IntStream.range(0, chunks);
    (chunks > 1 ? fs.parallel() : fs).forEach(c -> {
      int[] next = start[c].clone();
      Sink fill = (dest, seq, key, row, from, at) -> {
        int k = next[dest]++;
        seqs[dest][k] = seq;
        keys[dest][k] = key;
        if (rows != null) {
          rows[dest][k] = row;
          for (int r = 0; r < regions; r++) {
            bits[dest][r][k] = from == null ? 0 : from[r][at];
          }
        }
      };
      for (int i = c * CHUNK, to = Math.min(n, i + CHUNK); i < to; i++) {
        items.emit(i, fill);
      }
    });
    CrossRounds.Frame[] out = new CrossRounds.Frame[p];
    for (int d = 0; d < p; d++) {
      out[d] = new CrossRounds.Frame(0, total[d], seqs[d], keys[d],
          rows == null ? null : rows[d], bits == null ? null : bits[d]);
    }
    return out;
  }

  /** How many chunks {@link #chunks} gives for {@code n} entries (at least one). */
  static int chunkCount(int n) {
    return Math.max(1, (n + CHUNK - 1) / CHUNK);
  }

  /** Chunks of {@code [0, n)} for parallel loops over entries (see {@link #from}, {@link #to}). */
  static IntStream chunks(int n) {
    int chunks = chunkCount(n);
    IntStream cs = IntStream.range(0, chunks);
    return chunks > 1 ? cs.parallel() : cs;
  }

  static int from(int chunk) {
    return chunk * CHUNK;
  }

  static int to(int chunk, int n) {
    return Math.min(n, (chunk + 1) * CHUNK);
  }
}
