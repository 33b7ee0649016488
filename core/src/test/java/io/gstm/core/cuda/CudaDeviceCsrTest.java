package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.GraphTestGraphs;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A CSR kept on the GPU that built it ({@link DeviceCsr}) is the downloaded build's, and a
 * relaxer made from it on the device ({@link GraphRelaxer#onDevice}) ends where one made from
 * the host's arrays does, for shortest paths and components; it reads its graph back as the
 * build's; a graph without edges; a store of another engine refused.
 */
@EnabledIfGpu
class CudaDeviceCsrTest {
  private static CudaEngine gpu;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
  }

  @AfterAll
  static void close() {
    gpu.close();
  }

  /** The edges in three parts, as the connector hands a subgraph's chunks over. */
  private static List<CudaCsrBuild.Part> parts(EdgeList g) {
    List<CudaCsrBuild.Part> parts = new ArrayList<>();
    int m = g.edgeCount();
    int[] cuts = {0, m / 3, 2 * m / 3, m};
    for (int k = 0; k < 3; k++) {
      int from = cuts[k];
      int to = cuts[k + 1];
      parts.add(new CudaCsrBuild.Part(Arrays.copyOfRange(g.src(), from, to),
          Arrays.copyOfRange(g.dst(), from, to),
          g.weights() == null ? null : Arrays.copyOfRange(g.weights(), from, to), to - from));
    }
    return parts;
  }

  @ParameterizedTest(name = "{0} ids, {1} edges, weighted {2}, undirected {3}")
  @CsvSource({"1000, 20000, true, false, 1", "70000, 300000, true, false, 2",
      "70000, 300000, false, false, 3", "70000, 300000, false, true, 4",
      "2000000, 3000000, true, false, 5"})
  void aRelaxerOfTheDevicesCsrEndsWhereOneOfTheHostsArraysDoes(int n, int m, boolean weighted,
      boolean undirected, long seed) {
    EdgeList g = GraphTestGraphs.hubsLoopsAndDuplicates(n, m, weighted, false, seed);
    List<CudaCsrBuild.Part> parts = parts(g);
    int[] extra = {n - 1};
    CudaCsrBuild.Numbered host = CudaCsrBuild.fromPartsNumbered(gpu, n, parts, extra, weighted,
        undirected);
    CudaCsrBuild.Numbered kept = CudaCsrBuild.fromPartsNumbered(gpu, n, parts, extra, weighted,
        undirected, true);
    CsrGraph expected = host.built().graph();
    assertThat(kept.ids()).isEqualTo(host.ids());
    assertThat(kept.built().graph()).isNull();
    RelaxationKind kind = undirected ? RelaxationKind.CONNECTED_COMPONENTS
        : RelaxationKind.SHORTEST_PATHS;
    RelaxOptions options = RelaxOptions.defaults().withSymmetric(undirected);
    try (DeviceCsr csr = kept.device()) {
      assertThat(csr.vertexCount()).isEqualTo(expected.vertexCount());
      assertThat(csr.edgeCount()).isEqualTo(expected.edgeCount());
      assertThat(csr.offsets()).isEqualTo(expected.offsets());
      CudaCsrBuildTest.assertSame(csr.download(), expected);
      int nv = expected.vertexCount();
      double[] values = new double[nv];
      int[] active;
      if (undirected) {
        for (int v = 0; v < nv; v++) {
          values[v] = kept.ids()[v];
        }
        active = java.util.stream.IntStream.range(0, nv).toArray();
      } else {
        Arrays.fill(values, Double.POSITIVE_INFINITY);
        values[0] = 0;
        active = new int[] {0};
      }
      try (GraphRelaxer onDevice = GraphRelaxer.onDevice(csr, kind, options);
          GraphRelaxer fromHost = new GraphRelaxer(gpu, expected, kind, options)) {
        assertThat(onDevice.relax(values, active).values())
            .isEqualTo(fromHost.relax(values, active).values());
        CsrGraph back = onDevice.graph();
        assertThat(back.offsets()).isEqualTo(expected.offsets());
        assertThat(back.targets()).isEqualTo(expected.targets());
        if (kind == RelaxationKind.SHORTEST_PATHS && weighted) {
          CudaCsrBuildTest.assertSame(back, expected);
        }
      }
    }
  }

  @Test
  void aGraphWithoutEdgesKeepsNothingOnTheDevice() {
    CudaCsrBuild.Numbered kept = CudaCsrBuild.fromPartsNumbered(gpu, 10,
        List.of(new CudaCsrBuild.Part(new int[0], new int[0], new double[0], 0)),
        new int[] {7, 3}, true, false, true);
    assertThat(kept.ids()).containsExactly(3, 7);
    try (DeviceCsr csr = kept.device();
        GraphRelaxer r = GraphRelaxer.onDevice(csr, RelaxationKind.SHORTEST_PATHS,
            RelaxOptions.defaults())) {
      assertThat(csr.edgeCount()).isZero();
      assertThat(csr.download().weights()).isEmpty();
      assertThat(r.relax(new double[] {0, Double.POSITIVE_INFINITY}, new int[] {0}).values())
          .containsExactly(0, Double.POSITIVE_INFINITY);
    }
  }

  @Test
  void aStoreOfAnotherEngineIsRefused() {
    EdgeList g = GraphTestGraphs.hubsLoopsAndDuplicates(100, 500, true, false, 9);
    CudaCsrBuild.Numbered kept = CudaCsrBuild.fromPartsNumbered(gpu, 100, parts(g),
        new int[0], true, false, true);
    try (DeviceCsr csr = kept.device();
        io.gstm.core.jvm.JvmEngine jvm = new io.gstm.core.jvm.JvmEngine(1);
        io.gstm.core.store.TxStore other = jvm.createStore(io.gstm.core.store.StoreLayout.of(
            new io.gstm.core.store.RegionSpec("t", io.gstm.core.store.RegionType.INT32,
                csr.edgeCount(), 1)))) {
      assertThatThrownBy(() -> csr.copyInto(other, 0, -1))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("store");
    }
  }
}
