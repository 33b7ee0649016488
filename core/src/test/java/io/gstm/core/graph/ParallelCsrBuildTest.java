package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
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
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = weighted ? new double[m] : null;
    for (int i = 0; i < m; i++) {
      // A third of the edges from a few hubs; some loops; targets from a small set, so that
      // duplicates are common.
      src[i] = i % 3 == 0 ? rnd.nextInt(Math.min(n, 8)) : rnd.nextInt(n);
      dst[i] = i % 17 == 0 ? src[i] : rnd.nextInt(Math.min(n, 5000));
      if (w != null) {
        w[i] = rnd.nextInt(10);
      }
    }
    CsrGraph expected = CsrGraph.sequential(n, src, dst, w);
    CsrGraph actual = ParallelCsrBuild.build(n, src, dst, w);
    assertThat(actual.offsets()).isEqualTo(expected.offsets());
    assertThat(actual.targets()).isEqualTo(expected.targets());
    assertThat(actual.weights()).isEqualTo(expected.weights());
    assertThat(CsrGraph.fromEdges(n, src, dst, w).targets()).isEqualTo(expected.targets());
  }
}
