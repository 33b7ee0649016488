package io.gstm.spark;

import java.util.Objects;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@link SparkTestSession} one test class shares: started before its first test, stopped
 * after its last. Register it as a static field, {@code @RegisterExtension static final
 * SharedSpark session = new SharedSpark();}, and use {@link #spark()}.
 */
public final class SharedSpark implements BeforeAllCallback, AfterAllCallback {
  private final String[] settings;
  private SparkSession spark;

  /** A session with {@code settings} (key, value, ...) beside the test defaults. */
  public SharedSpark(String... settings) {
    this.settings = settings.clone();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    spark = SparkTestSession.start(settings);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (spark != null) {
      spark.stop();
      spark = null;
    }
  }

  /** The session (started between the class's first and last test). */
  public SparkSession spark() {
    return Objects.requireNonNull(spark, "no Spark session started");
  }
}
