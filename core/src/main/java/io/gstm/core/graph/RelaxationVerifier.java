package io.gstm.core.graph;

import java.util.Arrays;
import java.util.PriorityQueue;

/**
 * Exact checks of a relaxation's result against independent sequential references: Dijkstra's
 * algorithm for shortest paths, union-find for connected components. Both compute the least
 * fixpoint from given initial values, which is what {@link GraphRelaxer#relax} must reach when
 * every vertex whose initial value can improve a neighbour is active.
 */
public final class RelaxationVerifier {

  /**
   * The outcome of a check.
   *
   * @param ok whether every value equals the reference exactly
   * @param vertices vertices checked
   * @param mismatches vertices whose value differs
   * @param firstMismatch the first differing vertex in words, or null when ok
   */
  public record Report(boolean ok, int vertices, int mismatches, String firstMismatch) {
    @Override
    public String toString() {
      return ok ? "OK: " + vertices + " vertices equal the reference"
          : "MISMATCH: " + mismatches + " of " + vertices + " vertices differ; first: "
              + firstMismatch;
    }
  }

  private RelaxationVerifier() {}

  /**
   * Initial values: for shortest paths 0 at {@code sources} and +infinity elsewhere; for
   * components each vertex's id ({@code sources} ignored).
   */
  public static double[] initialValues(RelaxationKind kind, int vertexCount, int... sources) {
    double[] values = new double[vertexCount];
    if (kind == RelaxationKind.CONNECTED_COMPONENTS) {
      for (int v = 0; v < vertexCount; v++) {
        values[v] = v;
      }
      return values;
    }
    Arrays.fill(values, Double.POSITIVE_INFINITY);
    for (int s : sources) {
      if (s < 0 || s >= vertexCount) {
        throw new IllegalArgumentException("sources: vertex " + s
            + " is out of range: vertices 0.." + (vertexCount - 1));
      }
      values[s] = 0;
    }
    return values;
  }

  /** The least fixpoint of {@code kind} on {@code graph} from {@code initial}. */
  public static double[] expected(CsrGraph graph, RelaxationKind kind, double[] initial) {
    if (initial.length != graph.vertexCount()) {
      throw new IllegalArgumentException("initial: expected one value per vertex ("
          + graph.vertexCount() + "), got " + initial.length);
    }
    return kind == RelaxationKind.SHORTEST_PATHS
        ? dijkstra(graph, initial) : components(graph, initial);
  }

  /**
   * Multi-source Dijkstra: every vertex starts at its initial value (a finite one makes it a
   * source at that distance); weights as the graph's (1 when unweighted).
   */
  public static double[] dijkstra(CsrGraph graph, double[] initial) {
    int n = graph.vertexCount();
    double[] dist = initial.clone();
    boolean[] done = new boolean[n];
    PriorityQueue<double[]> queue = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
    for (int v = 0; v < n; v++) {
      if (dist[v] < Double.POSITIVE_INFINITY) {
        queue.add(new double[] {dist[v], v});
      }
    }
    int[] offsets = graph.offsets();
    int[] targets = graph.targets();
    while (!queue.isEmpty()) {
      double[] top = queue.poll();
      int u = (int) top[1];
      if (done[u] || top[0] > dist[u]) {
        continue;
      }
      done[u] = true;
      for (int e = offsets[u]; e < offsets[u + 1]; e++) {
        int v = targets[e];
        double candidate = dist[u] + graph.weight(e);
        if (candidate < dist[v]) {
          dist[v] = candidate;
          queue.add(new double[] {candidate, v});
        }
      }
    }
    return dist;
  }

  /**
   * Union-find over the edges taken as undirected: each vertex gets the smallest initial value
   * of its component. Equal to the label-propagation fixpoint on a symmetric graph (such as
   * {@link CsrGraph#undirected()}).
   */
  public static double[] components(CsrGraph graph, double[] initial) {
    int n = graph.vertexCount();
    int[] parent = new int[n];
    for (int v = 0; v < n; v++) {
      parent[v] = v;
    }
    int[] offsets = graph.offsets();
    int[] targets = graph.targets();
    for (int u = 0; u < n; u++) {
      for (int e = offsets[u]; e < offsets[u + 1]; e++) {
        int a = find(parent, u);
        int b = find(parent, targets[e]);
        if (a != b) {
          parent[Math.max(a, b)] = Math.min(a, b);
        }
      }
    }
    double[] min = new double[n];
    Arrays.fill(min, Double.POSITIVE_INFINITY);
    for (int v = 0; v < n; v++) {
      int r = find(parent, v);
      min[r] = Math.min(min[r], initial[v]);
    }
    double[] out = new double[n];
    for (int v = 0; v < n; v++) {
      out[v] = min[find(parent, v)];
    }
    return out;
  }

  private static int find(int[] parent, int v) {
    while (parent[v] != v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  }

  /** Compares {@code actual} with the least fixpoint from {@code initial}, exactly. */
  public static Report check(CsrGraph graph, RelaxationKind kind, double[] initial,
      double[] actual) {
    return compare(expected(graph, kind, initial), actual);
  }

  /** Compares two value arrays exactly (+infinity equals +infinity). */
  public static Report compare(double[] expected, double[] actual) {
    if (actual.length != expected.length) {
      return new Report(false, expected.length, expected.length, "length: expected "
          + expected.length + " values, got " + actual.length);
    }
    int mismatches = 0;
    String first = null;
    for (int v = 0; v < expected.length; v++) {
      if (Double.compare(expected[v], actual[v]) != 0) {
        if (first == null) {
          first = "vertex " + v + ": expected " + expected[v] + ", got " + actual[v];
        }
        mismatches++;
      }
    }
    return new Report(mismatches == 0, expected.length, mismatches, first);
  }
}
