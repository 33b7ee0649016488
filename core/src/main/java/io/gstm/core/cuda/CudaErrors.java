package io.gstm.core.cuda;

import jcuda.CudaException;

/** Wraps JCuda's exceptions into gstm's, separating sticky (fatal) errors from recoverable ones. */
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
    boolean fatal = isSticky(e.getMessage());
    String suffix = fatal ? " (sticky error: the CUDA context is lost; restart the process)" : "";
    return new GstmCudaException(what + ": " + e.getMessage() + suffix, e, fatal);
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
