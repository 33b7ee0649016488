package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.cuda.CudaFatalException;
import io.gstm.core.cuda.KernelArchitectures;
import io.gstm.core.engine.GpuUnavailableException;
import io.gstm.core.engine.GpuUnavailableReason;
import io.gstm.core.testing.GpuCondition;
import io.gstm.spark.SharedSpark;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class ExecutorEnginesTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();
  private static JavaSparkContext jsc;

  @BeforeAll
  static void start() {
    jsc = JavaSparkContext.fromSparkContext(session.spark().sparkContext());
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
    assertThat(a.gpuUnavailable()).isNull();
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

  /** spark.gstm.devices: the task of partition p takes GPU deviceOrdinal + p mod devices. */
  @Test
  void tasksSpreadOverTheConfiguredDevicesByPartition() {
    GstmSettings two = GstmConf.settings(Map.of("spark.gstm.devices", "2",
        "spark.gstm.deviceOrdinal", "3"));
    List<String> reasons = jsc.parallelize(List.of(0, 1, 2, 3), 4).map(i -> {
      TaskEngine lease = ExecutorEngines.acquire(two); // closed by the completion listener
      return org.apache.spark.TaskContext.getPartitionId() + " " + lease.reason();
    }).collect();
    assertThat(reasons).hasSize(4).allSatisfy(r -> {
      int device = 3 + Integer.parseInt(r.substring(0, 1)) % 2;
      assertThat(r).containsPattern("(GPU|usable GPU) " + device + "\\b");
    });
    assertThat(ExecutorEngines.deviceFor(null, two)).isEqualTo(3);
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.devices", "0")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spark.gstm.devices");
  }

  @Test
  void theFallbackNamesWhyTheGpuIsUnusable() {
    Assumptions.assumeFalse(gpuUsable(), "a GPU is usable here");
    Assumptions.assumeFalse(KernelArchitectures.load().kernels().isEmpty(),
        "built without nvcc: no kernels");
    GpuUnavailableReason expected = GpuCondition.driverInstalled() ? GpuUnavailableReason.NO_CUDA_DEVICE
        : GpuUnavailableReason.CUDA_DRIVER_MISSING;
    try (TaskEngine lease = ExecutorEngines.acquire(GstmConf.defaults())) {
      assertThat(lease.gpuUnavailable()).isEqualTo(expected);
      assertThat(lease.reason()).startsWith("no usable GPU 0 ("
          + (GpuCondition.driverInstalled() ? "no CUDA device: " : "CUDA driver missing: "));
    }
    GstmSettings strict = GstmConf.settings(Map.of("spark.gstm.requireGpu", "true"));
    assertThatThrownBy(() -> ExecutorEngines.acquire(strict))
        .isInstanceOfSatisfying(GpuUnavailableException.class,
            e -> assertThat(e.reason()).isEqualTo(expected));
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

  /**
   * A task that lost the device's context (a sticky CUDA error) fails with that message, and so
   * does every later task of the executor on that device, fast and without falling back: the
   * state resident on it is gone. Another device, and other failures, are not affected.
   */
  @Test
  void aLostContextFailsEveryLaterTaskOnThatDeviceNamingTheRestart() {
    try {
      ExecutorEngines.noteFailure(0, new org.apache.spark.SparkException("task failed",
          new CudaFatalException("launching gstm_bank: CUDA_ERROR_ILLEGAL_ADDRESS (sticky "
              + "error: the CUDA context is lost; restart the process)", null)));
      ExecutorEngines.noteFailure(1, new IllegalStateException("an ordinary task failure"));
      assertThatThrownBy(() -> ExecutorEngines.acquire(GstmConf.defaults()))
          .isInstanceOf(CudaFatalException.class)
          .hasMessageContaining("GPU 0's CUDA context was lost by an earlier task")
          .hasMessageContaining("CUDA_ERROR_ILLEGAL_ADDRESS")
          .hasMessageContaining("restart the executor");
      // In a job the driver sees the same type and message, not only a SparkException.
      Throwable failed = org.assertj.core.api.Assertions.catchThrowable(() -> jsc
          .parallelize(List.of(1, 2), 2)
          .map(i -> ExecutorEngines.acquire(GstmConf.defaults()).gpu()).collect());
      assertThat(TaskErrors.badInput((Exception) failed))
          .isInstanceOf(CudaFatalException.class)
          .hasMessageContaining("restart the executor");
      GstmSettings one = GstmConf.settings(Map.of("spark.gstm.deviceOrdinal", "1"));
      try (TaskEngine lease = ExecutorEngines.acquire(one)) {
        assertThat(lease.engine()).isNotNull();
      }
    } finally {
      ExecutorEngines.forgetLost();
    }
    try (TaskEngine lease = ExecutorEngines.acquire(GstmConf.defaults())) {
      assertThat(lease.engine()).isNotNull();
    }
  }
}
