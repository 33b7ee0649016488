package io.gstm.core.engine;

import static io.gstm.core.engine.GpuUnavailableReason.CUDA_DRIVER_MISSING;
import static io.gstm.core.engine.GpuUnavailableReason.JCUDA_NATIVES_MISSING;
import static io.gstm.core.engine.GpuUnavailableReason.NO_CUDA_DEVICE;
import static io.gstm.core.engine.GpuUnavailableReason.OTHER;
import static io.gstm.core.engine.GpuUnavailableReason.classify;
import static org.assertj.core.api.Assertions.assertThat;

import jcuda.CudaException;
import org.junit.jupiter.api.Test;

/** The set-up causes told apart from synthesized failures, worded as JCuda and CudaEngine do. */
class GpuUnavailableReasonTest {
  /** JCuda's UnsatisfiedLinkError: its message holds the nested errors of both ways it tried. */
  private static UnsatisfiedLinkError jcudaLinkError(String asResource) {
    return new UnsatisfiedLinkError("""
        Error while loading native library "JCudaDriver-12.0.0-linux-x86_64"
        Operating system name: Linux
        Architecture         : amd64
        Architecture bit size: 64
        ---(start of nested stack traces)---
        Stack trace from the attempt to load the library as a file:
        java.lang.UnsatisfiedLinkError: no JCudaDriver-12.0.0-linux-x86_64 in java.library.path: \
        /usr/java/packages/lib:/usr/lib64:/lib64:/lib:/usr/lib
        Stack trace from the attempt to load the library as a resource:
        """ + asResource + "\n---(end of nested stack traces)---\n");
  }

  private static final String NO_RESOURCE = "java.io.IOException: "
      + "No resource found with name '/lib/libJCudaDriver-12.0.0-linux-x86_64.so'";
  private static final String NO_LIBCUDA = "java.lang.UnsatisfiedLinkError: "
      + "/tmp/libJCudaDriver-12.0.0-linux-x86_64.so: libcuda.so.1: cannot open shared object file: "
      + "No such file or directory";
  private static final String NOEXEC = "java.lang.UnsatisfiedLinkError: "
      + "/tmp/libJCudaDriver-12.0.0-linux-x86_64.so: failed to map segment from shared object";

  /**
   * A later call: the class failed to initialize; the cause's message repeats the first error's,
   * cut short after {@code keep} characters.
   */
  private static NoClassDefFoundError later(UnsatisfiedLinkError first, int keep) {
    String message = "Exception " + first + " [in thread \"main\"]";
    NoClassDefFoundError e =
        new NoClassDefFoundError("Could not initialize class jcuda.driver.JCudaDriver");
    e.initCause(new ExceptionInInitializerError(message.substring(0, keep)));
    return e;
  }

  private static NoClassDefFoundError later(UnsatisfiedLinkError first) {
    return later(first, ("Exception " + first + " [in thread \"main\"]").length());
  }

  /** Cut short before the nested error of loading the resource, or inside it. */
  private static void cutShort(UnsatisfiedLinkError first, GpuUnavailableReason withNatives) {
    String full = "Exception " + first;
    for (String cutAt : new String[] {"Stack trace from the attempt to load the library as a",
        "/tmp/libJCudaDriver"}) {
      NoClassDefFoundError e = later(first, full.indexOf(cutAt) + cutAt.length());
      assertThat(classify(e, true)).as(cutAt).isEqualTo(withNatives);
      assertThat(classify(e, false)).as(cutAt).isEqualTo(JCUDA_NATIVES_MISSING);
    }
  }

  @Test
  void nativesMissingWhenJcudaFindsNoResource() {
    assertThat(classify(jcudaLinkError(NO_RESOURCE), true)).isEqualTo(JCUDA_NATIVES_MISSING);
    assertThat(classify(jcudaLinkError(NO_RESOURCE), false)).isEqualTo(JCUDA_NATIVES_MISSING);
    assertThat(classify(later(jcudaLinkError(NO_RESOURCE)), true))
        .isEqualTo(JCUDA_NATIVES_MISSING);
  }

