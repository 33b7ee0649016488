package io.gstm.core.cuda;

/**
 * A sticky CUDA error (an illegal address, a launch failure, ...): the device context is lost
 * and nothing on it works until the process restarts. Stores of this process are gone with it;
 * in Spark the task fails with this message and the executor should be restarted.
 */
public final class CudaFatalException extends GstmCudaException {
  /** Also raised by callers that learn of a lost context later (e.g. a Spark executor). */
  public CudaFatalException(String message, Throwable cause) {
    super(message, cause, true);
  }
}
