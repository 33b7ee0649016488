package io.gstm.core.workload.graph;

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
}
