package io.gstm.core.graph;

import java.util.SplittableRandom;

/** Seeded random graphs for the relaxation tests, with disconnected parts. */
public final class GraphTestGraphs {
  private GraphTestGraphs() {}

  /**
   * {@code parts} disjoint random subgraphs over {@code vertexCount} vertices (vertex v belongs
   * to part v % parts), {@code edgeCount} edges in all with integer weights 1..20, plus
   * self-loops and duplicates that the CSR form must drop and merge.
   */
  public static EdgeList random(int vertexCount, int edgeCount, int parts, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] src = new int[edgeCount];
    int[] dst = new int[edgeCount];
    double[] w = new double[edgeCount];
    for (int e = 0; e < edgeCount; e++) {
      int part = rnd.nextInt(parts);
      int inPart = (vertexCount - part + parts - 1) / parts;
      src[e] = part + parts * rnd.nextInt(inPart);
      dst[e] = e % 17 == 0 ? src[e] : part + parts * rnd.nextInt(inPart);
      w[e] = 1 + rnd.nextInt(20);
    }
    for (int e = 1; e < edgeCount; e += 23) {
      src[e] = src[e - 1];
      dst[e] = dst[e - 1];
    }
    return new EdgeList(vertexCount, src, dst, w);
  }

  /**
   * Edges that stress a CSR build: a third from a few hubs (the first 8 vertices), every 17th a
   * loop, targets from the first 5,000 vertices (duplicates are common), weights 0..9 (ties
   * among duplicates), and with {@code negativeZero} a quarter of them 0.0 or -0.0 (equal
   * weights that are not the same bits).
   */
  public static EdgeList hubsLoopsAndDuplicates(int n, int m, boolean weighted,
      boolean negativeZero, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = weighted ? new double[m] : null;
    for (int i = 0; i < m; i++) {
      src[i] = i % 3 == 0 ? rnd.nextInt(Math.min(n, 8)) : rnd.nextInt(n);
      dst[i] = i % 17 == 0 ? src[i] : rnd.nextInt(Math.min(n, 5000));
      if (w != null) {
        w[i] = negativeZero && rnd.nextInt(4) == 0 ? (rnd.nextBoolean() ? -0.0 : 0.0)
            : rnd.nextInt(10);
      }
    }
    return new EdgeList(n, src, dst, w);
  }

  /**
   * A path through all {@code vertexCount} vertices in a seeded random order (so ids say nothing
   * about the position), each step both ways with one integer weight 1..20, edges shuffled: the
   * diameter is the vertex count. Edge 0 leaves the path's first vertex.
   */
  public static EdgeList path(int vertexCount, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] order = VertexIds.permutation(vertexCount, rnd);
    int m = 2 * Math.max(0, vertexCount - 1);
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i + 1 < vertexCount; i++) {
      double weight = 1 + rnd.nextInt(20);
      src[2 * i] = order[i];
      dst[2 * i] = order[i + 1];
      src[2 * i + 1] = order[i + 1];
      dst[2 * i + 1] = order[i];
      w[2 * i] = weight;
      w[2 * i + 1] = weight;
    }
    EdgeList shuffled = GridGenerator.shuffled(new EdgeList(vertexCount, src, dst, w), seed);
    // Keep the first step first, so that callers can start from the path's end.
    for (int e = 0; e < m; e++) {
      if (shuffled.src()[e] == order[0]) {
        shuffled.swap(0, e);
        break;
      }
    }
    return shuffled;
  }
}
