package io.gstm.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.gstm.core.cuda.KernelArchitectures;
import io.gstm.core.testing.GpuCondition;
import org.junit.jupiter.api.Test;

class EnginesTest {
  /** Opens {@code choice}, which must select the JVM engine (closed again): the selection. */
  private static Engines.Selection openTheJvm(EngineChoice choice) {
    Engines.Selection s = Engines.open(choice);
    try (Engine e = s.engine()) {
      assertThat(e.name()).isEqualTo("jvm");
    }
    return s;
  }

  @Test
  void jvmOnRequest() {
    Engines.Selection s = openTheJvm(EngineChoice.JVM);
    assertThat(s.reason()).contains("requested");
    assertThat(s.gpuUnavailable()).isNull();
  }

  @Test
  void autoFallsBackToTheJvmAndSaysWhy() {
    assumeFalse(GpuCondition.available(), "a GPU is present");
    Engines.Selection s = openTheJvm(EngineChoice.AUTO);
    assertThat(s.reason()).startsWith("no usable GPU");
    assertThat(s.gpuUnavailable()).isNotNull();
  }

  @Test
  void gpuOnRequestWithoutAGpuIsAnError() {
    assumeFalse(GpuCondition.available(), "a GPU is present");
    assertThatThrownBy(() -> Engines.open(EngineChoice.GPU))
        .isInstanceOf(GpuUnavailableException.class).hasMessageContaining("no usable GPU");
  }

  @Test
  void withoutAGpuTheFallbackNamesItsCause() {
    assumeFalse(GpuCondition.available(), "a GPU is present");
    assumeFalse(KernelArchitectures.load().kernels().isEmpty(), "built without nvcc: no kernels");
    assertThat(GpuUnavailableReason.nativesOnClassPath()).isTrue();
    GpuUnavailableReason expected = GpuCondition.driverInstalled() ? GpuUnavailableReason.NO_CUDA_DEVICE
        : GpuUnavailableReason.CUDA_DRIVER_MISSING;
    // twice: JCuda's first failure is an UnsatisfiedLinkError, later ones NoClassDefFoundErrors
    for (int i = 0; i < 2; i++) {
      Engines.Selection s = Engines.open(EngineChoice.AUTO);
      try (Engine e = s.engine()) {
        assertThat(s.gpuUnavailable()).isEqualTo(expected);
        assertThat(s.reason()).startsWith("no usable GPU ("
            + (GpuCondition.driverInstalled() ? "no CUDA device: " : "CUDA driver missing: "));
      }
    }
    assertThatThrownBy(() -> Engines.open(EngineChoice.GPU))
        .isInstanceOfSatisfying(GpuUnavailableException.class,
            g -> assertThat(g.reason()).isEqualTo(expected));
  }

  @Test
  void engineChoiceEchoesABadValue() {
    assertThat(EngineChoice.parse(" GPU ")).isEqualTo(EngineChoice.GPU);
    assertThatThrownBy(() -> EngineChoice.parse("tpu")).hasMessageContaining("'tpu'")
        .hasMessageContaining("[auto, gpu, jvm]");
  }

  @Test
  void closedEngineRefusesWork() {
    Engine e = Engines.open(EngineChoice.JVM).engine();
    e.close();
    assertThatThrownBy(() -> e.probeLimits(10)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(e::close).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void jvmLimitsProbeMeasuresSomething() {
    try (Engine e = Engines.open(EngineChoice.JVM).engine()) {
      LimitsReport r = e.probeLimits(1 << 16);
      assertThat(r.readCasPerSecond()).isPositive();
      assertThat(r.atomicAddPerSecond()).isPositive();
      assertThat(r.dependentLoadPerSecond()).isPositive();
      assertThatThrownBy(() -> e.probeLimits(0)).hasMessageContaining("words");
    }
  }
}
