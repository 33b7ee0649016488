package io.gstm.core.graph;

/**
 * A directed edge list: edge {@code i} goes from {@code src[i]} to {@code dst[i]} with weight
 * {@code weights[i]}. Arrays are shared, not copied; {@link CsrGraph#fromEdges} validates them.
 *
 * @param vertexCount vertices are {@code 0 .. vertexCount - 1}
 * @param src source vertex per edge
 * @param dst target vertex per edge
 * @param weights weight per edge, or null for an unweighted graph (every weight 1)
 */
public record EdgeList(int vertexCount, int[] src, int[] dst, double[] weights) {

  /** Number of edges (self-loops and duplicates included). */
  public int edgeCount() {
    return src.length;
  }

  /** Swaps edges {@code a} and {@code b} in place (in these shared arrays). */
  public void swap(int a, int b) {
    int t = src[a];
    src[a] = src[b];
    src[b] = t;
    t = dst[a];
    dst[a] = dst[b];
    dst[b] = t;
    if (weights != null) {
      double x = weights[a];
      weights[a] = weights[b];
      weights[b] = x;
    }
  }

  /** The CSR form of these edges ({@link CsrGraph#fromEdges}). */
  public CsrGraph toCsr() {
    return CsrGraph.fromEdges(vertexCount, src, dst, weights);
  }
}
