package io.gstm.spark.ml;

import static io.gstm.core.testing.KMeansChecks.assertMatches;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.kmeans.KMeansData;
import io.gstm.core.kmeans.KMeansOptions;
import io.gstm.core.kmeans.KMeansPartial;
import io.gstm.core.kmeans.KMeansUpdater;
import io.gstm.core.testing.SharedEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A partition's resident k-means step (assign once, group, update with the assignment) equals the
 * sequential reference on the JVM engine, across iterations that reuse its buffers, with empty
 * clusters and other dimensions.
 */
class PartitionKMeansTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  @Test
  void iterationsEqualSequentialLloyd() {
    for (int dims : new int[] {2, 3}) {
      double[] points = KMeansData.blobs(20_000, dims, 8, 5 + dims);
      double[] before = points.clone();
      double[] c = KMeansData.firstPoints(points, dims, 8);
      try (PartitionKMeans step = new PartitionKMeans(new KMeansUpdater(engines.jvm(), 8, dims,
          KMeansOptions.defaults().withPointsPerTransaction(256)))) {
        for (int it = 0; it < 5; it++) {
          KMeansPartial got = step.update(points, 20_000, c);
          KMeansPartial want = KMeansUpdater.sequential(points, dims, c);
          assertMatches(got, want);
          assertThat(got.commits()).isEqualTo(got.transactions()).isPositive();
          c = want.centroids(c);
        }
        // Another partition size on the same state: the buffers follow.
        double[] fewer = java.util.Arrays.copyOf(points, 500 * dims);
        assertMatches(step.update(fewer, 500, c), KMeansUpdater.sequential(fewer, dims, c));
      }
      assertThat(points).isEqualTo(before);
    }
  }

  @Test
  void emptyClustersAndBadShapes() {
    double[] points = {0, 0, 1, 0, 10, 10, 11, 10, 0, 1};
    double[] centroids = {10, 10, -500, -500, 0, 0};
    try (PartitionKMeans step = new PartitionKMeans(new KMeansUpdater(engines.jvm(), 3, 2,
        KMeansOptions.defaults()))) {
      KMeansPartial p = step.update(points, 5, centroids);
      assertThat(p.counts()).containsExactly(2, 0, 3);
      assertThat(p.sums()).containsExactly(21, 20, 0, 0, 1, 1);
      assertThat(p.cost()).isEqualTo(3);
      assertThatThrownBy(() -> step.update(points, 4, centroids))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("points: 4 points of 2 dims need 8 values, got 10");
    }
  }
}
