package io.gstm.core.graph;

import java.util.Arrays;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/**
 * A directed graph in compressed sparse row form: the out-edges of vertex {@code u} are
 * {@code targets[offsets[u] .. offsets[u + 1] - 1]}, with the same slice of {@code weights}.
 * Graphs built by {@link #fromEdges} have each vertex's out-edges sorted by target, no self-loops
 * and no duplicate edges; nothing here relies on the order (the Spark connector's subgraphs keep
 * input order).
 * Arrays are shared, not copied: do not modify them.
 *
 * @param vertexCount vertices are {@code 0 .. vertexCount - 1}
 * @param offsets {@code vertexCount + 1} non-decreasing edge offsets, from 0 to the edge count
 * @param targets target vertex per edge
 * @param weights weight per edge (non-negative, not NaN), or null for an unweighted graph
 */
public record CsrGraph(int vertexCount, int[] offsets, int[] targets, double[] weights) {

  public CsrGraph {
    if (vertexCount < 0) {
      throw new IllegalArgumentException("vertexCount must be at least 0, got " + vertexCount);
    }
    if (offsets == null || offsets.length != vertexCount + 1) {
      throw new IllegalArgumentException("offsets: expected vertexCount + 1 = "
          + (vertexCount + 1) + " entries, got " + (offsets == null ? "null" : offsets.length));
    }
    if (targets == null) {
      throw new IllegalArgumentException("targets must not be null");
    }
    if (offsets[0] != 0 || offsets[vertexCount] != targets.length) {
      throw new IllegalArgumentException("offsets: must run from 0 to the edge count "
          + targets.length + ", got " + offsets[0] + " .. " + offsets[vertexCount]);
    }
    for (int v = 0; v < vertexCount; v++) {
      if (offsets[v + 1] < offsets[v]) {
        throw new IllegalArgumentException("offsets: decrease at vertex " + v);
      }
    }
    int n = vertexCount;
    int bad = firstIndex(targets.length, e -> targets[e] < 0 || targets[e] >= n);
    if (bad >= 0) {
      throw new IllegalArgumentException("targets[" + bad + "] = " + targets[bad]
          + " is out of range: vertices 0.." + (vertexCount - 1));
    }
    if (weights != null) {
      if (weights.length != targets.length) {
        throw new IllegalArgumentException("weights: expected one per edge (" + targets.length
            + "), got " + weights.length);
      }
      checkWeights(weights);
    }
  }

  /**
   * Builds the CSR form of an edge list. Self-loops are dropped (they never improve a value);
   * of duplicate edges {@code u -> v} the one with the smallest weight is kept.
   *
   * @param weightsOrNull one weight per edge, non-negative and not NaN; null for unweighted
   * @throws IllegalArgumentException naming {@code vertexCount}, {@code src}, {@code dst} or
   *     {@code weights} for a negative count, a length mismatch, an id out of range or a bad
   *     weight
   */
  public static CsrGraph fromEdges(int vertexCount, int[] src, int[] dst, double[] weightsOrNull) {
    if (vertexCount < 0) {
      throw new IllegalArgumentException("vertexCount must be at least 0, got " + vertexCount);
    }
    if (src == null || dst == null) {
      throw new IllegalArgumentException((src == null ? "src" : "dst") + " must not be null");
    }
    if (src.length != dst.length) {
      throw new IllegalArgumentException("dst: expected one entry per src entry (" + src.length
          + "), got " + dst.length);
    }
    if (weightsOrNull != null && weightsOrNull.length != src.length) {
      throw new IllegalArgumentException("weights: expected one per edge (" + src.length
          + "), got " + weightsOrNull.length);
    }
    int m = src.length;
    int badSrc = firstIndex(m, i -> src[i] < 0 || src[i] >= vertexCount);
    int badDst = firstIndex(m, i -> dst[i] < 0 || dst[i] >= vertexCount);
    if (badSrc >= 0 && (badDst < 0 || badSrc <= badDst)) {
      checkId("src", badSrc, src[badSrc], vertexCount);
    }
    if (badDst >= 0) {
      checkId("dst", badDst, dst[badDst], vertexCount);
    }
    if (weightsOrNull != null) {
      checkWeights(weightsOrNull);
    }
    return m >= ParallelCsrBuild.MIN_EDGES
        ? ParallelCsrBuild.build(vertexCount, src, dst, weightsOrNull)
        : sequential(vertexCount, src, dst, weightsOrNull);
  }

