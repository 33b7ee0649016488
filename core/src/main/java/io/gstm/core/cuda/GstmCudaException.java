package io.gstm.core.cuda;

import io.gstm.core.engine.GstmException;

/** A CUDA driver error. {@link #fatal()} ones poison the context: the process must restart. */
public class GstmCudaException extends GstmException {
  private final boolean fatal;

  GstmCudaException(String message, Throwable cause, boolean fatal) {
    super(message, cause);
    this.fatal = fatal;
  }

  /** True for sticky errors (illegal address, launch failure, ...) after which nothing works. */
  public boolean fatal() {
    return fatal;
  }
}
