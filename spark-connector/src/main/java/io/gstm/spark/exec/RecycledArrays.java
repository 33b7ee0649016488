package io.gstm.spark.exec;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * Large arrays an executor's epochs use and drop, kept for the next epoch instead of the
 * collector: an epoch of ten million transactions made about 600 MB of arrays (its routed
 * columns, its batch's key columns), every one of them large enough for G1 to allocate apart,
 * and the collections and the fresh memory's zeroing that came with them stretched some epochs
 * by tens of milliseconds. An array comes back with what it held: the taker writes every element
 * it reads. Softly held, so that the collector can still take them when memory runs short.
 */
public final class RecycledArrays {
  /**
   * Arrays below this many elements are not kept by default: the collector handles them well
   * (an epoch's routed rows come in segments of this many).
   */
  public static final int MIN_ELEMENTS = 1 << 18;
  /** Arrays handed out again (for tests and logs). */
  public static final java.util.concurrent.atomic.AtomicLong REUSED =
      new java.util.concurrent.atomic.AtomicLong();
  private static volatile int minElements = MIN_ELEMENTS;
  /**
   * Bytes kept per kind, at most (an epoch of ten million rows routed in segments gives back a
   * few hundred arrays, about 700 MB; arrays of a size no epoch asks again, a store's as it
   * grows, go first), and arrays per kind (a taker looks through them).
   */
  private static final long KEPT_BYTES = Runtime.getRuntime().maxMemory() / 32;
  private static final int KEPT = 256;

  private static final Deque<SoftReference<long[]>> LONGS = new ArrayDeque<>();
  private static final Deque<SoftReference<int[]>> INTS = new ArrayDeque<>();
  private static final Deque<SoftReference<byte[]>> BYTES = new ArrayDeque<>();

  private RecycledArrays() {}

  /**
   * Keeps arrays from {@code elements} elements on (tests recycle small ones); returns the
   * former bound.
   */
  public static int keepFrom(int elements) {
    int was = minElements;
    minElements = Math.max(1, elements);
    return was;
  }

  /** Whether arrays of {@code n} elements are kept (smaller ones are left to the collector). */
  public static boolean keeps(int n) {
    return n >= minElements;
  }

  /** An array of exactly {@code n} longs, of undefined contents. */
  public static long[] longs(int n) {
    long[] a = keptLongs(n);
    return a != null ? a : new long[n];
  }

  /** An array of exactly {@code n} ints, of undefined contents. */
  public static int[] ints(int n) {
    int[] a = keptInts(n);
    return a != null ? a : new int[n];
  }

  /** An array of exactly {@code n} bytes, of undefined contents. */
  public static byte[] bytes(int n) {
    byte[] a = keptBytes(n);
    return a != null ? a : new byte[n];
  }

  /** A kept array of exactly {@code n} longs, or null when none is kept (nothing allocated). */
  public static long[] keptLongs(int n) {
    return n < minElements ? null : take(LONGS, n, x -> x.length);
  }

  /** See {@link #keptLongs}. */
  public static int[] keptInts(int n) {
    return n < minElements ? null : take(INTS, n, x -> x.length);
  }

  /** See {@link #keptLongs}. */
  public static byte[] keptBytes(int n) {
    return n < minElements ? null : take(BYTES, n, x -> x.length);
  }

  /** Keeps {@code a} for a later taker; the caller must hold no other reference it uses. */
  public static void give(long[] a) {
    put(LONGS, a, a == null ? 0 : a.length, 8);
  }

  /** See {@link #give(long[])}. */
  public static void give(int[] a) {
    put(INTS, a, a == null ? 0 : a.length, 4);
  }

  /** See {@link #give(long[])}. */
  public static void give(byte[] a) {
    put(BYTES, a, a == null ? 0 : a.length, 1);
  }

  private interface Length<T> {
    int of(T array);
  }

  private static <T> T take(Deque<SoftReference<T>> kept, int n, Length<T> length) {
    synchronized (kept) {
      for (Iterator<SoftReference<T>> it = kept.iterator(); it.hasNext(); ) {
        T a = it.next().get();
        if (a == null) {
          it.remove();
        } else if (length.of(a) == n) {
          it.remove();
          REUSED.incrementAndGet();
          return a;
        }
      }
    }
    return null;
  }

  private static <T> void put(Deque<SoftReference<T>> kept, T a, int n, int bytesEach) {
    if (a == null || n < minElements) {
      return;
    }
    synchronized (kept) {
      long bytes = (long) n * bytesEach;
      for (Iterator<SoftReference<T>> it = kept.iterator(); it.hasNext(); ) {
        T k = it.next().get();
        if (k == null) {
          it.remove();
        } else if (k == a) {
          throw new IllegalStateException("an array given back twice");
        } else {
          bytes += (long) java.lang.reflect.Array.getLength(k) * bytesEach;
        }
      }
      // The oldest go first when the kind holds too many.
      while (!kept.isEmpty() && (kept.size() >= KEPT || bytes > KEPT_BYTES)) {
        T old = kept.removeFirst().get();
        bytes -= old == null ? 0 : (long) java.lang.reflect.Array.getLength(old) * bytesEach;
      }
      kept.addLast(new SoftReference<>(a));
    }
  }
}
