package io.gstm.core.engine;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.jvm.JvmEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the engine a caller asks for and says which one it picked and why. */
public final class Engines {
  private static final Logger LOG = LoggerFactory.getLogger(Engines.class);

  /**
   * The engine picked and the reason, e.g. "GPU requested" or "no usable GPU (...), JVM engine".
   *
   * @param engine the opened engine; the caller closes it
   * @param reason why this engine was picked
   * @param gpuUnavailable why the GPU was not used when AUTO fell back to the JVM engine, else null
   */
  public record Selection(Engine engine, String reason, GpuUnavailableReason gpuUnavailable) {}

  private Engines() {}

  /**
   * Opens an engine. AUTO takes the GPU when a device, a driver and kernels for its architecture
   * are present, otherwise the JVM engine; GPU fails with {@link GpuUnavailableException} instead
   * of falling back. The caller closes {@link Selection#engine()}.
   */
  public static Selection open(EngineChoice choice) {
    if (choice == EngineChoice.JVM) {
      return new Selection(new JvmEngine(), "JVM engine requested", null);
    }
    try {
      CudaEngine cuda = CudaEngine.open(0);
      return new Selection(cuda, choice == EngineChoice.GPU ? "GPU requested" : "GPU found", null);
    } catch (GstmException | LinkageError e) {
      GpuUnavailableReason cause = GpuUnavailableReason.classify(e);
      String why = cause.describe(e);
      if (choice == EngineChoice.GPU) {
        throw new GpuUnavailableException("engine gpu requested but no usable GPU: " + why, cause,
            e);
      }
      LOG.info("No usable GPU ({}); using the JVM engine", why);
      LOG.debug("GPU probe failure", e);
      return new Selection(new JvmEngine(), "no usable GPU (" + why + "), JVM engine", cause);
    }
  }
}
