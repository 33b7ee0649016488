package io.gstm.core.workload.graph;

import io.gstm.core.store.TxStore;
import java.util.Arrays;

/**
 * Relaxations written as transaction programs over an edge ({@code src, dst, weight}) and vertex
 * values in regions, as {@link io.gstm.core.graph.ProgramRelaxation} runs them and
 * docs/programs.md shows them: the examples, the tests' and {@code bench-graph --program}'s.
 */
public final class GraphPrograms {
  private GraphPrograms() {}

  /** Widest paths: each vertex's best bottleneck width from the source ({@code width}). */
  public static final String WIDEST = """
      program widest(src: int32, dst: int32, weight: float64)
          regions width: float64 outputs changed: int32 {
        let w = min(width[src], weight);
        if (w > width[dst]) { width[dst] = w; changed = 1; }
      }
      """;

  /** Shortest paths with each vertex's parent and hop count updated with its distance. */
  public static final String PATHS = """
      program paths(src: int32, dst: int32, weight: float64)
          regions dist: float64, parent: int32, hops: int32 outputs changed: int32 {
        let d = dist[src] + weight;
        if (d < dist[dst]) {
          dist[dst] = d;
          parent[dst] = src;
          hops[dst] = hops[src] + 1;
          changed = 1;
        }
      }
      """;

  /**
   * Sets a store laid out for {@link #PATHS} (its regions {@code dist}, {@code parent},
   * {@code hops} as regions 0, 1, 2, a word per vertex) to a run's start from {@code source}:
   * distance 0 there and infinity elsewhere, no parents, no hops.
   */
  public static void startPaths(TxStore store, int vertices, int source) {
    double[] dist = new double[vertices];
    Arrays.fill(dist, Double.POSITIVE_INFINITY);
    dist[source] = 0;
    int[] parent = new int[vertices];
    Arrays.fill(parent, -1);
    store.writeFloat64(0, dist);
    store.writeInt32(1, parent);
    store.writeInt32(2, new int[vertices]);
  }
}
