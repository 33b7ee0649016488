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

  /**
   * System property: the CUDA device ordinal of callers that name none ({@link #open(EngineChoice)},
   * the CLI, the GPU tests' condition); 0 when unset.
   */
  public static final String DEVICE_PROPERTY = "gstm.device";

  private Engines() {}

  /** The device of {@value #DEVICE_PROPERTY}, 0 when unset; a bad value names the property. */
  public static int defaultDevice() {
    String v = System.getProperty(DEVICE_PROPERTY);
    if (v == null || v.isBlank()) {
      return 0;
    }
    try {
      int d = Integer.parseInt(v.trim());
      if (d >= 0) {
        return d;
      }
    } catch (NumberFormatException e) {
      // reported below with the property's name
    }
    throw new IllegalArgumentException(
        DEVICE_PROPERTY + ": expected a device ordinal (0, 1, ...), got '" + v + "'");
  }

  /** {@link #open(EngineChoice, int)} on the device of {@link #defaultDevice()}. */
  public static Selection open(EngineChoice choice) {
    return open(choice, choice == EngineChoice.JVM ? 0 : defaultDevice());
  }

  /**
   * Opens an engine. AUTO takes GPU {@code device} when it exists and a driver and kernels for
   * its architecture are present, otherwise the JVM engine; GPU fails with
   * {@link GpuUnavailableException} instead of falling back. The caller closes
   * {@link Selection#engine()}.
   */
  public static Selection open(EngineChoice choice, int device) {
    if (choice == EngineChoice.JVM) {
      return new Selection(new JvmEngine(), "JVM engine requested", null);
    }
    try {
      CudaEngine cuda = CudaEngine.open(device);
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
