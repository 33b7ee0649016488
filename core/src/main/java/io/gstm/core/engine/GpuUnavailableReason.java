package io.gstm.core.engine;

import java.util.List;
import java.util.Objects;
import jcuda.JCudaVersion;
import jcuda.LibUtils;

/**
 * Why the GPU engine could not be opened. The first three are how the machine or the class path
 * is set up, each with its own fix; everything else (no kernels for the device's architecture, a
 * device ordinal out of range, any other CUDA error) is {@link #OTHER}, and the failure's own
 * message says what. {@link #classify} tells them apart from the failure alone, without a GPU.
 */
public enum GpuUnavailableReason {
  /** JCuda's own native library is not on the class path: the jcuda-natives jar is missing. */
  JCUDA_NATIVES_MISSING,
  /** JCuda's native library is there, but the CUDA driver library (libcuda.so.1) is not. */
  CUDA_DRIVER_MISSING,
  /** The driver loaded but sees no CUDA device. */
  NO_CUDA_DEVICE,
  /** Anything else: the failure's message says what. */
  OTHER;

  /** The jar that carries JCuda's native libraries for this platform. */
  public static final String NATIVES_JAR =
      "jcuda-natives-" + JCudaVersion.get() + "-linux-x86_64.jar";

  /** The class-path resource of JCuda's driver-API binding, inside {@link #NATIVES_JAR}. */
  public static final String DRIVER_BINDING_RESOURCE =
      "lib/libJCudaDriver-" + JCudaVersion.get() + "-linux-x86_64.so";

  /** JCuda's line before the error of loading its library from the class path. */
  private static final String AS_RESOURCE =
      "Stack trace from the attempt to load the library as a resource:";

  /** The end of JCuda's message: seen only where the message was not cut short. */
  private static final String END_OF_NESTED = "---(end of nested stack traces)---";

  /**
   * What is wrong and how to fix it; for {@link #OTHER}, the failure's own message. Names the
   * cause first, so that a log line or an exception message says which of the causes it was.
   */
  public String describe(Throwable failure) {
    return switch (this) {
      case JCUDA_NATIVES_MISSING -> "JCuda natives missing: JCuda's native library ("
          + DRIVER_BINDING_RESOURCE + ") is not on the class path; add " + NATIVES_JAR
          + " (org.jcuda:jcuda-natives:" + JCudaVersion.get() + ", classifier linux-x86_64)";
      case CUDA_DRIVER_MISSING -> "CUDA driver missing: the CUDA driver library (libcuda.so.1) "
          + "could not be loaded; install the NVIDIA driver or put the directory that holds "
          + "libcuda.so.1 on LD_LIBRARY_PATH";
      case NO_CUDA_DEVICE -> "no CUDA device: the CUDA driver loaded but sees no device ("
          + firstLine(failure) + "); check nvidia-smi, CUDA_VISIBLE_DEVICES and the GPUs given "
          + "to this process";
      case OTHER -> failure instanceof LinkageError
          ? "JCuda's native library could not be loaded: "
              + Objects.requireNonNullElse(resourceError(messages(failure)), firstLine(failure))
          : failure.getMessage();
    };
  }

  /**
   * The reason behind a failure of {@code CudaEngine.open}: a {@link GstmException} or the
   * {@link LinkageError} of loading JCuda's native library.
   */
  public static GpuUnavailableReason classify(Throwable failure) {
    return classify(failure, nativesOnClassPath());
  }

  /**
   * As {@link #classify(Throwable)}, given whether {@link #DRIVER_BINDING_RESOURCE} is on the
   * class path. JCuda reports both a missing resource and a missing libcuda.so.1 as one
   * UnsatisfiedLinkError whose message holds the nested errors of each way it tried loading;
   * the message decides first, as an earlier run's copy of the library in the temporary
   * directory can stand in for a missing resource. Later calls get a NoClassDefFoundError whose
   * cause repeats that message cut short (by the JVM, at about 2,000 characters of message and
   * stack traces), often before the part that says why: then the resource decides.
   */
  static GpuUnavailableReason classify(Throwable failure, boolean nativesOnClassPath) {
    String text = messages(failure);
    if (text.contains("CUDA_ERROR_NO_DEVICE") || text.contains("sees 0 CUDA device")) {
      return NO_CUDA_DEVICE;
    }
    if (text.contains("CUDA_ERROR_STUB_LIBRARY")) {
      return CUDA_DRIVER_MISSING; // a stub libcuda.so.1 (from the toolkit) stood in for the driver
    }
    if (!causedByLinkageError(failure)) {
      return OTHER;
    }
    if (text.contains("libcuda.so")) {
      return CUDA_DRIVER_MISSING;
    }
    if (text.contains("No resource found")) {
      return JCUDA_NATIVES_MISSING;
    }
    if (text.contains(END_OF_NESTED)) {
      return OTHER; // e.g. the extracted library could not be mapped (a noexec temporary directory)
    }
    return nativesOnClassPath ? CUDA_DRIVER_MISSING : JCUDA_NATIVES_MISSING;
  }

  /** Whether JCuda finds its driver-API binding on the class path (as JCuda itself looks it up). */
  public static boolean nativesOnClassPath() {
    return LibUtils.class.getResource("/" + DRIVER_BINDING_RESOURCE) != null;
  }

  private static boolean causedByLinkageError(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof LinkageError) {
        return true;
      }
    }
    return false;
  }

  private static String messages(Throwable failure) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      all.append(t.getMessage()).append('\n');
    }
    return all.toString();
  }

  /** The nested error of JCuda's loading its library from the class path, if the text has it. */
  private static String resourceError(String text) {
    List<String> lines = text.lines().toList();
    int at = lines.indexOf(AS_RESOURCE);
    return at >= 0 && at + 1 < lines.size() && !lines.get(at + 1).isBlank()
        ? lines.get(at + 1) : null;
  }

  private static String firstLine(Throwable failure) {
    return String.valueOf(failure.getMessage()).lines().findFirst().orElse("");
  }
}
