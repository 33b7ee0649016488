package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The parallel CSR build makes the very arrays of the sequential one (offsets, targets sorted
 * per vertex, duplicates merged at the lightest weight, self-loops dropped), over graphs whose
 * vertices fill fewer or more ranges than it splits, with hubs, duplicates and loops.
 */
class ParallelCsrBuildTest {
  @ParameterizedTest(name = "{0} vertices, {1} edges, weighted {2}, seed {3}")
  @CsvSource({"3, 1100000, true, 1", "1000, 1200000, true, 2", "70000, 1500000, false, 3",
      "2000000, 1100000, true, 4", "1048576, 2000000, true, 5"})
  void makesTheSequentialBuildsArrays(int n, int m, boolean weighted, long seed) {
    EdgeList g = GraphTestGraphs.hubsLoopsAndDuplicates(n, m, weighted, false, seed);
    int[] src = g.src();
    int[] dst = g.dst();
    double[] w = g.weights();
    CsrGraph expected = CsrGraph.sequential(n, src, dst, w);
    CsrGraph actual = ParallelCsrBuild.build(n, src, dst, w);
    assertThat(actual.offsets()).isEqualTo(expected.offsets());
    assertThat(actual.targets()).isEqualTo(expected.targets());
    assertThat(actual.weights()).isEqualTo(expected.weights());
    assertThat(CsrGraph.fromEdges(n, src, dst, w).targets()).isEqualTo(expected.targets());
  }
}
