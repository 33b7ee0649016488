package io.gstm.core.kmeans;

import static io.gstm.core.testing.KMeansChecks.assertMatches;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.testing.SharedEngines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * k-means centroid updates with real transactions on the JVM engine equal the sequential
 * reference (counts exactly, sums within 1e-9 relative), including records split into slices
 * (dims + 1 above 16) and one point per transaction; partials merge.
 */
class KMeansUpdaterJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(4);

  @ParameterizedTest(name = "n={0} dims={1} k={2} ppt={3}")
  @CsvSource({"5000, 2, 16, 256", "3000, 3, 5, 1", "2000, 20, 4, 64", "7, 2, 3, 256"})
  void equalsSequential(int n, int dims, int k, int ppt) {
    double[] points = KMeansData.blobs(n, dims, k, n + dims);
    double[] centroids = KMeansData.firstPoints(points, dims, Math.min(k, n));
    int kk = centroids.length / dims;
    double[] before = points.clone();
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), kk, dims,
        KMeansOptions.defaults().withPointsPerTransaction(ppt).withThreadsPerBlock(64))) {
      KMeansPartial p = u.update(points, centroids);
      KMeansPartial again = u.update(points, centroids);
      assertMatches(p, KMeansUpdater.sequential(points, dims, centroids));
      assertMatches(again, p);
      assertThat(p.commits()).isEqualTo(p.transactions());
    }
    assertThat(points).isEqualTo(before);
  }

  @ParameterizedTest(name = "n={0} dims={1} k={2} ppt={3}")
  @CsvSource({"5000, 2, 16, 256", "3000, 3, 5, 1", "2000, 20, 4, 64", "7, 2, 3, 256"})
  void givenAssignmentEqualsTheUpdaterAssigningItself(int n, int dims, int k, int ppt) {
    double[] points = KMeansData.blobs(n, dims, k, 31L * n + dims);
    double[] centroids = KMeansData.firstPoints(points, dims, Math.min(k, n));
    int kk = centroids.length / dims;
    int[] assignment = new int[n];
    double cost = KMeansUpdater.assign(points, dims, centroids, assignment);
    int[] given = assignment.clone();
    double[] before = points.clone();
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), kk, dims,
        KMeansOptions.defaults().withPointsPerTransaction(ppt).withThreadsPerBlock(64))) {
      assertThat(u.assignsOnDevice()).isFalse();
      KMeansPartial self = u.update(points, centroids);
      KMeansPartial assigned = u.update(points, centroids, assignment);
      assertMatches(assigned, self);
      assertMatches(assigned, KMeansUpdater.sequential(points, dims, centroids));
      assertThat(assigned.cost()).isEqualTo(cost);
      assertThat(assigned.commits()).isEqualTo(assigned.transactions());
    }
    assertThat(points).isEqualTo(before);
    assertThat(assignment).isEqualTo(given);
  }

  @Test
  void loadedPointsAreCheckedOnceAndUpdateAsGiven() {
    double[] points = KMeansData.blobs(4000, 3, 5, 9);
    double[] centroids = KMeansData.firstPoints(points, 3, 5);
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), 5, 3, KMeansOptions.defaults())) {
      assertThatThrownBy(() -> u.updateLoaded(centroids))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("load(points)");
      double[] bad = points.clone();
      bad[7] = Double.NaN;
      assertThatThrownBy(() -> u.load(bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("points[7] = NaN is not finite");
      u.load(points);
      assertMatches(u.updateLoaded(centroids), KMeansUpdater.sequential(points, 3, centroids));
      assertThatThrownBy(() -> u.updateLoaded(new double[3]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("centroids");
    }
  }

  @Test
  void pointsLoadedInPartsUpdateAsThePointsJoined() {
    double[] points = KMeansData.blobs(3000, 3, 5, 11);
    double[] centroids = KMeansData.firstPoints(points, 3, 5);
    java.util.List<double[]> parts = java.util.List.of(
        java.util.Arrays.copyOfRange(points, 0, 3 * 1000), new double[0],
        java.util.Arrays.copyOfRange(points, 3 * 1000, points.length));
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), 5, 3, KMeansOptions.defaults())) {
      u.load(parts);
      assertMatches(u.updateLoaded(centroids), KMeansUpdater.sequential(points, 3, centroids));
      double[] bad = parts.get(2).clone();
      bad[4] = Double.POSITIVE_INFINITY;
      assertThatThrownBy(() -> u.load(java.util.List.of(parts.get(0), bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("part 1 of the points: points[4] = Infinity is not finite");
      assertThatThrownBy(() -> u.load(java.util.List.of(parts.get(0), new double[4])))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("part 1 of the points: points: 4 values are not whole points");
    }
  }

  @Test
  void rangeWritesCheckTheRegionAndLeaveTheRest() {
    io.gstm.core.store.StoreLayout layout = io.gstm.core.store.StoreLayout.of(
        new io.gstm.core.store.RegionSpec("f", io.gstm.core.store.RegionType.FLOAT64, 10, 2),
        new io.gstm.core.store.RegionSpec("i", io.gstm.core.store.RegionType.INT32, 4, 2));
    try (io.gstm.core.store.TxStore s = engines.jvm().createStore(layout)) {
      s.writeFloat64At(0, 3, new double[] {1, 2});
      assertThat(s.readFloat64(0)).containsExactly(0, 0, 0, 1, 2, 0, 0, 0, 0, 0);
      assertThatThrownBy(() -> s.writeFloat64At(0, 9, new double[2]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("offset: words 9..10 are outside region 0 ('f') of 10 words");
      assertThatThrownBy(() -> s.writeFloat64At(0, -1, new double[1]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offset: words -1");
      assertThatThrownBy(() -> s.writeFloat64At(1, 0, new double[1]))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(s.readFloat64(0)).containsExactly(0, 0, 0, 1, 2, 0, 0, 0, 0, 0);
    }
  }

  @Test
  void assignMatchesTheReferenceLoopIncludingTies() {
    // Points on the bisectors of the centroids tie; ties go to the lowest index.
    double[] centroids = {0, 0, 2, 0, 0, 2, 2, 2};
    double[] points = {1, 0, 0, 1, 1, 1, 2, 1, 1, 2, 3, 3, -1, -1, 1.5, 0.5};
    int[] got = new int[8];
    double cost = KMeansUpdater.assign(points, 2, centroids, got);
    assertThat(got).containsExactly(0, 0, 0, 1, 2, 3, 0, 1);
    assertThat(cost).isEqualTo(1 + 1 + 2 + 1 + 1 + 2 + 2 + 0.5);
    // Three dimensions take the general loop: the same rule.
    double[] p3 = {1, 0, 5, 0, 0, 5, 3, 0, 5};
    int[] a3 = new int[3];
    assertThat(KMeansUpdater.assign(p3, 3, new double[] {0, 0, 5, 2, 0, 5}, a3)).isEqualTo(2);
    assertThat(a3).containsExactly(0, 0, 1);
    // Against the plain loop on random data, dims 1 to 5 (an odd count: the 2-D loop pairs points).
    for (int dims = 1; dims <= 5; dims++) {
      double[] pts = KMeansData.blobs(3001, dims, 9, dims);
      double[] c = KMeansData.firstPoints(pts, dims, 9);
      int[] a = new int[3001];
      double total = KMeansUpdater.assign(pts, dims, c, a);
      double expectedCost = 0;
      for (int p = 0; p < 3001; p++) {
        int best = 0;
        double bestDist = Double.POSITIVE_INFINITY;
        for (int j = 0; j < 9; j++) {
          double dist = 0;
          for (int d = 0; d < dims; d++) {
            double diff = pts[p * dims + d] - c[j * dims + d];
            dist += diff * diff;
          }
          if (dist < bestDist) {
            bestDist = dist;
            best = j;
          }
        }
        assertThat(a[p]).as("dims %d point %d", dims, p).isEqualTo(best);
        expectedCost += bestDist;
      }
      assertThat(total).isEqualTo(expectedCost);
    }
  }

  @Test
  void givenAssignmentWithEmptyClusters() {
    // Centroid 1 is far from every point: no point is assigned to it.
    double[] points = {0, 0, 1, 0, 0, 1, 10, 10, 11, 10};
    double[] centroids = {0, 0, 1000, 1000, 10, 10};
    int[] assignment = new int[5];
    KMeansUpdater.assign(points, 2, centroids, assignment);
    assertThat(assignment).containsExactly(0, 0, 0, 2, 2);
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), 3, 2, KMeansOptions.defaults())) {
      KMeansPartial p = u.update(points, centroids, assignment);
      assertThat(p.counts()).containsExactly(3, 0, 2);
      assertThat(p.sums()).containsExactly(1, 1, 0, 0, 21, 20);
      assertThat(p.cost()).isEqualTo(1 + 1 + 1);
      assertThat(p.centroids(centroids)).containsExactly(1.0 / 3, 1.0 / 3, 1000, 1000, 10.5, 10);
      assertThat(u.update(new double[0], centroids, new int[0]).points()).isZero();
    }
  }

  @Test
  void badAssignmentIsNamed() {
    double[] points = {0, 0, 1, 1};
    double[] centroids = {0, 0, 1, 1};
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), 2, 2, KMeansOptions.defaults())) {
      assertThatThrownBy(() -> u.update(points, centroids, null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("assignment must not be null");
      assertThatThrownBy(() -> u.update(points, centroids, new int[3]))
          .hasMessageContaining("assignment: expected one centroid per point, n = 2 entries, "
              + "got 3");
      assertThatThrownBy(() -> u.update(points, centroids, new int[] {0, 2}))
          .hasMessageContaining("assignment[1] = 2 is not a centroid: centroids 0..1");
      assertThatThrownBy(() -> u.update(points, centroids, new int[] {-1, 0}))
          .hasMessageContaining("assignment[0] = -1 is not a centroid");
      assertThatThrownBy(() -> u.update(new double[3], centroids, new int[1]))
          .hasMessageContaining("points");
      assertThatThrownBy(() -> u.update(points, new double[2], new int[2]))
          .hasMessageContaining("centroids");
    }
    assertThatThrownBy(() -> KMeansUpdater.assign(points, 2, centroids, new int[3]))
        .hasMessageContaining("points: 3 points of 2 dims need 6 values, got 4");
    assertThatThrownBy(() -> KMeansUpdater.assign(points, 2, new double[3], new int[2]))
        .hasMessageContaining("centroids");
    assertThatThrownBy(() -> KMeansUpdater.assign(points, 2, centroids, null))
        .hasMessageContaining("assignment must not be null");
    assertThatThrownBy(() -> KMeansUpdater.assign(points, 0, centroids, new int[2]))
        .hasMessageContaining("dims");
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
    try (KMeansUpdater u = new KMeansUpdater(engines.jvm(), 2, 2, KMeansOptions.defaults())) {
      assertThatThrownBy(() -> u.update(new double[3], new double[4]))
          .hasMessageContaining("points");
      assertThatThrownBy(() -> u.update(new double[4], new double[2]))
          .hasMessageContaining("centroids");
      assertThatThrownBy(() -> u.update(new double[] {0, Double.NaN}, new double[4]))
          .hasMessageContaining("points[1]");
      assertThat(u.update(new double[0], new double[4]).points()).isZero();
    }
    assertThatThrownBy(() -> new KMeansUpdater(engines.jvm(), 0, 2, KMeansOptions.defaults()))
        .hasMessageContaining("k");
    assertThatThrownBy(() -> KMeansOptions.defaults().withPointsPerTransaction(0))
        .hasMessageContaining("pointsPerTransaction");
  }
}
