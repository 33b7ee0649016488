package io.gstm.core.cuda.ptx;

import io.gstm.core.engine.GstmException;

/** PTX that the text-level linker cannot read or inline; the caller falls back to the interpreter. */
public final class PtxException extends GstmException {
  public PtxException(String message) {
    super(message);
  }
}
