package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.GraphTestGraphs;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import java.util.stream.IntStream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The bare-atomic relaxation that bench-graph prints beside gstm's kernel: its fixpoints equal
 * Dijkstra's and union-find's on random graphs, R-MAT, grids and long paths, and a second run
 * on the same buffers gives the same values.
 */
@EnabledIfGpu
class BareRelaxKernelTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpu();

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({"random, SHORTEST_PATHS", "random, CONNECTED_COMPONENTS", "rmat, SHORTEST_PATHS",
      "rmat, CONNECTED_COMPONENTS", "grid, SHORTEST_PATHS", "grid, CONNECTED_COMPONENTS",
      "path, SHORTEST_PATHS", "unweighted, SHORTEST_PATHS"})
  void fixpointEqualsTheReference(String shape, RelaxationKind kind) {
    CsrGraph g = switch (shape) {
      case "random" -> GraphTestGraphs.random(3000, 20000, 3, 1).toCsr();
      case "rmat" -> RmatGenerator.generate(12, 1 << 16, 2, true).toCsr();
      case "grid" -> GridGenerator.grid(200, 150, 3).toCsr();
      case "path" -> GraphTestGraphs.path(4000, 4).toCsr();
      default -> {
        CsrGraph w = GraphTestGraphs.random(2000, 10000, 1, 5).toCsr();
        yield new CsrGraph(w.vertexCount(), w.offsets(), w.targets(), null);
      }
    };
    boolean components = kind == RelaxationKind.CONNECTED_COMPONENTS;
    if (components) {
      g = g.undirected();
    }
    // The source: the vertex with the most out-edges (R-MAT's vertex 0 may have none).
    int[] off = g.offsets();
    int source = IntStream.range(0, g.vertexCount())
        .reduce((a, b) -> off[b + 1] - off[b] > off[a + 1] - off[a] ? b : a).orElseThrow();
    double[] init = RelaxationVerifier.initialValues(kind, g.vertexCount(), source);
    int[] frontier = components ? IntStream.range(0, g.vertexCount()).toArray()
        : new int[] {source};
    try (BareRelaxKernel bare = new BareRelaxKernel(engines.gpu(), g, components)) {
      BareRelaxKernel.Result r = bare.run(init, frontier, 1_000_000);
      RelaxationVerifier.Report report = RelaxationVerifier.check(g, kind, init, r.values());
      assertThat(report.ok()).as(report.toString()).isTrue();
      assertThat(r.rounds()).isPositive();
      assertThat(r.examined()).isPositive();
      assertThat(bare.run(init, frontier, 1_000_000).values()).isEqualTo(r.values());
    }
  }
}
