package io.gstm.spark.ml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.apache.spark.ml.functions.vector_to_array;
import static org.apache.spark.sql.functions.col;

import io.gstm.core.kmeans.KMeansData;
import io.gstm.core.kmeans.KMeansUpdater;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import io.gstm.spark.exec.ResidentCache;
import java.util.Arrays;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.clustering.KMeans;
import org.apache.spark.ml.clustering.KMeansModel;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TxKMeansTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  private static final int N = 20_000;
  private static final int DIMS = 2;
  private static final int K = 6;
  private static double[] points;
  private static Dataset<Row> df;

  @BeforeAll
  static void start() {
    points = KMeansData.blobs(N, DIMS, K, 7);
    df = TestFrames.points(session.spark(), points, DIMS, 3).cache();
  }

  private static double[][] rows(double[] flat, int k) {
    double[][] c = new double[k][];
    for (int j = 0; j < k; j++) {
      c[j] = Arrays.copyOfRange(flat, j * DIMS, (j + 1) * DIMS);
    }
    return c;
  }

  @Test
  void equalsSequentialLloydFromTheSameCentroids() {
    double[] init = KMeansData.firstPoints(points, DIMS, K);
    int iterations = 8;
    TxKMeansModel model = new TxKMeans().setK(K).setMaxIter(iterations).setTol(0)
        .setInitialCentroids(rows(init, K)).fit(df);
    double[] c = init;
    for (int i = 0; i < iterations; i++) {
      c = KMeansUpdater.sequential(points, DIMS, c).centroids(c);
    }
    Vector[] got = model.clusterCenters();
    for (int j = 0; j < K; j++) {
      for (int d = 0; d < DIMS; d++) {
        double want = c[j * DIMS + d];
        assertThat(got[j].apply(d)).as("centroid %d dim %d", j, d)
            .isCloseTo(want, within(1e-6 * Math.max(1, Math.abs(want))));
      }
    }
    TxKMeansReport rep = model.report();
    assertThat(rep.iterations()).isEqualTo(iterations);
    assertThat(rep.points()).isEqualTo(N);
    assertThat(rep.commits()).isPositive();
    assertThat(rep.engines()).isNotEmpty();
    assertThat(ResidentCache.size()).as("updaters left after the fit").isZero();
  }

  @Test
  void partialsOfManyPartitionsAreTreeReducedToTheSameCentroids() {
    // More partitions than TxKMeans merges on the driver directly: treeReduce aggregates them.
    int parts = TxKMeans.DRIVER_MERGE_MAX_PARTITIONS + 3;
    Dataset<Row> many = TestFrames.points(session.spark(), points, DIMS, parts);
    assertThat(many.rdd().getNumPartitions()).isEqualTo(parts);
    double[] init = KMeansData.firstPoints(points, DIMS, K);
    double[] c = init;
    for (int i = 0; i < 5; i++) {
      c = KMeansUpdater.sequential(points, DIMS, c).centroids(c);
    }
    for (Dataset<Row> data : java.util.List.of(many, df)) {
      TxKMeansModel model = new TxKMeans().setK(K).setMaxIter(5).setTol(0)
          .setInitialCentroids(rows(init, K)).fit(data);
      for (int j = 0; j < K; j++) {
        for (int d = 0; d < DIMS; d++) {
          double want = c[j * DIMS + d];
          assertThat(model.clusterCenters()[j].apply(d)).as("centroid %d dim %d", j, d)
              .isCloseTo(want, within(1e-6 * Math.max(1, Math.abs(want))));
        }
      }
      assertThat(model.report().points()).isEqualTo(N);
    }
  }

  @Test
  void sparseAndDenseFeaturesGiveTheSameCentroids() {
    // Dense vectors are read in place, sparse ones through the vector type: the same points.
    int n = 2000;
    java.util.List<Row> dense = new java.util.ArrayList<>();
    java.util.List<Row> sparse = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      double x = points[2 * i];
      double y = points[2 * i + 1];
      dense.add(org.apache.spark.sql.RowFactory.create(
          org.apache.spark.ml.linalg.Vectors.dense(x, y)));
      sparse.add(org.apache.spark.sql.RowFactory.create(
          org.apache.spark.ml.linalg.Vectors.sparse(2, new int[] {0, 1}, new double[] {x, y})));
    }
    org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType()
        .add("features", new org.apache.spark.ml.linalg.VectorUDT());
    double[] init = KMeansData.firstPoints(points, DIMS, K);
    double[] want = Arrays.copyOf(points, n * DIMS);
    double[] c = init;
    for (int i = 0; i < 4; i++) {
      c = KMeansUpdater.sequential(want, DIMS, c).centroids(c);
    }
    for (java.util.List<Row> rows : java.util.List.of(dense, sparse)) {
      TxKMeansModel model = new TxKMeans().setK(K).setMaxIter(4).setTol(0)
          .setInitialCentroids(rows(init, K)).fit(session.spark().createDataFrame(rows, schema));
      for (int j = 0; j < K; j++) {
        for (int d = 0; d < DIMS; d++) {
          assertThat(model.clusterCenters()[j].apply(d)).as("centroid %d dim %d", j, d)
              .isCloseTo(c[j * DIMS + d], within(1e-9 * Math.max(1, Math.abs(c[j * DIMS + d]))));
        }
      }
    }
  }

  @Test
  void matchesMllibCostFromTheSameInitialisation() {
    for (String mode : new String[] {TxKMeans.K_MEANS_PARALLEL, TxKMeans.RANDOM}) {
      KMeansModel mllib = new KMeans().setK(K).setSeed(3).setInitMode(mode).setMaxIter(20)
          .fit(df);
      TxKMeansModel ours = new TxKMeans().setK(K).setSeed(3).setInitMode(mode).setMaxIter(20)
          .fit(df);
      double theirs = mllib.summary().trainingCost();
      double cost = ours.computeCost(df);
      assertThat(cost).as(mode + " cost").isCloseTo(theirs, within(0.01 * theirs));
    }
  }

  @Test
  void worksInAPipelineAndThroughTransform() {
    Dataset<Row> xy = df.select(vector_to_array(col("features"), "float64").getItem(0).as("x"),
        vector_to_array(col("features"), "float64").getItem(1).as("y"));
    Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {
        new VectorAssembler().setInputCols(new String[] {"x", "y"}).setOutputCol("v"),
        new TxKMeans().setK(K).setFeaturesCol("v").setPredictionCol("cluster").setSeed(1)});
    PipelineModel fitted = pipeline.fit(xy);
    Dataset<Row> out = fitted.transform(xy);
    assertThat(out.columns()).contains("cluster");
    assertThat(out.select("cluster").distinct().count()).isBetween(2L, (long) K);
    TxKMeansModel model = new TxKMeans().setK(K).setSeed(1).fit(df);
    assertThat(df.transform(model::transform).columns()).contains("prediction");
    assertThat(model.copy(new org.apache.spark.ml.param.ParamMap()).clusterCenters())
        .hasSize(K);
  }

  @Test
  void onePointSetPerEngineRunsEveryIterationInOneTaskToTheSameCentroids() {
    double[] init = KMeansData.firstPoints(points, DIMS, K);
    int iterations = 6;
    double[] c = init;
    for (int i = 0; i < iterations; i++) {
      c = KMeansUpdater.sequential(points, DIMS, c).centroids(c);
    }
    TxKMeansModel perPartition = new TxKMeans().setK(K).setMaxIter(iterations).setTol(0)
        .setPointSets("partitions").setInitialCentroids(rows(init, K)).fit(df);
    // Here the one executor has no GPU: engines means one point set, every iteration in a task.
    TxKMeansModel perEngine = new TxKMeans().setK(K).setMaxIter(iterations).setTol(0)
        .setPointSets("engines").setInitialCentroids(rows(init, K)).fit(df);
    assertThat(perPartition.report().pointSets()).isEqualTo(3);
    assertThat(perEngine.report().pointSets()).isEqualTo(1);
    assertThat(perEngine.report().iterations()).isEqualTo(iterations);
    assertThat(perEngine.report().points()).isEqualTo(N);
    assertThat(perEngine.report().commits()).isPositive();
    assertThat(perEngine.report().trainingCost())
        .isCloseTo(perPartition.report().trainingCost(),
            within(1e-9 * perPartition.report().trainingCost()));
    for (int j = 0; j < K; j++) {
      for (int d = 0; d < DIMS; d++) {
        double want = c[j * DIMS + d];
        assertThat(perEngine.clusterCenters()[j].apply(d)).as("centroid %d dim %d", j, d)
            .isCloseTo(want, within(1e-6 * Math.max(1, Math.abs(want))))
            .isCloseTo(perPartition.clusterCenters()[j].apply(d),
                within(1e-9 * Math.max(1, Math.abs(want))));
      }
    }
    assertThat(ResidentCache.size()).as("updaters left after the fit").isZero();
    // Convergence inside the task stops where the driver's loop stops.
    TxKMeansModel loose = new TxKMeans().setK(K).setMaxIter(50).setTol(1e-3)
        .setPointSets("engines").setInitialCentroids(rows(init, K)).fit(df);
    TxKMeansModel looseCut = new TxKMeans().setK(K).setMaxIter(50).setTol(1e-3)
        .setPointSets("partitions").setInitialCentroids(rows(init, K)).fit(df);
    assertThat(loose.report().converged()).isTrue();
    assertThat(loose.report().iterations()).isEqualTo(looseCut.report().iterations())
        .isLessThan(50);
    // auto keeps a point set per partition on JVM engines, one per engine on GPUs.
    boolean gpus = perEngine.report().placement().engines().stream()
        .allMatch(e -> e.startsWith("cuda"));
    assertThat(new TxKMeans().setK(K).setMaxIter(2).setInitialCentroids(rows(init, K)).fit(df)
        .report().pointSets()).isEqualTo(gpus ? 1 : 3);
    assertThatThrownBy(() -> new TxKMeans().setPointSets("per-gpu"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spark.gstm.kmeans.pointSets")
        .hasMessageContaining("'per-gpu'")
        .hasMessageContaining("auto, partitions, engines");
  }

  @Test
  void badInputIsNamed() {
    assertThatThrownBy(() -> new TxKMeans().setK(N + 1).fit(df))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("k: k = 20001 is larger than the number of points (20000)");
    assertThatThrownBy(() -> new TxKMeans().setFeaturesCol("f").fit(df))
        .hasMessageContaining("column 'f' (featuresCol) not found");
    assertThatThrownBy(() -> new TxKMeans().fit(df.selectExpr("1.0 AS features")))
        .hasMessageContaining("must be an ml Vector");
    assertThatThrownBy(() -> new TxKMeans().setInitMode("kmeans++"))
        .hasMessageContaining("initMode: invalid value kmeans++");
    assertThatThrownBy(() -> new TxKMeans().setK(1))
        .hasMessageContaining("k: invalid value 1");
    assertThatThrownBy(() -> new TxKMeans().setK(2).setInitialCentroids(new double[][] {{1, 2}})
        .fit(df)).hasMessageContaining("initialCentroids: 1 centroids for k = 2");
    assertThatThrownBy(() -> new TxKMeans().setPredictionCol("features").fit(df))
        .hasMessageContaining("column 'features' (predictionCol) already exists");
  }
}
