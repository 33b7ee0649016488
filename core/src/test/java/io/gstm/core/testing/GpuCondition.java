package io.gstm.core.testing;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engines;
import io.gstm.core.engine.GpuUnavailableReason;
import io.gstm.core.engine.GstmException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The condition behind {@link EnabledIfGpu}: opens the CUDA engine once, on the device of
 * {@code -Dgstm.device} ({@link Engines#defaultDevice()}, 0 when unset), and remembers why not.
 */
public final class GpuCondition implements ExecutionCondition {
  private static final String UNAVAILABLE = probe();

  /** The device GPU tests open: the one the condition probed. */
  public static int device() {
    return Engines.defaultDevice();
  }

  private static String probe() {
    try (CudaEngine e = CudaEngine.open(device())) {
      return null;
    } catch (GstmException | LinkageError e) {
      return GpuUnavailableReason.classify(e).describe(e);
    }
  }

  /** Whether libcuda.so.1 lies where the dynamic loader usually finds it. */
  public static boolean driverInstalled() {
    List<String> dirs = new ArrayList<>(List.of("/usr/lib/x86_64-linux-gnu",
        "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib", "/usr/local/nvidia/lib64",
        "/usr/lib/wsl/lib"));
    String ld = System.getenv("LD_LIBRARY_PATH");
    if (ld != null) {
      dirs.addAll(Arrays.asList(ld.split(":")));
    }
    return dirs.stream().anyMatch(d -> !d.isEmpty() && Files.exists(Path.of(d, "libcuda.so.1")));
  }

  /** True when the CUDA engine opened. */
  public static boolean available() {
    return UNAVAILABLE == null;
  }

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (available()) {
      return ConditionEvaluationResult.enabled("GPU present");
    }
    if (Boolean.getBoolean("gstm.requireGpu")) {
      throw new IllegalStateException("gstm.requireGpu=true but no usable GPU: " + UNAVAILABLE);
    }
    return ConditionEvaluationResult.disabled("no usable GPU: " + UNAVAILABLE);
  }
}
