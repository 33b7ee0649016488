package io.gstm.cli;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The graph {@code gstm bench-graph --engine gpu} relaxes for the same options (the generator's
 * ids, the undirected graph for components) and its source, as {@code export-graph} writes it
 * for the peers and {@code check-peer} checks their answers on it.
 *
 * @param source where shortest paths start (R-MAT: the vertex of largest out-degree; a grid:
 *     the corner 0); components start everywhere
 */
record PeerGraph(CsrGraph graph, RelaxationKind kind, int source) {

  /** The options that name the graph: bench-graph's, and its {@code --unweighted}. */
  static final class Options {
    @Mixin GraphOptions graph = new GraphOptions(18, 4194304, 1);

    @Option(names = "--unweighted", description = "Unit weights, as bench-graph --unweighted.")
    boolean unweighted;

    PeerGraph build() {
      RelaxationKind kind = graph.kind();
      EdgeList g = graph.edges(unweighted);
      CsrGraph csr = kind == RelaxationKind.CONNECTED_COMPONENTS ? g.toCsr().undirected()
          : g.toCsr();
      int source = kind == RelaxationKind.SHORTEST_PATHS && graph.isRmat()
          ? BenchGraphCommand.maxOutDegree(csr) : 0;
      return new PeerGraph(csr, kind, source);
    }
  }

  /** The starting values of {@code bench-graph}'s relaxation. */
  double[] initialValues() {
    return RelaxationVerifier.initialValues(kind, graph.vertexCount(), source);
  }
}
