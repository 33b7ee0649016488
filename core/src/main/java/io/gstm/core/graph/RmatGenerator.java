package io.gstm.core.graph;

import java.util.SplittableRandom;

/**
 * Graph500-style R-MAT edges: each edge picks one quadrant of the adjacency matrix per level
 * with probabilities a = 0.57, b = 0.19, c = 0.19, d = 0.05, then vertex ids are scrambled by a
 * seeded permutation so that the high-degree vertices are not all small ids. Self-loops and
 * duplicate edges occur, as in Graph500; {@link CsrGraph#fromEdges} drops and merges them.
 */
public final class RmatGenerator {
  static final double A = 0.57;
  static final double B = 0.19;
  static final double C = 0.19;
  /** Largest weight; weights are integers 1..MAX_WEIGHT stored as doubles, so sums are exact. */
  public static final int MAX_WEIGHT = 100;
  /** Edges per chunk of {@link #chunk}. */
  public static final int CHUNK_EDGES = 1 << 20;

  private RmatGenerator() {}

  /**
   * Generates {@code edgeCount} directed edges over {@code 2^scale} vertices; the same arguments
   * give the same edges.
   *
   * @param scale log2 of the vertex count, 1..30
   * @param edgeCount edges to generate, at least 0
   * @param seed random seed
   * @param weighted whether to draw integer weights 1..{@value #MAX_WEIGHT} (else weights null)
   */
  public static EdgeList generate(int scale, int edgeCount, long seed, boolean weighted) {
    checkScale(scale);
    if (edgeCount < 0) {
      throw new IllegalArgumentException("edgeCount must be at least 0, got " + edgeCount);
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] perm = VertexIds.permutation(1 << scale, rnd);
    return draw(scale, edgeCount, rnd, perm, weighted);
  }

  /**
   * Edges of one chunk of {@link #generate}'s partitioned counterpart, for graphs too large to
   * draw in one place: chunk {@code index} holds edges {@code [index * CHUNK_EDGES, (index + 1) *
   * CHUNK_EDGES)} of {@code edgeCount}, drawn from a generator of their own (seeded by {@code
   * seed} and {@code index}), so that chunks can be drawn apart, in any order and on any machine,
   * and their union is the same graph whatever the grouping. The same distribution as {@link
   * #generate}, not the same edges.
   *
   * @param perm the vertex permutation, {@link #permutation(int, long)} of the same scale and seed
   * @throws IllegalArgumentException naming the argument out of range
   */
  public static EdgeList chunk(int scale, long edgeCount, int index, long seed, boolean weighted,
      int[] perm) {
    checkScale(scale);
    if (edgeCount < 0) {
      throw new IllegalArgumentException("edgeCount must be at least 0, got " + edgeCount);
    }
    if (index < 0 || index >= chunks(edgeCount)) {
      throw new IllegalArgumentException("index must be in 0.." + (chunks(edgeCount) - 1)
          + " for " + edgeCount + " edges, got " + index);
    }
    if (perm.length != 1 << scale) {
      throw new IllegalArgumentException("perm: " + perm.length + " ids for scale " + scale);
    }
    long first = (long) index * CHUNK_EDGES;
    int count = (int) Math.min(CHUNK_EDGES, edgeCount - first);
    // Seeds seed + index give overlapping SplittableRandom streams; their first output does not.
    SplittableRandom rnd = new SplittableRandom(new SplittableRandom(seed + index).nextLong());
    return draw(scale, count, rnd, perm, weighted);
  }

  /** Chunks of {@link #chunk} that hold {@code edgeCount} edges. */
  public static int chunks(long edgeCount) {
    long c = (edgeCount + CHUNK_EDGES - 1) / CHUNK_EDGES;
    if (c > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("edgeCount " + edgeCount + " is too large");
    }
    return (int) c;
  }

  /** The vertex permutation of {@link #generate} (and {@link #chunk}) for this scale and seed. */
  public static int[] permutation(int scale, long seed) {
    checkScale(scale);
    return VertexIds.permutation(1 << scale, new SplittableRandom(seed));
  }

  private static void checkScale(int scale) {
    if (scale < 1 || scale > 30) {
      throw new IllegalArgumentException("scale must be in 1..30, got " + scale);
    }
  }

  private static EdgeList draw(int scale, int edgeCount, SplittableRandom rnd, int[] perm,
      boolean weighted) {
    int[] src = new int[edgeCount];
    int[] dst = new int[edgeCount];
    double[] weights = weighted ? new double[edgeCount] : null;
    for (int e = 0; e < edgeCount; e++) {
      int u = 0;
      int v = 0;
      for (int level = 0; level < scale; level++) {
        double r = rnd.nextDouble();
        int bit = 1 << level;
        if (r < A) {
          continue;
        } else if (r < A + B) {
          v |= bit;
        } else if (r < A + B + C) {
          u |= bit;
        } else {
          u |= bit;
          v |= bit;
        }
      }
      src[e] = perm[u];
      dst[e] = perm[v];
      if (weighted) {
        weights[e] = 1 + rnd.nextInt(MAX_WEIGHT);
      }
    }
    return new EdgeList(1 << scale, src, dst, weights);
  }
}
