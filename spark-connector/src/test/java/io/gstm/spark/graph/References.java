package io.gstm.spark.graph;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Sequential references for the tests: Dijkstra and union-find on plain edge arrays, a result's
 * values by vertex id to compare them with, and a path whose ids have no locality.
 */
final class References {
  private References() {}

  /**
   * A path through all {@code n} vertices in the order {@code 0, 7919, 2 * 7919, ...} (mod
   * {@code n}; {@code n} not a multiple of 7919): ids without locality. Edge {@code i} weighs
   * {@code 1 + i % weightCycle}; the edges are shuffled by {@code seed}. It starts at vertex 0.
   */
  static EdgeList scrambledPath(int n, int weightCycle, long seed) {
    int[] src = new int[n - 1];
    int[] dst = new int[n - 1];
    double[] w = new double[n - 1];
    for (int i = 0; i + 1 < n; i++) {
      src[i] = (int) ((i * 7919L) % n);
      dst[i] = (int) (((i + 1) * 7919L) % n);
      w[i] = 1 + i % weightCycle;
    }
    return GridGenerator.shuffled(new EdgeList(n, src, dst, w), seed);
  }

  /** Values by vertex id; ids absent from the result stay NaN. */
  static double[] dense(Dataset<Row> values, int n) {
    double[] out = new double[n];
    Arrays.fill(out, Double.NaN);
    for (Row r : values.collectAsList()) {
      out[(int) r.getLong(0)] = r.getDouble(1);
    }
    return out;
  }

  /** Distances from {@code source} over directed edges (weights null: all 1). */
  static double[] dijkstra(int n, int[] src, int[] dst, double[] w, int source) {
    List<List<int[]>> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new ArrayList<>());
    }
    for (int e = 0; e < src.length; e++) {
      out.get(src[e]).add(new int[] {dst[e], e});
    }
    double[] dist = new double[n];
    Arrays.fill(dist, Double.POSITIVE_INFINITY);
    dist[source] = 0;
    PriorityQueue<double[]> q = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
    q.add(new double[] {0, source});
    while (!q.isEmpty()) {
      double[] top = q.poll();
      int u = (int) top[1];
      if (top[0] > dist[u]) {
        continue;
      }
      for (int[] edge : out.get(u)) {
        double d = dist[u] + (w == null ? 1 : w[edge[1]]);
        if (d < dist[edge[0]]) {
          dist[edge[0]] = d;
          q.add(new double[] {d, edge[0]});
        }
      }
    }
    return dist;
  }

  /** Smallest vertex id of each vertex's (undirected) component. */
  static double[] components(int n, int[] src, int[] dst) {
    int[] parent = new int[n];
    for (int i = 0; i < n; i++) {
      parent[i] = i;
    }
    for (int e = 0; e < src.length; e++) {
      int a = find(parent, src[e]);
      int b = find(parent, dst[e]);
      if (a != b) {
        parent[Math.max(a, b)] = Math.min(a, b);
      }
    }
    double[] label = new double[n];
    for (int i = 0; i < n; i++) {
      label[i] = find(parent, i);
    }
    return label;
  }

  private static int find(int[] parent, int v) {
    while (parent[v] != v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  }
}
