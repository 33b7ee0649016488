package io.gstm.core.engine;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A backup for resources their owner never closed (device memory first of all): when an owner
 * becomes unreachable without having been closed, the tracker reports it and frees what it held.
 * Never a substitute for {@code close()}: the report names the leak so that it gets fixed. The
 * model is cudf's MemoryCleaner. With {@code -Dgstm.debug.leaks=true} a report also says where
 * the resource was created.
 */
public final class LeakTracker {
  private static final Logger LOG = Logger.getLogger(LeakTracker.class.getName());
  private static final Cleaner CLEANER = Cleaner.create(r -> {
    Thread t = new Thread(r, "gstm-leak-cleaner");
    t.setDaemon(true);
    return t;
  });
  private static final boolean STACKS = Boolean.getBoolean("gstm.debug.leaks");
  private static final AtomicLong LEAKS = new AtomicLong();

  private LeakTracker() {}

  /** A tracked resource: its owner closes the handle when it frees the resource itself. */
  public static final class Handle {
    private final Cleaner.Cleanable cleanable;
    private final State state;

    private Handle(Object owner, State state) {
      this.state = state;
      this.cleanable = CLEANER.register(owner, state);
    }

    /** The owner freed the resource: nothing is left to report or free. */
    public void close() {
      state.closed = true;
      cleanable.clean();
    }
  }

  private static final class State implements Runnable {
    private final String what;
    private final Runnable free;
    private final Throwable created;
    private volatile boolean closed;

    State(String what, Runnable free) {
      this.what = what;
      this.free = free;
      this.created = STACKS ? new Throwable("created here") : null;
    }

    @Override
    public void run() {
      if (closed) {
        return;
      }
      LEAKS.incrementAndGet();
      LOG.log(Level.WARNING, "gstm: " + what + " was never closed; freeing it now"
          + (created == null ? " (-Dgstm.debug.leaks=true says where it was created)" : ""),
          created);
      try {
        free.run();
      } catch (RuntimeException e) {
        LOG.log(Level.WARNING, "gstm: freeing the leaked " + what + " failed", e);
      }
    }
  }

  /**
   * Tracks {@code owner}: if {@code owner} becomes unreachable before the handle is closed, the
   * leak is reported and {@code free} runs, on the tracker's thread. {@code free} must not refer
   * to {@code owner} (that would keep it reachable).
   */
  public static Handle track(Object owner, String what, Runnable free) {
    return new Handle(owner, new State(what, free));
  }

  /** Resources freed by the tracker because their owner never closed them, since start. */
  public static long leaks() {
    return LEAKS.get();
  }
}
