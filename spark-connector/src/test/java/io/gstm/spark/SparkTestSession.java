package io.gstm.spark;

import org.apache.spark.sql.SparkSession;

/** One local[2] SparkSession per test class: start it in @BeforeAll, stop it in @AfterAll. */
public final class SparkTestSession {
  private SparkTestSession() {}

  /** A fresh local session with small shuffles and no UI; extra settings as key, value pairs. */
  public static SparkSession start(String... settings) {
    SparkSession.Builder b = SparkSession.builder()
        .master("local[2]")
        .appName("gstm-test")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.sql.adaptive.enabled", "false");
    for (int i = 0; i + 1 < settings.length; i += 2) {
      b.config(settings[i], settings[i + 1]);
    }
    SparkSession spark = b.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }
}