  /** {@link #fromEdges} on this thread, the arguments checked. */
  static CsrGraph sequential(int vertexCount, int[] src, int[] dst, double[] weightsOrNull) {
    int m = src.length;
    // Counting sort by source, then sort each adjacency by (target, weight).
    int[] offsets = offsetsBySource(vertexCount, src, dst);
    int[] fill = Arrays.copyOf(offsets, vertexCount);
    long[] keys = new long[offsets[vertexCount]];
    for (int i = 0; i < m; i++) {
      if (src[i] != dst[i]) {
        keys[fill[src[i]]++] = ((long) dst[i] << 32) | i;
      }
    }
    int[] outOffsets = new int[vertexCount + 1];
    int[] targets = new int[keys.length];
    double[] weights = weightsOrNull == null ? null : new double[keys.length];
    int out = 0;
    for (int v = 0; v < vertexCount; v++) {
      Arrays.sort(keys, offsets[v], offsets[v + 1]);
      for (int j = offsets[v]; j < offsets[v + 1]; j++) {
        int t = (int) (keys[j] >>> 32);
        int i = (int) keys[j];
        if (out > outOffsets[v] && targets[out - 1] == t) {
          if (weights != null && weightsOrNull[i] < weights[out - 1]) {
            weights[out - 1] = weightsOrNull[i];
          }
          continue;
        }
        targets[out] = t;
        if (weights != null) {
          weights[out] = weightsOrNull[i];
        }
        out++;
      }
      outOffsets[v + 1] = out;
    }
    return new CsrGraph(vertexCount, outOffsets, Arrays.copyOf(targets, out),
        weights == null ? null : Arrays.copyOf(weights, out));
  }

  /**
   * Where each source's edges start once the edges {@code src[i] -> dst[i]} (ids in
   * {@code [0, n)}) are counting-sorted by source, self-loops left out: {@code n + 1} offsets,
   * the last the number of edges kept.
   */
  public static int[] offsetsBySource(int n, int[] src, int[] dst) {
    int[] offsets = new int[n + 1];
    for (int i = 0; i < src.length; i++) {
      if (src[i] != dst[i]) {
        offsets[src[i] + 1]++;
      }
    }
    for (int v = 0; v < n; v++) {
      offsets[v + 1] += offsets[v];
    }
    return offsets;
  }

  private static void checkId(String name, int i, int id, int vertexCount) {
    if (id < 0 || id >= vertexCount) {
      throw new IllegalArgumentException(name + "[" + i + "] = " + id
          + " is out of range: vertexCount is " + vertexCount + ", so ids 0.."
          + (vertexCount - 1));
    }
  }

  private static void checkWeights(double[] weights) {
    int i = firstIndex(weights.length, k -> Double.isNaN(weights[k]) || weights[k] < 0);
    if (i >= 0) {
      throw new IllegalArgumentException("weights[" + i + "] = " + weights[i]
          + ": weights must be non-negative numbers");
    }
  }

  /** Edges from which the checks run on the common pool (a graph of millions of edges). */
  private static final int PARALLEL_CHECK = 1 << 20;

  /** The lowest index in {@code [0, n)} that is {@code bad}, or -1. */
  private static int firstIndex(int n, IntPredicate bad) {
    if (n < PARALLEL_CHECK) {
      for (int i = 0; i < n; i++) {
        if (bad.test(i)) {
          return i;
        }
      }
      return -1;
    }
    return IntStream.range(0, n).parallel().filter(bad).min().orElse(-1);
  }

  /** Number of edges. */
  public int edgeCount() {
    return targets.length;
  }

  /** Out-degree of vertex {@code v}. */
  public int degree(int v) {
    return offsets[v + 1] - offsets[v];
  }

  /** Weight of edge {@code e}: its stored weight, or 1 for an unweighted graph. */
  public double weight(int e) {
    return weights == null ? 1.0 : weights[e];
  }

  /**
   * This graph with every edge also reversed (duplicates merged at the smaller weight): the
   * symmetric graph that connected components relax.
   */
  public CsrGraph undirected() {
    int m = targets.length;
    int[] src = new int[2 * m];
    int[] dst = new int[2 * m];
    double[] w = weights == null ? null : new double[2 * m];
    int slice = 1 << 14;
    IntStream.range(0, (vertexCount + slice - 1) / slice).parallel().forEach(k -> {
      for (int u = k * slice, end = Math.min(vertexCount, u + slice); u < end; u++) {
        reverse(u, m, src, dst, w);
      }
    });
    return fromEdges(vertexCount, src, dst, w);
  }

  /** Vertex {@code u}'s edges at their places in {@code src, dst, w}, and reversed {@code m} on. */
  private void reverse(int u, int m, int[] src, int[] dst, double[] w) {
    for (int e = offsets[u]; e < offsets[u + 1]; e++) {
      src[e] = u;
      dst[e] = targets[e];
      src[m + e] = targets[e];
      dst[m + e] = u;
      if (w != null) {
        w[e] = weights[e];
        w[m + e] = weights[e];
      }
    }
  }

  @Override
  public String toString() {
    return "CsrGraph[vertices=" + vertexCount + ", edges=" + targets.length
        + (weights == null ? ", unweighted]" : ", weighted]");
  }
}
