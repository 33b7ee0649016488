package io.gstm.spark.ml;

import static org.apache.spark.ml.functions.vector_to_array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.TestFrames;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** TxKMeans over numeric columns (featuresCols) fits and predicts as over their vectors. */
class TxKMeansColumnsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  private static final int DIMS = 3;
  private static final int K = 5;
  private static Dataset<Row> vectors;
  private static Dataset<Row> flat;
  private static double[][] init;

  @BeforeAll
  static void start() {
    double[] points = KMeansData.blobs(6_000, DIMS, K, 11);
    vectors = TestFrames.points(session.spark(), points, DIMS, 3).cache();
    // The same points as columns x, y and z, beside a string column.
    flat = vectors.select(vector_to_array(col("features"), "float64").as("f"))
        .select(col("f").getItem(0).as("x"), col("f").getItem(1).as("y"),
            col("f").getItem(2).as("z"), lit("label").as("name")).cache();
    init = TxKMeans.unflatten(KMeansData.firstPoints(points, DIMS, K), K, DIMS);
  }

  @Test
  void columnsFitAndPredictAsTheirVectors() {
    TxKMeansModel byVector = new TxKMeans().setK(K).setMaxIter(10).setInitialCentroids(init)
        .fit(vectors);
    TxKMeansModel byColumns = new TxKMeans().setK(K).setMaxIter(10).setInitialCentroids(init)
        .setFeaturesCols("x", "y", "z").fit(flat);
    for (int j = 0; j < K; j++) {
      assertThat(byColumns.clusterCenters()[j].toArray())
          .containsExactly(byVector.clusterCenters()[j].toArray(), within(1e-9));
    }
    assertThat(byColumns.computeCost(flat))
        .isCloseTo(byVector.computeCost(vectors), within(1e-6));
    List<Integer> predicted = byColumns.transform(flat).select("prediction").as(
        org.apache.spark.sql.Encoders.INT()).collectAsList();
    List<Integer> expected = byVector.transform(vectors).select("prediction").as(
        org.apache.spark.sql.Encoders.INT()).collectAsList();
    assertThat(predicted).isEqualTo(expected);
    assertThat(byColumns.transform(flat).columns()).containsExactly("x", "y", "z", "name",
        "prediction");
  }

  /**
   * Double columns of a Parquet file are read from its column batches, not row by row, and fit
   * as their vectors do; a NaN or a null in a file is named as in rows.
   */
  @Test
  void parquetColumnsAreReadFromTheirBatches(@TempDir Path dir) {
    String at = dir.resolve("points").toString();
    flat.write().parquet(at);
    Dataset<Row> file = session.spark().read().parquet(at);
    long before = PointBlocks.COLUMNAR_READS.get();
    TxKMeansModel byColumns = new TxKMeans().setK(K).setMaxIter(10).setInitialCentroids(init)
        .setFeaturesCols("x", "y", "z").fit(file);
    assertThat(PointBlocks.COLUMNAR_READS.get()).as("fits read from column batches")
        .isGreaterThan(before);
    TxKMeansModel byVector = new TxKMeans().setK(K).setMaxIter(10).setInitialCentroids(init)
        .fit(vectors);
    for (int j = 0; j < K; j++) {
      assertThat(byColumns.clusterCenters()[j].toArray())
          .containsExactly(byVector.clusterCenters()[j].toArray(), within(1e-9));
    }
    String nan = dir.resolve("nan").toString();
    flat.withColumn("y", when(col("x").gt(0).and(col("z").lt(0)), lit(Double.NaN))
        .otherwise(col("y"))).write().parquet(nan);
    assertThatThrownBy(() -> new TxKMeans().setK(K).setInitialCentroids(init)
        .setFeaturesCols("x", "y", "z").fit(session.spark().read().parquet(nan)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'y': a feature holds NaN");
    String nulls = dir.resolve("null").toString();
    flat.withColumn("z", when(col("x").gt(0), lit(null).cast("double")).otherwise(col("z")))
        .write().parquet(nulls);
    assertThatThrownBy(() -> new TxKMeans().setK(K).setInitialCentroids(init)
        .setFeaturesCols("x", "y", "z").fit(session.spark().read().parquet(nulls)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'z' (featuresCols): null value");
  }

  /**
   * A Vector column of a Parquet file, dense or with sparse vectors among them, fits as the
   * cached vectors do; a NaN or vectors of two sizes are named. (Read row by row: reading the
   * nested column's batches took 1.6x as long on two executors of one node, 2026-11-28.)
   */
  @Test
  void parquetVectorsFitAsCachedOnes(@TempDir Path dir) {
    TxKMeansModel expected = new TxKMeans().setK(K).setMaxIter(10).setInitialCentroids(init)
        .fit(vectors);
    String dense = dir.resolve("dense").toString();
    vectors.write().parquet(dense);
    // The same points, every seventh as a sparse vector.
    String mixed = dir.resolve("mixed").toString();
    java.util.List<Row> rows = vectors.collectAsList();
    java.util.List<Row> some = new java.util.ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      org.apache.spark.ml.linalg.Vector x = (org.apache.spark.ml.linalg.Vector) rows.get(i).get(0);
      some.add(org.apache.spark.sql.RowFactory.create(i % 7 == 0 ? x.toSparse() : x));
    }
    session.spark().createDataFrame(some, vectors.schema()).repartition(3).write()
        .parquet(mixed);
    for (String at : List.of(dense, mixed)) {
      TxKMeansModel m = new TxKMeans().setK(K).setMaxIter(10).setInitialCentroids(init)
          .fit(session.spark().read().parquet(at));
      assertThat(m.computeCost(vectors)).isCloseTo(expected.computeCost(vectors),
          within(1e-6 * expected.computeCost(vectors)));
    }
    String bad = dir.resolve("bad").toString();
    some.set(5, org.apache.spark.sql.RowFactory.create(
        org.apache.spark.ml.linalg.Vectors.dense(1, Double.NaN, 3)));
    session.spark().createDataFrame(some, vectors.schema()).write().parquet(bad);
    assertThatThrownBy(() -> new TxKMeans().setK(K).setInitialCentroids(init)
        .fit(session.spark().read().parquet(bad)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'features': a feature vector holds NaN");
    String sizes = dir.resolve("sizes").toString();
    some.set(5, org.apache.spark.sql.RowFactory.create(
        org.apache.spark.ml.linalg.Vectors.dense(1, 2)));
    session.spark().createDataFrame(some, vectors.schema()).coalesce(1).write().parquet(sizes);
    assertThatThrownBy(() -> new TxKMeans().setK(K).setInitialCentroids(init)
        .fit(session.spark().read().parquet(sizes)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'features': vectors of sizes 3 and 2");
  }

  @Test
  void columnsWithMllibsInitialisation() {
    TxKMeansModel m = new TxKMeans().setK(K).setMaxIter(5).setSeed(3)
        .setFeaturesCols("x", "y", "z").fit(flat);
    assertThat(m.clusterCenters()).hasSize(K);
    assertThat(m.report().iterations()).isPositive();
  }

  @Test
  void badColumnsAreNamed() {
    TxKMeans kmeans = new TxKMeans().setK(K).setInitialCentroids(init);
    assertThatThrownBy(() -> kmeans.setFeaturesCols("x", "nope", "z").fit(flat))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'nope' (featuresCols) not found");
    assertThatThrownBy(() -> kmeans.setFeaturesCols("x", "name", "z").fit(flat))
        .hasMessageContaining("column 'name' (featuresCols) must be numeric, got string");
    assertThatThrownBy(() -> new TxKMeans().setFeaturesCols("x", "x"))
        .hasMessageContaining("featuresCols: a column is named twice");
    Dataset<Row> withNull = flat.withColumn("y",
        when(col("x").gt(5), lit(null).cast("double")).otherwise(col("y")));
    assertThatThrownBy(() -> kmeans.setFeaturesCols("x", "y", "z").fit(withNull))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'y' (featuresCols): null value");
    Dataset<Row> withNaN = flat.withColumn("z",
        when(col("x").gt(5), lit(Double.NaN)).otherwise(col("z")));
    assertThatThrownBy(() -> kmeans.setFeaturesCols("x", "y", "z").fit(withNaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("column 'z': a feature holds NaN");
  }
}
