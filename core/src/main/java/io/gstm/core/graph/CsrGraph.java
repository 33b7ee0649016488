package io.gstm.core.graph;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * A directed graph in compressed sparse row form: the out-edges of vertex {@code u} are
 * {@code targets[offsets[u] .. offsets[u + 1] - 1]}, with the same slice of {@code weights}.
 * Graphs built by {@link #fromEdges} have each vertex's out-edges sorted by target, no self-loops
 * and no duplicate edges; nothing here relies on the order (the Spark connector's subgraphs keep
 * input order).
 * Arrays are shared, not copied: do not modify them.
 */
public final class CsrGraph {
  private final int vertexCount;
  private final int[] offsets;
  private final int[] targets;
  private final double[] weights;

  /**
   * A graph of these arrays, checked: every offset, target and weight (throws {@link
   * IllegalArgumentException} naming the array and the entry).
   *
   * @param vertexCount vertices are {@code 0 .. vertexCount - 1}
   * @param offsets {@code vertexCount + 1} non-decreasing edge offsets, from 0 to the edge count
   * @param targets target vertex per edge
   * @param weights weight per edge (non-negative, not NaN), or null for an unweighted graph
   */
  public CsrGraph(int vertexCount, int[] offsets, int[] targets, double[] weights) {
    this(vertexCount, offsets, targets, weights, true);
  }

  private CsrGraph(int vertexCount, int[] offsets, int[] targets, double[] weights,
      boolean checkEdges) {
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
    if (weights != null && weights.length != targets.length) {
      throw new IllegalArgumentException("weights: expected one per edge (" + targets.length
          + "), got " + weights.length);
    }
    if (checkEdges) {
      for (int v = 0; v < vertexCount; v++) {
        if (offsets[v + 1] < offsets[v]) {
          throw new IllegalArgumentException("offsets: decrease at vertex " + v);
        }
      }
      int n = vertexCount;
      int bad = firstIndex(targets.length, (from, to) -> firstOutOfRange(targets, n, from, to));
      if (bad >= 0) {
        throw new IllegalArgumentException("targets[" + bad + "] = " + targets[bad]
            + " is out of range: vertices 0.." + (vertexCount - 1));
      }
      if (weights != null) {
        checkWeights(weights);
      }
    }
    this.vertexCount = vertexCount;
    this.offsets = offsets;
    this.targets = targets;
    this.weights = weights;
  }

  /**
   * The CSR a builder made from an edge list that passed {@link #checkEdges} (or the same checks
   * on a GPU: {@code io.gstm.core.cuda.CudaCsrBuild}): the arrays' lengths and ends are checked,
   * not each offset, target and weight again. In a fresh JVM that second pass took 0.35-0.44 s
   * for 65 M edges on 16 cores, as long as the GPU's whole build; arrays that break the CSR's
   * rules give wrong answers instead of an error, so other callers use the constructor.
   */
  public static CsrGraph ofBuiltArrays(int vertexCount, int[] offsets, int[] targets,
      double[] weights) {
    return new CsrGraph(vertexCount, offsets, targets, weights, false);
  }

  /** Vertices are {@code 0 .. vertexCount - 1}. */
  public int vertexCount() {
    return vertexCount;
  }

  /** {@code vertexCount + 1} non-decreasing edge offsets, from 0 to the edge count. */
  public int[] offsets() {
    return offsets;
  }

  /** The target vertex of each edge. */
  public int[] targets() {
    return targets;
  }

  /** The weight of each edge (non-negative, not NaN), or null for an unweighted graph. */
  public double[] weights() {
    return weights;
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
    checkEdges(vertexCount, src, dst, weightsOrNull);
    return src.length >= ParallelCsrBuild.MIN_EDGES
        ? ParallelCsrBuild.build(vertexCount, src, dst, weightsOrNull)
        : sequential(vertexCount, src, dst, weightsOrNull);
  }

  /**
   * The checks of {@link #fromEdges} (every builder of a CSR from an edge list runs them):
   * throws {@link IllegalArgumentException} naming the parameter and the limit.
   */
  public static void checkEdges(int vertexCount, int[] src, int[] dst, double[] weightsOrNull) {
    checkEdgeArrays(vertexCount, src, dst, weightsOrNull);
    int m = src.length;
    int badSrc = firstIndex(m, (from, to) -> firstOutOfRange(src, vertexCount, from, to));
    int badDst = firstIndex(m, (from, to) -> firstOutOfRange(dst, vertexCount, from, to));
    if (badSrc >= 0 && (badDst < 0 || badSrc <= badDst)) {
      checkId("src", badSrc, src[badSrc], vertexCount);
    }
    if (badDst >= 0) {
      checkId("dst", badDst, dst[badDst], vertexCount);
    }
    if (weightsOrNull != null) {
      checkWeights(weightsOrNull);
    }
  }

  /**
   * The checks of {@link #checkEdges} that do not read the edges: the count, the arrays present
   * and of one length. A builder that checks the ids and weights elsewhere (on a GPU) runs these
   * first, and {@link #checkEdges} for the message when it finds a bad edge.
   */
  public static void checkEdgeArrays(int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull) {
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
    int i = firstIndex(weights.length, (from, to) -> firstBadWeight(weights, from, to));
    if (i >= 0) {
      throw new IllegalArgumentException("weights[" + i + "] = " + weights[i]
          + ": weights must be non-negative numbers");
    }
  }

  /** Indexes one task checks; fewer are checked on the calling thread. */
  private static final int PARALLEL_CHECK = 1 << 18;

  /** The lowest index in {@code [from, to)} that fails a check, or -1. */
  @FunctionalInterface
  private interface SliceCheck {
    int first(int from, int to);
  }

  /**
   * The lowest index in {@code [0, n)} that fails {@code check}, or -1: on the common pool, a
   * slice of {@link #PARALLEL_CHECK} indexes a task. Each check is a plain loop over its slice
   * (a parallel stream of the indexes, each through a predicate, took 140 ms a check for 67 M
   * ids on 16 cores).
   */
  private static int firstIndex(int n, SliceCheck check) {
    if (n < PARALLEL_CHECK) {
      return check.first(0, n);
    }
    int slices = (n + PARALLEL_CHECK - 1) / PARALLEL_CHECK;
    return IntStream.range(0, slices).parallel()
        .map(s -> check.first(s * PARALLEL_CHECK, Math.min(n, (s + 1) * PARALLEL_CHECK)))
        .filter(i -> i >= 0).min().orElse(-1);
  }

  private static int firstOutOfRange(int[] ids, int n, int from, int to) {
    for (int i = from; i < to; i++) {
      if (ids[i] < 0 || ids[i] >= n) {
        return i;
      }
    }
    return -1;
  }

  private static int firstBadWeight(double[] w, int from, int to) {
    for (int i = from; i < to; i++) {
      // Not (w >= 0): NaN too.
      if (!(w[i] >= 0)) {
        return i;
      }
    }
    return -1;
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
   * The mean edge weight, summed on all cores; 1 for an unweighted graph, or one of no edges or
   * only zero weights (a bucket width needs a positive unit).
   */
  public double meanWeight() {
    return weights == null ? 1.0 : GraphRelaxer.meanWeight(weights);
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
