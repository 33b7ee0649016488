package io.gstm.spark.data;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.hash;
import static org.apache.spark.sql.functions.sum;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.RmatGenerator;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The chunked generators give the same rows however many tasks draw them. */
class ChunkedDataTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SparkSession.builder().master("local[2]").appName("chunked-data")
        .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void rmatChunksAreTheSameRowsWhateverThePartitions() {
    long m = RmatGenerator.CHUNK_EDGES + 100L; // two chunks, the second short
    Row one = digest(DataFrames.rmatChunks(spark, 8, m, 5, true, 1));
    Row three = digest(DataFrames.rmatChunks(spark, 8, m, 5, true, 3));
    assertThat(one.getLong(0)).isEqualTo(m);
    assertThat(three).isEqualTo(one);
    assertThat(digest(DataFrames.rmatChunks(spark, 8, m, 6, true, 3))).isNotEqualTo(one);
  }

  @Test
  void blobChunksAreTheSameRowsWhateverThePartitions() {
    Row one = pointDigest(DataFrames.blobChunks(spark, 5000, 3, 4, 5, 1, false));
    assertThat(pointDigest(DataFrames.blobChunks(spark, 5000, 3, 4, 5, 4, false))).isEqualTo(one);
    // As columns: the same values, one column per dimension.
    Row columns = DataFrames.blobChunks(spark, 5000, 3, 4, 5, 2, true)
        .selectExpr("array(x0, x1, x2) AS a").selectExpr("hash(cast(a as string)) AS h")
        .agg(org.apache.spark.sql.functions.count(col("h")), sum(col("h").cast("long"))).first();
    Row vectors = DataFrames.blobChunks(spark, 5000, 3, 4, 5, 2, false)
        .select(org.apache.spark.ml.functions.vector_to_array(col("features"), "float64").as("a"))
        .selectExpr("hash(cast(a as string)) AS h")
        .agg(org.apache.spark.sql.functions.count(col("h")), sum(col("h").cast("long"))).first();
    assertThat(one.getLong(0)).isEqualTo(5000);
    assertThat(columns).isEqualTo(vectors);
  }

  private static Row digest(org.apache.spark.sql.Dataset<Row> edges) {
    return edges.agg(org.apache.spark.sql.functions.count(col("src")),
        sum(hash(col("src"), col("dst"), col("weight")).cast("long"))).first();
  }

  private static Row pointDigest(org.apache.spark.sql.Dataset<Row> points) {
    return points.selectExpr("features", "hash(cast(features as string)) AS h")
        .agg(org.apache.spark.sql.functions.count(col("h")), sum(col("h").cast("long"))).first();
  }
}
