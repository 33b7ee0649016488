package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.CsrGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CSR build by source ({@link LocalGraph#csrBySource}) holds the same out-edges as core's
 * {@link CsrGraph#fromEdges} (self-loops dropped, of duplicates the lightest, the first in input
 * order among equal weights), each vertex's edges in input order instead of by target.
 */
class LocalGraphCsrTest {
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void sameEdgesAsFromEdges(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = 1 + r.nextInt(200);
    int m = r.nextInt(3000);
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = r.nextInt(n);
      dst[i] = r.nextInt(4) == 0 ? src[i] : r.nextInt(Math.min(n, 1 + r.nextInt(n)));
      w[i] = r.nextInt(3) == 0 ? (r.nextBoolean() ? 0.0 : -0.0) : r.nextInt(5);
    }
    for (double[] weights : new double[][] {w, null}) {
      CsrGraph a = LocalGraph.csrBySource(n, src, dst, weights);
      CsrGraph b = CsrGraph.fromEdges(n, src, dst, weights);
      assertThat(a.offsets()).isEqualTo(b.offsets());
      assertThat(a.weights() == null).isEqualTo(weights == null);
      for (int v = 0; v < n; v++) {
        // Bitwise weights, so that 0.0 and -0.0 count as different.
        assertThat(edges(a, v)).as("out-edges of %d", v).isEqualTo(edges(b, v));
      }
      // Input order within a vertex: the first occurrence of each target.
      for (int v = 0; v < n; v++) {
        List<Integer> firsts = new ArrayList<>();
        for (int i = 0; i < m; i++) {
          if (src[i] == v && dst[i] != v && !firsts.contains(dst[i])) {
            firsts.add(dst[i]);
          }
        }
        List<Integer> actual = new ArrayList<>();
        for (int e = a.offsets()[v]; e < a.offsets()[v + 1]; e++) {
          actual.add(a.targets()[e]);
        }
        assertThat(actual).isEqualTo(firsts);
      }
    }
  }

  private static Map<Integer, Long> edges(CsrGraph g, int v) {
    Map<Integer, Long> out = new TreeMap<>();
    for (int e = g.offsets()[v]; e < g.offsets()[v + 1]; e++) {
      long bits = g.weights() == null ? 0 : Double.doubleToRawLongBits(g.weights()[e]);
      assertThat(out.put(g.targets()[e], bits)).as("duplicate target").isNull();
    }
    return out;
  }
}
