package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.GraphTestGraphs;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link GraphRelaxer#relaxAll} on the device (no list sent: the first split takes index i as
 * vertex i, or components on a symmetric graph go straight to union-find) ends where a relax
 * from the list of every vertex ends, and where the JVM engine ends; and a GPU result's changed
 * vertices, listed only when asked, are the same whether asked at once, after the relaxer's
 * next run (from the bits kept then) or after its close.
 */
@EnabledIfGpu
class CudaRelaxAllTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(4);

  @ParameterizedTest(name = "{0}, {1}, symmetric {2}, seed {3}")
  @CsvSource({"rmat, cc, true, 1", "rmat, cc, false, 2", "rmat, sssp, false, 3",
      "grid, cc, true, 4", "grid, cc, false, 5", "grid, sssp, false, 6", "parts, cc, true, 7",
      "parts, sssp, false, 8"})
  void everyVertexEqualsTheListOfEvery(String graph, String kindName, boolean symmetric,
      long seed) {
    RelaxationKind kind = kindName.equals("cc") ? RelaxationKind.CONNECTED_COMPONENTS
        : RelaxationKind.SHORTEST_PATHS;
    CsrGraph g = switch (graph) {
      case "rmat" -> RmatGenerator.generate(12, 1 << 15, seed, true).toCsr();
      // A grid takes more rounds than the host runs before the device's loop takes over.
      case "grid" -> GridGenerator.shuffled(GridGenerator.grid(64, 64, seed), seed).toCsr();
      default -> GraphTestGraphs.random(6000, 20_000, 300, seed).toCsr();
    };
    if (symmetric) {
      g = g.undirected();
    }
    int n = g.vertexCount();
    // Values inconsistent anywhere: every vertex must start active.
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] init = new double[n];
    for (int v = 0; v < n; v++) {
      init[v] = kind == RelaxationKind.SHORTEST_PATHS && rnd.nextInt(3) == 0
          ? Double.POSITIVE_INFINITY : rnd.nextInt(1000);
    }
    int[] every = IntStream.range(0, n).toArray();
    RelaxOptions opts = RelaxOptions.defaults().withSymmetric(symmetric);
    RelaxResult fromAll;
    RelaxResult fromList;
    RelaxResult again;
    int[] listedAtOnce;
    try (GraphRelaxer r = new GraphRelaxer(engines.gpu(), g, kind, opts)) {
      fromAll = r.relaxAll(init);
      fromList = r.relax(init, every); // fromAll's changed bits are kept as this run starts
      listedAtOnce = fromList.changedVertices();
      again = r.relaxAll(fromAll.values());
    } // again's changed bits are kept at the close
    RelaxResult onJvm;
    try (GraphRelaxer r = new GraphRelaxer(engines.jvm(), g, kind, opts)) {
      onJvm = r.relaxAll(init);
    }
    assertThat(fromAll.values()).isEqualTo(fromList.values()).isEqualTo(onJvm.values());
    assertThat(fromAll.changedVertices()).isEqualTo(listedAtOnce)
        .isEqualTo(onJvm.changedVertices());
    assertThat(again.values()).isEqualTo(fromAll.values());
    assertThat(again.changedVertices()).isEmpty();
  }
}
