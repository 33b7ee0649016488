package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

/**
 * A packed batch of edges (and bare vertex ids) bound for one partition: primitive arrays cross
 * the shuffle instead of a row per edge.
 */
@DefaultSerializer(JavaSerializer.class)
final class EdgeChunk implements Serializable {
  private static final long serialVersionUID = 1L;

  int[] src;
  int[] dst;
  double[] w;
  int[] vertices;
  private int edges;
  private int vertexIds;
  /**
   * The largest id among the edges' ends and the bare vertices, -1 when there are none; and the
   * sum of the weights (0 when unweighted). Kept as the chunk fills, in the pass that reads and
   * checks the values anyway, so that a subgraph's build needs no pass of its own for its id
   * bound and its mean weight (two scans of 263 M edges at R-MAT 2^24).
   */
  private int maxId = -1;
  private double weightSum;

  EdgeChunk(boolean weighted) {
    src = new int[16];
    dst = new int[16];
    w = weighted ? new double[16] : null;
    vertices = new int[16];
  }

  int size() {
    return edges;
  }

  int vertexCount() {
    return vertexIds;
  }

  /** The largest id of an edge's end or a bare vertex; -1 when the chunk has none. */
  int maxId() {
    return maxId;
  }

  /** The sum of the edges' weights, in edge order (0 when unweighted). */
  double weightSum() {
    return weightSum;
  }

  /** Room for {@code more} edges without growing. */
  void ensure(int more) {
    if (src.length - edges < more) {
      int grown = Math.max(edges + more, src.length * 2);
      src = Arrays.copyOf(src, grown);
      dst = Arrays.copyOf(dst, grown);
      if (w != null) {
        w = Arrays.copyOf(w, grown);
      }
    }
  }

  void addEdge(int s, int d, double weight) {
    if (edges == src.length) {
      int grown = Math.max(16, edges * 2);
      src = Arrays.copyOf(src, grown);
      dst = Arrays.copyOf(dst, grown);
      if (w != null) {
        w = Arrays.copyOf(w, grown);
      }
    }
    src[edges] = s;
    dst[edges] = d;
    if (w != null) {
      w[edges] = weight;
      weightSum += weight;
    }
    maxId = Math.max(maxId, Math.max(s, d));
    edges++;
  }

  /**
   * A chunk of exactly these {@code ss.length} edges, the arrays adopted rather than copied
   * (column batches read in bulk, gathered by {@link #concat} once at the end instead of grown
   * by doubling), checked as the row path checks them (an id below 0, a negative or non-finite
   * weight is the same IllegalArgumentException); {@code ws} null means unweighted.
   */
  static EdgeChunk adopt(int[] ss, int[] ds, double[] ws, String sc, String dc, String wc) {
    int max = checkIds(ss, ds, 0, ss.length, -1, sc, dc);
    double sum = ws == null ? 0 : checkWeights(ws, 0, ws.length, 0, wc);
    return adoptChecked(ss, ds, ws, max, sum);
  }

  /**
   * A chunk of these edges, already checked by {@link #checkIds} and {@link #checkWeights}
   * (which found {@code maxId} and {@code weightSum}): a reader that checks each batch as it
   * decodes it, while the batch is still in the core's cache, saves a pass over the arrays.
   */
  static EdgeChunk adoptChecked(int[] ss, int[] ds, double[] ws, int maxId, double weightSum) {
    EdgeChunk c = new EdgeChunk(ws != null);
    c.src = ss;
    c.dst = ds;
    c.w = ws;
    c.edges = ss.length;
    c.maxId = maxId;
    c.weightSum = weightSum;
    return c;
  }

  /**
   * Checks the ids of edges [from, to) as the row path does (an id below 0 is its
   * IllegalArgumentException); returns the largest of them and {@code max}.
   */
  static int checkIds(int[] ss, int[] ds, int from, int to, int max, String sc, String dc) {
    for (int i = from; i < to; i++) {
      if ((ss[i] | ds[i]) < 0) {
        EdgeInput.checkId(false, ss[i], sc);
        EdgeInput.checkId(false, ds[i], dc);
      }
      max = Math.max(max, Math.max(ss[i], ds[i]));
    }
    return max;
  }

  /**
   * Checks the weights of edges [from, to) as the row path does (negative or not finite: its
   * IllegalArgumentException); returns {@code sum} plus each of them, in order (the same sum
   * however the edges are cut into ranges).
   */
  static double checkWeights(double[] ws, int from, int to, double sum, String wc) {
    for (int i = from; i < to; i++) {
      if (!(ws[i] >= 0 && ws[i] < Double.POSITIVE_INFINITY)) {
        EdgeInput.checkWeight(false, ws[i], wc);
      }
      sum += ws[i];
    }
    return sum;
  }

  void addVertex(int v) {
    if (vertexIds == vertices.length) {
      vertices = Arrays.copyOf(vertices, Math.max(16, vertexIds * 2));
    }
    vertices[vertexIds++] = v;
    maxId = Math.max(maxId, v);
  }

  /** Drops the unused capacity (before shuffling). */
  EdgeChunk trim() {
    src = Arrays.copyOf(src, edges);
    dst = Arrays.copyOf(dst, edges);
    w = w == null ? null : Arrays.copyOf(w, edges);
    vertices = Arrays.copyOf(vertices, vertexIds);
    return this;
  }

  static EdgeChunk concat(List<EdgeChunk> chunks, boolean weighted) {
    int edges = 0;
    int ids = 0;
    for (EdgeChunk c : chunks) {
      edges += c.edges;
      ids += c.vertexIds;
    }
    EdgeChunk all = new EdgeChunk(weighted);
    all.src = new int[edges];
    all.dst = new int[edges];
    all.w = weighted ? new double[edges] : null;
    all.vertices = new int[ids];
    for (EdgeChunk c : chunks) {
      System.arraycopy(c.src, 0, all.src, all.edges, c.edges);
      System.arraycopy(c.dst, 0, all.dst, all.edges, c.edges);
      if (weighted) {
        System.arraycopy(c.w, 0, all.w, all.edges, c.edges);
      }
      System.arraycopy(c.vertices, 0, all.vertices, all.vertexIds, c.vertexIds);
      all.edges += c.edges;
      all.vertexIds += c.vertexIds;
      all.maxId = Math.max(all.maxId, c.maxId);
      all.weightSum += weighted ? c.weightSum : 0;
    }
    return all;
  }
}
