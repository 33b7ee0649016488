package io.gstm.core.engine;

/** An engine failure that is not the caller's bad input (that is IllegalArgumentException). */
public class GstmException extends RuntimeException {
  public GstmException(String message) {
    super(message);
  }

  public GstmException(String message, Throwable cause) {
    super(message, cause);
  }
}
