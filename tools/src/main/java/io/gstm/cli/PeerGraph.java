package io.gstm.cli;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;

/**
 * The graph {@code gstm bench-graph --engine gpu} relaxes for the same options (the generator's
 * ids, the undirected graph for components) and its source, as {@code export-graph} writes it
 * for the peers and {@code check-peer} checks their answers on it.
 *
 * @param source where shortest paths start (R-MAT: the vertex of largest out-degree; a grid:
 *     the corner 0); components start everywhere
 */
record PeerGraph(CsrGraph graph, RelaxationKind kind, int source) {

  static PeerGraph of(GraphOptions options, boolean unweighted) {
    RelaxationKind kind = options.kind();
    EdgeList g = options.generate(!unweighted);
    if (unweighted && g.weights() != null) {
      g = new EdgeList(g.vertexCount(), g.src(), g.dst(), null);
    }
    CsrGraph csr = kind == RelaxationKind.CONNECTED_COMPONENTS ? g.toCsr().undirected()
        : g.toCsr();
    int source = kind == RelaxationKind.SHORTEST_PATHS && options.isRmat()
        ? BenchGraphCommand.maxOutDegree(csr) : 0;
    return new PeerGraph(csr, kind, source);
  }

  /** The starting values of {@code bench-graph}'s relaxation. */
  double[] initialValues() {
    return RelaxationVerifier.initialValues(kind, graph.vertexCount(), source);
  }
}
