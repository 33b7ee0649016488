package io.gstm.core.engine;

import java.util.function.Function;

/**
 * Close on partial failure, the one way gstm writes it (spark-rapids' {@code closeOnExcept}):
 * setup that takes several GPU or native resources in turn hands what it holds so far to a body
 * that takes the next step. If the body throws anything, what it was given is closed, a failing
 * close is added to the original as suppressed, and the original is rethrown, so a half-built
 * owner leaks nothing and the first cause is the one reported. On success nothing is closed: the
 * caller owns the resources.
 */
public final class Resources {
  private Resources() {}

  /**
   * Runs {@code body} with {@code resource}; if it throws, closes {@code resource} (unless null)
   * and rethrows.
   *
   * @return what {@code body} returned
   */
  public static <R extends AutoCloseable, T> T closeOnExcept(R resource,
      Function<? super R, ? extends T> body) {
    try {
      return body.apply(resource);
    } catch (Throwable t) {
      closeSuppressed(resource, t);
      throw t;
    }
  }

  /**
   * Runs {@code body} with {@code resources}, which it may add to; if it throws, closes every
   * non-null resource the collection then holds, in order, and rethrows.
   *
   * @return what {@code body} returned
   */
  public static <C extends Iterable<? extends AutoCloseable>, T> T closeOnExcept(C resources,
      Function<? super C, ? extends T> body) {
    try {
      return body.apply(resources);
    } catch (Throwable t) {
      for (AutoCloseable r : resources) {
        closeSuppressed(r, t);
      }
      throw t;
    }
  }

  /**
   * Closes every non-null resource in order, even when some fail; then throws the first failure
   * with the others suppressed (a checked one wrapped in an IllegalStateException).
   */
  public static void closeAll(AutoCloseable... resources) {
    Throwable failure = null;
    for (AutoCloseable r : resources) {
      if (r == null) {
        continue;
      }
      try {
        r.close();
      } catch (Throwable e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure instanceof RuntimeException re) {
      throw re;
    }
    if (failure instanceof Error err) {
      throw err;
    }
    if (failure != null) {
      throw new IllegalStateException("closing: " + failure.getMessage(), failure);
    }
  }

  private static void closeSuppressed(AutoCloseable resource, Throwable primary) {
    if (resource == null) {
      return;
    }
    try {
      resource.close();
    } catch (Throwable e) {
      primary.addSuppressed(e);
    }
  }
}