  @Test
  void aLinkErrorThatSaysNothingLeavesItToTheResource() {
    NoClassDefFoundError bare =
        new NoClassDefFoundError("Could not initialize class jcuda.driver.JCudaDriver");
    assertThat(classify(bare, false)).isEqualTo(JCUDA_NATIVES_MISSING);
    assertThat(classify(bare, true)).isEqualTo(CUDA_DRIVER_MISSING);
  }

  @Test
  void aMessageCutShortLeavesItToTheResource() {
    cutShort(jcudaLinkError(NO_LIBCUDA), CUDA_DRIVER_MISSING);
    cutShort(jcudaLinkError(NOEXEC), CUDA_DRIVER_MISSING);
  }

  @Test
  void driverMissingWhenLibcudaCannotBeLoaded() {
    assertThat(classify(jcudaLinkError(NO_LIBCUDA), true)).isEqualTo(CUDA_DRIVER_MISSING);
    assertThat(classify(later(jcudaLinkError(NO_LIBCUDA)), true)).isEqualTo(CUDA_DRIVER_MISSING);
    // JCuda loads a copy an earlier run left in the temporary directory: the message decides
    assertThat(classify(jcudaLinkError(NO_LIBCUDA), false)).isEqualTo(CUDA_DRIVER_MISSING);
    GstmException stub = new GstmException("CUDA driver: CUDA_ERROR_STUB_LIBRARY",
        new CudaException("CUDA_ERROR_STUB_LIBRARY"));
    assertThat(classify(stub, true)).isEqualTo(CUDA_DRIVER_MISSING);
  }

  @Test
  void noDeviceFromCuInitOrACountOfZero() {
    GstmException noDevice = new GstmException("CUDA driver: CUDA_ERROR_NO_DEVICE",
        new CudaException("CUDA_ERROR_NO_DEVICE"));
    assertThat(classify(noDevice, true)).isEqualTo(NO_CUDA_DEVICE);
    assertThat(classify(new GstmException(
        "device 0 does not exist: the driver sees 0 CUDA device(s)"), true))
        .isEqualTo(NO_CUDA_DEVICE);
  }

  @Test
  void everythingElseIsOtherAndKeepsItsMessage() {
    GstmException badOrdinal =
        new GstmException("device 3 does not exist: the driver sees 2 CUDA device(s)");
    assertThat(classify(badOrdinal, true)).isEqualTo(OTHER);
    assertThat(OTHER.describe(badOrdinal)).isEqualTo(badOrdinal.getMessage());
    GstmException noKernels =
        new GstmException("the kernels jar holds no kernels (built without nvcc, or with "
            + "GSTM_KERNEL_ARCHS=none)");
    assertThat(classify(noKernels, false)).isEqualTo(OTHER);
    UnsatisfiedLinkError noexec = jcudaLinkError(NOEXEC);
    assertThat(classify(noexec, true)).isEqualTo(OTHER);
    assertThat(OTHER.describe(noexec)).contains("failed to map segment");
  }

  @Test
  void eachMessageNamesItsCauseAndFix() {
    assertThat(JCUDA_NATIVES_MISSING.describe(jcudaLinkError(NO_RESOURCE)))
        .startsWith("JCuda natives missing: ")
        .contains("lib/libJCudaDriver-12.0.0-linux-x86_64.so")
        .contains("add jcuda-natives-12.0.0-linux-x86_64.jar");
    assertThat(CUDA_DRIVER_MISSING.describe(jcudaLinkError(NO_LIBCUDA)))
        .startsWith("CUDA driver missing: ").contains("libcuda.so.1")
        .contains("install the NVIDIA driver");
    assertThat(NO_CUDA_DEVICE.describe(new GstmException("CUDA driver: CUDA_ERROR_NO_DEVICE")))
        .startsWith("no CUDA device: ").contains("CUDA_ERROR_NO_DEVICE")
        .contains("CUDA_VISIBLE_DEVICES");
  }

  @Test
  void theNativesAreOnTheTestClassPath() {
    assertThat(GpuUnavailableReason.NATIVES_JAR).isEqualTo("jcuda-natives-12.0.0-linux-x86_64.jar");
    assertThat(GpuUnavailableReason.nativesOnClassPath()).isTrue();
  }
}
