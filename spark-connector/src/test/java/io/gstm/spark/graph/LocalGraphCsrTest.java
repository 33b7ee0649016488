package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.CsrGraph;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The counting-sort CSR build equals core's {@link CsrGraph#fromEdges} exactly. */
class LocalGraphCsrTest {
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void equalsFromEdges(long seed) {
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
      CsrGraph a = LocalGraph.csrByCounting(n, src, dst, weights);
      CsrGraph b = CsrGraph.fromEdges(n, src, dst, weights);
      assertThat(a.offsets()).isEqualTo(b.offsets());
      assertThat(a.targets()).isEqualTo(b.targets());
      if (weights == null) {
        assertThat(a.weights()).isNull();
        assertThat(b.weights()).isNull();
      } else {
        // Bitwise, so that 0.0 and -0.0 count as different.
        long[] x = java.util.Arrays.stream(a.weights()).mapToLong(Double::doubleToRawLongBits)
            .toArray();
        long[] y = java.util.Arrays.stream(b.weights()).mapToLong(Double::doubleToRawLongBits)
            .toArray();
        assertThat(x).isEqualTo(y);
      }
    }
  }
}
