package io.gstm.core.testing;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.jvm.JvmEngine;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The engines one test class shares: opened before its first test, closed after its last.
 * Register it as a static field, {@code @RegisterExtension static final SharedEngines engines =
 * SharedEngines.ofJvm(4);}, and use {@link #jvm()} and {@link #gpu()}. The CUDA engine opens on
 * {@link GpuCondition#device()}; a class disabled by {@link EnabledIfGpu} opens nothing.
 */
public final class SharedEngines implements BeforeAllCallback, AfterAllCallback {
  private final boolean withGpu;
  private final int jvmThreads;
  private CudaEngine gpu;
  private JvmEngine jvm;

  private SharedEngines(boolean withGpu, int jvmThreads) {
    this.withGpu = withGpu;
    this.jvmThreads = jvmThreads;
  }

  /** A JVM engine of {@code threads} workers. */
  public static SharedEngines ofJvm(int threads) {
    return new SharedEngines(false, threads);
  }

  /** The CUDA engine alone. */
  public static SharedEngines ofGpu() {
    return new SharedEngines(true, 0);
  }

  /** The CUDA engine and a JVM engine of {@code jvmThreads} workers. */
  public static SharedEngines ofGpuAndJvm(int jvmThreads) {
    return new SharedEngines(true, jvmThreads);
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (withGpu) {
      gpu = CudaEngine.open(GpuCondition.device());
    }
    if (jvmThreads > 0) {
      jvm = new JvmEngine(jvmThreads);
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    try {
      if (jvm != null) {
        jvm.close();
      }
    } finally {
      if (gpu != null) {
        gpu.close();
      }
      jvm = null;
      gpu = null;
    }
  }

  /** The JVM engine (open between the class's first and last test). */
  public JvmEngine jvm() {
    return Objects.requireNonNull(jvm, "no JVM engine open");
  }

  /** The CUDA engine (open between the class's first and last test). */
  public CudaEngine gpu() {
    return Objects.requireNonNull(gpu, "no CUDA engine open");
  }
}
