package io.gstm.core.kmeans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.engine.Engine;
import io.gstm.core.jvm.JvmEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * k-means centroid updates with real transactions on the JVM engine equal the sequential
 * reference (counts exactly, sums within 1e-9 relative), including records split into slices
 * (dims + 1 above 16) and one point per transaction; partials merge.
 */
class KMeansUpdaterJvmTest {
  private static Engine engine;

  @BeforeAll
  static void open() {
    engine = new JvmEngine(4);
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  @ParameterizedTest(name = "n={0} dims={1} k={2} ppt={3}")
  @CsvSource({"5000, 2, 16, 256", "3000, 3, 5, 1", "2000, 20, 4, 64", "7, 2, 3, 256"})
  void equalsSequential(int n, int dims, int k, int ppt) {
    double[] points = KMeansData.blobs(n, dims, k, n + dims);
    double[] centroids = KMeansData.firstPoints(points, dims, Math.min(k, n));
    int kk = centroids.length / dims;
    double[] before = points.clone();
    try (KMeansUpdater u = new KMeansUpdater(engine, kk, dims,
        KMeansOptions.defaults().withPointsPerTransaction(ppt).withThreadsPerBlock(64))) {
      KMeansPartial p = u.update(points, centroids);
      KMeansPartial again = u.update(points, centroids);
      assertMatches(p, KMeansUpdater.sequential(points, dims, centroids));
      assertMatches(again, p);
      assertThat(p.commits()).isEqualTo(p.transactions());
    }
    assertThat(points).isEqualTo(before);
  }

  static void assertMatches(KMeansPartial actual, KMeansPartial expected) {
    assertThat(actual.counts()).isEqualTo(expected.counts());
    for (int i = 0; i < expected.sums().length; i++) {
      assertThat(actual.sums()[i]).isCloseTo(expected.sums()[i],
          org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, Math.abs(expected.sums()[i]))));
    }
    assertThat(actual.cost()).isCloseTo(expected.cost(),
        org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, expected.cost())));
  }

  @Test
  void tiesGoToTheLowestIndexAndPartialsMerge() {
    double[] centroids = {0, 0, 2, 0};
    KMeansPartial a = KMeansUpdater.sequential(new double[] {1, 0}, 2, centroids);
    assertThat(a.counts()).containsExactly(1, 0);
    KMeansPartial b = KMeansUpdater.sequential(new double[] {3, 0, 2, 1}, 2, centroids);
    KMeansPartial m = a.merge(b);
    assertThat(m.counts()).containsExactly(1, 2);
    assertThat(m.sums()).containsExactly(1, 0, 5, 1);
    assertThat(m.cost()).isEqualTo(1 + 1 + 1);
    assertThat(m.centroids(centroids)).containsExactly(1, 0, 2.5, 0.5);
    assertThatThrownBy(() -> a.merge(KMeansPartial.empty(3, 2))).hasMessageContaining("other");
  }

  @Test
  void badInputNamesTheParameter() {
    try (KMeansUpdater u = new KMeansUpdater(engine, 2, 2, KMeansOptions.defaults())) {
      assertThatThrownBy(() -> u.update(new double[3], new double[4]))
          .hasMessageContaining("points");
      assertThatThrownBy(() -> u.update(new double[4], new double[2]))
          .hasMessageContaining("centroids");
      assertThatThrownBy(() -> u.update(new double[] {0, Double.NaN}, new double[4]))
          .hasMessageContaining("points[1]");
      assertThat(u.update(new double[0], new double[4]).points()).isZero();
    }
    assertThatThrownBy(() -> new KMeansUpdater(engine, 0, 2, KMeansOptions.defaults()))
        .hasMessageContaining("k");
    assertThatThrownBy(() -> KMeansOptions.defaults().withPointsPerTransaction(0))
        .hasMessageContaining("pointsPerTransaction");
  }
}
