package io.gstm.spark.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.SparkTestSession;
import io.gstm.spark.TestFrames;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The generators' DataFrames hold core's data in input order, split into contiguous partitions:
 * the same rows, partition by partition, as the connector's tests build their inputs.
 */
class DataFramesTest {
  private static final SparkSession spark = SparkTestSession.start();

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static List<List<Row>> partitions(Dataset<Row> df) {
    return df.javaRDD().glom().collect();
  }

  @Test
  void edgesAreTheEdgeListInContiguousPartitions() {
    EdgeList g = RmatGenerator.generate(8, 1000, 7, true);
    Dataset<Row> df = DataFrames.edges(spark, g, 3);
    Dataset<Row> expected = TestFrames.edges(spark, g, 3);
    assertThat(df.schema()).isEqualTo(expected.schema());
    assertThat(partitions(df)).hasSize(3).isEqualTo(partitions(expected));
  }

  @Test
  void rmatIsTheGeneratorsGraph() {
    EdgeList g = RmatGenerator.generate(6, 300, 11, false);
    Dataset<Row> df = DataFrames.rmat(spark, 6, 300, 11, false, 2);
    assertThat(df.schema().fieldNames()).containsExactly("src", "dst");
    assertThat(partitions(df)).isEqualTo(partitions(TestFrames.edges(spark, g, 2)));
  }

  @Test
  void blobsAreTheGeneratorsPoints() {
    double[] points = KMeansData.blobs(500, 2, 4, 3);
    Dataset<Row> df = DataFrames.blobs(spark, 500, 2, 4, 3, 3);
    Dataset<Row> expected = TestFrames.points(spark, points, 2, 3);
    assertThat(df.schema()).isEqualTo(expected.schema());
    assertThat(partitions(df)).hasSize(3).isEqualTo(partitions(expected));
  }
}
