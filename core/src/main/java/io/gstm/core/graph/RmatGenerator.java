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
    if (scale < 1 || scale > 30) {
      throw new IllegalArgumentException("scale must be in 1..30, got " + scale);
    }
    if (edgeCount < 0) {
      throw new IllegalArgumentException("edgeCount must be at least 0, got " + edgeCount);
    }
    int n = 1 << scale;
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] perm = VertexIds.permutation(n, rnd);
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
    return new EdgeList(n, src, dst, weights);
  }
}
