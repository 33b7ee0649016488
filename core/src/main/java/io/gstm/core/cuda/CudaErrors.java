package io.gstm.core.cuda;

import jcuda.CudaException;

/**
 * Wraps JCuda's exceptions into gstm's: {@link CudaFatalException} for sticky errors,
 * {@link DeviceOutOfMemoryException} for allocations that did not fit, and a recoverable
 * {@link GstmCudaException} for the rest. JCuda reports a driver error only by its name
 * (CUDA_ERROR_...), so the name decides.
 */
final class CudaErrors {
  /** Errors after which the context is unusable until the process restarts. */
  private static final String[] STICKY = {
    "ILLEGAL_ADDRESS", "LAUNCH_FAILED", "HARDWARE_STACK_ERROR", "ILLEGAL_INSTRUCTION",
    "MISALIGNED_ADDRESS", "INVALID_ADDRESS_SPACE", "INVALID_PC", "ASSERT", "ECC_UNCORRECTABLE",
    "LAUNCH_TIMEOUT", "CONTEXT_IS_DESTROYED"
  };

  private CudaErrors() {}

  static boolean isSticky(String message) {
    if (message == null) {
      return false;
    }
    for (String s : STICKY) {
      if (message.contains(s)) {
        return true;
      }
    }
    return false;
  }

  static GstmCudaException wrap(String what, CudaException e) {
    String message = what + ": " + e.getMessage();
    if (isSticky(e.getMessage())) {
      return new CudaFatalException(
          message + " (sticky error: the CUDA context is lost; restart the process)", e);
    }
    if (e.getMessage() != null && e.getMessage().contains("CUDA_ERROR_OUT_OF_MEMORY")) {
      return new DeviceOutOfMemoryException(message, e);
    }
    return new GstmCudaException(message, e, false);
  }

  /** Runs a driver call, wrapping its exception with what was being done. */
  static void call(String what, Runnable call) {
    try {
      call.run();
    } catch (CudaException e) {
      throw wrap(what, e);
    }
  }
}
