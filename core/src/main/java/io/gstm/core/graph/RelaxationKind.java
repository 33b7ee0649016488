package io.gstm.core.graph;

/** What a relaxation computes; both are least fixpoints of a monotone min-update. */
public enum RelaxationKind {
  /**
   * Single- or multi-source shortest paths: {@code value(v) = min(value(v), value(u) + w(u, v))}
   * over every edge {@code u -> v}. Start with 0 at the sources and +infinity elsewhere; weights
   * must be non-negative (an unweighted graph counts 1 per edge).
   */
  SHORTEST_PATHS,
  /**
   * Connected components by label propagation: {@code label(v) = min(label(v), label(u))} over
   * every edge {@code u -> v}; weights are ignored. Start with each vertex's id as a double and
   * relax the {@link CsrGraph#undirected() undirected} graph: the fixpoint labels each vertex
   * with the smallest id of its component.
   */
  CONNECTED_COMPONENTS
}
