package io.gstm.spark.ml;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.ml.TxKMeans.Block;
import io.gstm.spark.ml.TxKMeans.Partial;
import io.gstm.spark.ml.TxKMeans.Progress;
import io.gstm.spark.ml.TxKMeans.UpdateTask;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import scala.reflect.ClassTag$;

/**
 * Every iteration in one barrier stage ends where the per-iteration jobs end: the same centroids
 * to the last bit (the partials are merged in partition order either way), the same iteration
 * count at convergence, the same counters.
 */
class BarrierIterationsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  private static final int DIMS = 3;
  private static final int K = 5;

  private static JavaRDD<Block> blocks(double[] points, int sets) {
    int n = points.length / DIMS;
    List<Block> list = new ArrayList<>();
    for (int s = 0; s < sets; s++) {
      int from = (int) ((long) n * s / sets);
      int to = (int) ((long) n * (s + 1) / sets);
      list.add(new Block(Arrays.copyOfRange(points, from * DIMS, to * DIMS), to - from, DIMS));
    }
    return JavaSparkContext.fromSparkContext(session.spark().sparkContext())
        .parallelize(list, sets);
  }

  private static Progress barrier(JavaRDD<Block> blocks, double[] init, GstmSettings s,
      int maxIter, double tolSq, long run) {
    Progress[] out = (Progress[]) blocks.rdd().barrier().mapPartitions(
        new BarrierIterations(run, init, K, DIMS, s, maxIter, tolSq), false,
        ClassTag$.MODULE$.apply(Progress.class)).collect();
    assertThat(out).as("partition 0 alone returns the progress").hasSize(1);
    return out[0];
  }

  private static Progress jobs(JavaRDD<Block> blocks, double[] init, GstmSettings s,
      int maxIter, double tolSq, long run) {
    Progress f = new Progress(init);
    while (f.iterations < maxIter && !f.converged) {
      f.advance(TxKMeans.aggregate(blocks, new UpdateTask(run, f.centroids, K, DIMS, s)), tolSq);
    }
    return f;
  }

  @Test
  void theBarrierLoopEndsWhereTheJobsEnd() {
    double[] points = KMeansData.blobs(6_000, DIMS, K, 11);
    double[] init = KMeansData.firstPoints(points, DIMS, K);
    GstmSettings s = GstmConf.settings(Map.of("spark.gstm.engine", "jvm"));
    JavaRDD<Block> two = blocks(points, 2);
    for (double tol : new double[] {0, 1e-3}) {
      Progress a = barrier(two, init, s, 25, tol * tol, 1001);
      Progress b = jobs(two, init, s, 25, tol * tol, 1002);
      assertThat(a.centroids).as("tol %s", tol).containsExactly(b.centroids);
      assertThat(a.iterations).isEqualTo(b.iterations);
      assertThat(a.converged).isEqualTo(b.converged);
      assertThat(a.cost).isEqualTo(b.cost);
      assertThat(a.tx).isEqualTo(b.tx);
      assertThat(a.engines).isEqualTo(b.engines);
    }
    ResidentCache.release(1001);
    ResidentCache.release(1002);
  }

  @Test
  void aPartialSurvivesItsEncodingAndMergesInPartitionOrder() {
    Partial p = new Partial();
    p.k = 2;
    p.dims = 1;
    p.sums = new double[] {1.5, -0.0};
    p.counts = new long[] {3, 0};
    p.cost = Double.MIN_VALUE;
    p.tx = new io.gstm.core.batch.TxCounts(7, 6, 1);
    p.kernelNanos = 123;
    p.fellBack = true;
    p.engines.add("jvm (é)");
    Partial q = BarrierIterations.decode(BarrierIterations.encode(4, p).substring(2));
    assertThat(q.sums).containsExactly(p.sums);
    assertThat(q.counts).containsExactly(p.counts);
    assertThat(q.cost).isEqualTo(p.cost);
    assertThat(q.tx).isEqualTo(p.tx);
    assertThat(q.kernelNanos).isEqualTo(123);
    assertThat(q.fellBack).isTrue();
    assertThat(q.engines).containsExactly("jvm (é)");
    // Floating-point sums depend on their order: 1e16 + 1 - 1e16 is 0 in partition order
    // (0, 1, 2) and 1 in the order the messages come (2, 0, 1).
    Partial[] parts = {one(1e16), one(1), one(-1e16)};
    Partial m = BarrierIterations.merged(new String[] {BarrierIterations.encode(2, parts[2]),
        BarrierIterations.encode(0, parts[0]), BarrierIterations.encode(1, parts[1])});
    assertThat(m.sums).containsExactly(0.0);
    assertThat(m.counts).containsExactly(3);
  }

  private static Partial one(double sum) {
    Partial p = new Partial();
    p.k = 1;
    p.dims = 1;
    p.sums = new double[] {sum};
    p.counts = new long[] {1};
    p.tx = io.gstm.core.batch.TxCounts.NONE;
    return p;
  }
}
