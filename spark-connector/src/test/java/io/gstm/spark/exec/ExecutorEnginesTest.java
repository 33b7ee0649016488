package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.engine.GpuUnavailableException;
import io.gstm.spark.SparkTestSession;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ExecutorEnginesTest {
  private static SparkSession spark;
  private static JavaSparkContext jsc;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start();
    jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static boolean gpuUsable() {
    try (TaskEngine lease = ExecutorEngines.acquire(GstmConf.defaults())) {
      return lease.gpu();
    }
  }

  @Test
  void jvmEnginesArePerConcurrentTaskAndPooled() {
    GstmSettings jvm = GstmConf.settings(Map.of("spark.gstm.engine", "jvm"));
    TaskEngine a = ExecutorEngines.acquire(jvm);
    TaskEngine b = ExecutorEngines.acquire(jvm);
    assertThat(a.engine()).isNotSameAs(b.engine());
    assertThat(a.engine().name()).isEqualTo("jvm");
    assertThat(a.gpu()).isFalse();
    var first = a.engine();
    a.close();
    a.close(); // a second close does nothing
    assertThatThrownBy(a::engine).isInstanceOf(IllegalStateException.class);
    try (TaskEngine c = ExecutorEngines.acquire(jvm)) {
      assertThat(c.engine()).isSameAs(first);
    }
    b.close();
  }

  @Test
  void tasksGetAnEngineAndReleaseItOnCompletion() {
    GstmSettings auto = GstmConf.defaults();
    List<String> reasons = jsc.parallelize(List.of(1, 2, 3, 4), 4).map(i -> {
      TaskEngine lease = ExecutorEngines.acquire(auto); // closed by the completion listener
      return lease.engine().name() + ": " + lease.reason();
    }).collect();
    assertThat(reasons).hasSize(4).allSatisfy(r -> assertThat(r).satisfiesAnyOf(
        s -> assertThat(s).startsWith("cuda: GPU 0"),
        s -> assertThat(s).startsWith("jvm: no usable GPU 0").contains("fell back")));
  }

  @Test
  void requireGpuTurnsTheFallbackIntoAnError() {
    Assumptions.assumeFalse(gpuUsable(), "a GPU is usable here");
    GstmSettings strict = GstmConf.settings(Map.of("spark.gstm.requireGpu", "true"));
    assertThatThrownBy(() -> ExecutorEngines.acquire(strict))
        .isInstanceOf(GpuUnavailableException.class)
        .hasMessageContaining("spark.gstm.requireGpu=true forbids falling back");
    GstmSettings gpu = GstmConf.settings(Map.of("spark.gstm.engine", "gpu"));
    assertThatThrownBy(() -> jsc.parallelize(List.of(1), 1)
        .map(i -> ExecutorEngines.acquire(gpu).engine().name()).collect())
        .hasMessageContaining("spark.gstm.engine=gpu but no usable GPU");
  }
}
