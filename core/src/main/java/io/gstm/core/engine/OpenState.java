package io.gstm.core.engine;

/**
 * Whether an owner of resources (engine, store, updater, device buffers) is still open, the one
 * way gstm writes it: use after close is an IllegalStateException "{@code <what>} is closed", and
 * so is a second close ("{@code <what>} already closed"), so that a use after free or a double
 * free is reported, never done. Not thread-safe, as its owners are not.
 */
public final class OpenState {
  private final String what;
  private boolean closed;

  /** {@code what} names the owner in the errors: "store", "engine", "k-means updater". */
  public OpenState(String what) {
    this.what = what;
  }

  /** Throws once closed. */
  public void check() {
    if (closed) {
      throw new IllegalStateException(what + " is closed");
    }
  }

  /** Marks the owner closed (it then frees what it holds); throws if it already was. */
  public void close() {
    if (closed) {
      throw new IllegalStateException(what + " already closed");
    }
    closed = true;
  }
}
