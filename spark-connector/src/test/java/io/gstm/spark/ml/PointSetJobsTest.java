package io.gstm.spark.ml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ResidentCache;
import java.io.DataOutputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.spark.SparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fit's point sets left on the executor that read them: merged from their blocks, iterated in
 * one task, or in several tasks that trade partials for centroids with the driver's hub.
 */
class PointSetJobsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  private static final int DIMS = 3;
  private static final int K = 4;
  private static final long RUN = 0x5e75L;

  @AfterEach
  void release() {
    ResidentPoints.release(RUN);
    ResidentCache.release(RUN); // as a fit does once it ends
  }

  /** Four blocks of 2,000 points left on this (driver) executor; where they are. */
  private static List<TxKMeans.Placed> place() {
    double[] all = KMeansData.blobs(8_000, DIMS, K, 3);
    List<TxKMeans.Placed> placed = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      double[] p = Arrays.copyOfRange(all, i * 2_000 * DIMS, (i + 1) * 2_000 * DIMS);
      ResidentPoints.add(RUN, i, new TxKMeans.Block(p, 2_000, DIMS));
      placed.add(new TxKMeans.Placed(i, "driver", "localhost", 2_000, DIMS));
    }
    return placed;
  }

  private static double[][] initial() {
    double[] first = KMeansData.firstPoints(KMeansData.blobs(8_000, DIMS, K, 3), DIMS, K);
    return TxKMeans.unflatten(first, K, DIMS);
  }

  private static TxKMeans.Progress fit(List<TxKMeans.Placed> placed, int engines, long timeout) {
    SparkContext sc = session.spark().sparkContext();
    GstmSettings settings = GstmConf.settings(sc.getConf());
    // Converged when no centroid moves more than 1e-9: on a GPU the sums' order changes from
    // run to run, and a centroid can move by a rounding alone (13 iterations against 8 with 0).
    return PointSetJobs.iterate(sc, placed, RUN, initial(), DIMS, settings, 15, 1e-18, engines,
        timeout);
  }

  @Test
  void twoPointSetsThroughTheHubEndWhereOneSetEnds() {
    TxKMeans.Progress one = fit(place(), 1, 60_000);
    // The executor's only set drops the fit's points and engine state as its task ends.
    assertThat(one.dropped).isTrue();
    assertThat(ResidentPoints.runs()).isZero();
    assertThat(ResidentCache.size()).isZero();
    TxKMeans.Progress two = fit(place(), 2, 60_000);
    // Two sets on one executor: neither drops what the other may still use; the fit does.
    assertThat(two.dropped).isFalse();
    assertThat(ResidentPoints.runs()).isOne();
    assertThat(one.sets).isEqualTo(1);
    assertThat(two.sets).isEqualTo(2);
    // Both stop once no centroid moves (beyond rounding), after the same iterations.
    assertThat(two.iterations).isEqualTo(one.iterations).isGreaterThan(2);
    assertThat(two.converged).isEqualTo(one.converged);
    // The same sums, added in another order.
    for (int i = 0; i < one.centroids.length; i++) {
      assertThat(two.centroids[i]).isCloseTo(one.centroids[i], within(1e-9));
    }
    assertThat(two.cost).isCloseTo(one.cost, within(1e-6 * one.cost));
    assertThat(two.tx.commits()).isPositive();
    assertThat(two.engines).isNotEmpty();
  }

  @Test
  void setsSplitEachExecutorsBlocksAsTheEnginesAllow() {
    List<TxKMeans.Placed> placed = List.of(
        new TxKMeans.Placed(0, "1", "h", 10, 2), new TxKMeans.Placed(1, "2", "h", 10, 2),
        new TxKMeans.Placed(2, "1", "h", 10, 2), new TxKMeans.Placed(3, "2", "h", 0, 2));
    List<PointSetJobs.SetSpec> sets = PointSetJobs.sets(placed, 2);
    assertThat(sets).extracting(PointSetJobs.SetSpec::executor).containsExactly("1", "2");
    assertThat(sets.get(0).partitions()).containsExactly(0, 2);
    assertThat(sets.get(1).partitions()).containsExactly(1); // its empty block is not a set
    // Four engines on two executors: executor 1 splits its two blocks, executor 2 has one.
    assertThat(PointSetJobs.sets(placed, 4)).extracting(PointSetJobs.SetSpec::set)
        .containsExactly(0, 1, 0);
  }

  @Test
  void aBlockThatIsGoneIsPointsLostAndTheFitCanStartOver() {
    List<TxKMeans.Placed> placed = new ArrayList<>(place());
    placed.add(new TxKMeans.Placed(9, "driver", "localhost", 5, DIMS)); // never left here
    assertThatThrownBy(() -> fit(placed, 2, 60_000))
        .satisfies(e -> assertThat(TxKMeans.lostPoints(e))
            .contains("the points of input partition 9 are not on executor driver"));
  }

  @Test
  void setsThatCannotStartTogetherFailClearlyAndFreeTheirSlots() {
    // local[2]: two slots for four point sets.
    assertThatThrownBy(() -> fit(place(), 4, 2_000))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("of 4 point sets' tasks started within 2 s");
    // The slots are free again: a fit of two sets runs.
    assertThat(fit(place(), 2, 60_000).iterations).isGreaterThan(2);
  }

  @Test
  void theHubRefusesConnectionsWithoutTheFitsToken() throws Exception {
    try (CentroidExchange.Hub hub = new CentroidExchange.Hub("127.0.0.1", 1)) {
      io.gstm.spark.exec.TaskHub.Address at = hub.address();
      try (Socket rogue = new Socket(at.host(), at.port())) {
        DataOutputStream out = new DataOutputStream(rogue.getOutputStream());
        out.writeLong(at.token() + 1);
        out.writeInt(0);
        out.flush();
        CompletableFuture<Void> never = new CompletableFuture<>();
        CompletableFuture<Void> link = CompletableFuture.runAsync(() -> {
          try (CentroidExchange.Link l = new CentroidExchange.Link(at, 0)) {
            TxKMeans.Partial p = new TxKMeans.Partial();
            p.keep(io.gstm.core.kmeans.KMeansPartial.empty(K, DIMS));
            assertThat(l.exchange(p)).containsExactly(1.0, 2.0);
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
        hub.awaitAll(never, 10_000); // returns once the real link is in, the rogue refused
        assertThat(rogue.getInputStream().read()).isEqualTo(-1); // closed by the hub
        assertThat(hub.gather().counts).hasSize(K);
        hub.scatter(new double[] {1, 2});
        link.get();
      }
    }
  }
}
