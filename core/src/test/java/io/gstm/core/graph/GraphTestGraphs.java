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
}
