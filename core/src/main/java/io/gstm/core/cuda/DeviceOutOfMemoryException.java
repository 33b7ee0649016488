package io.gstm.core.cuda;

/**
 * The device had too little free memory for a store or a batch. Recoverable: whatever the failed
 * call had allocated is freed again, existing stores are untouched, and the call can be retried
 * once memory is freed (or with a smaller store or batch).
 */
public final class DeviceOutOfMemoryException extends GstmCudaException {
  DeviceOutOfMemoryException(String message, Throwable cause) {
    super(message, cause, false);
  }
}
