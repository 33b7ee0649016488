package io.gstm.core.engine;

/** The GPU engine was asked for explicitly, but no usable GPU, driver or kernel is present. */
public class GpuUnavailableException extends GstmException {
  public GpuUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
