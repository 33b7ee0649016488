package io.gstm.core.engine;

/** The GPU engine was asked for explicitly, but no usable GPU, driver or kernel is present. */
public class GpuUnavailableException extends GstmException {
  private final GpuUnavailableReason reason;

  public GpuUnavailableException(String message, Throwable cause) {
    this(message, GpuUnavailableReason.OTHER, cause);
  }

  public GpuUnavailableException(String message, GpuUnavailableReason reason, Throwable cause) {
    super(message, cause);
    this.reason = reason;
  }

  /** Which cause kept the GPU from being used. */
  public GpuUnavailableReason reason() {
    return reason;
  }
}
