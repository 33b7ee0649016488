package io.gstm.spark.state;

import java.util.stream.IntStream;

/**
 * A direct table from long keys in a range to non-negative ints, in pages of {@value #PAGE}
 * entries made when a key first lands in them. Widening the range copies only the small page
 * directory: a flat table over ids handed out in order doubled now and then, and the copy of
 * hundreds of MB (on one thread) held up the epoch that widened it.
 */
final class PagedTable {
  static final int PAGE_BITS = 16;
  static final int PAGE = 1 << PAGE_BITS;
  /** Key of entry 0 of page 0; a page's entries hold value + 1 (0: none). */
  private long base;
  private int[][] pages;

  /** A table covering at least {@code lo}..{@code hi}. */
  PagedTable(long lo, long hi) {
    base = lo;
    pages = new int[pagesFor(hi - lo + 1)][];
  }

  private static int pagesFor(long span) {
    long p = (span + PAGE - 1) >>> PAGE_BITS;
    if (p > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("a key range of " + span + " is too wide for a table");
    }
    return (int) Math.max(1, p);
  }

  /** First key covered. */
  long from() {
    return base;
  }

  /** Last key covered. */
  long to() {
    return base + ((long) pages.length << PAGE_BITS) - 1;
  }

  /** The value of {@code key}, or -1. */
  int get(long key) {
    long d = key - base;
    if (d < 0 || (d >>> PAGE_BITS) >= pages.length) {
      return -1;
    }
    int[] p = pages[(int) (d >>> PAGE_BITS)];
    return p == null ? -1 : p[(int) d & (PAGE - 1)] - 1;
  }

  /** Maps {@code key} (covered: {@link #cover}) to {@code value} (non-negative). */
  void put(long key, int value) {
    long d = key - base;
    int at = (int) (d >>> PAGE_BITS);
    int[] p = pages[at];
    if (p == null) {
      p = pages[at] = new int[PAGE];
    }
    p[(int) d & (PAGE - 1)] = value + 1;
  }

  /** Unmaps {@code key} (covered). */
  void remove(long key) {
    long d = key - base;
    int[] p = pages[(int) (d >>> PAGE_BITS)];
    if (p != null) {
      p[(int) d & (PAGE - 1)] = 0;
    }
  }

  /**
   * Covers {@code lo}..{@code hi} too: the directory grows by at least its length, the room
   * beyond what is needed on the side that needed it (keys handed out in order widen it once
   * per doubling).
   */
  void cover(long lo, long hi) {
    if (lo >= base && hi <= to()) {
      return;
    }
    int below = lo < base ? pagesFor(base - lo) : 0;
    int above = hi > to() ? pagesFor(hi - to()) : 0;
    int grow = (int) Math.min(Integer.MAX_VALUE - 8L - pages.length,
        Math.max((long) below + above, pages.length));
    if (above == 0) {
      below = grow;
    } else {
      above = grow - below;
    }
    int[][] d = new int[pages.length + below + above][];
    System.arraycopy(pages, 0, d, below, pages.length); // pages keep their alignment
    pages = d;
    base -= (long) below << PAGE_BITS;
  }

  /** Makes the pages of {@code lo}..{@code hi} (covered) now, on all cores. */
  void allocate(long lo, long hi) {
    int first = (int) ((lo - base) >>> PAGE_BITS);
    int last = (int) ((hi - base) >>> PAGE_BITS);
    IntStream r = IntStream.rangeClosed(first, last);
    (last - first >= 8 ? r.parallel() : r).forEach(at -> {
      if (pages[at] == null) {
        pages[at] = new int[PAGE];
      }
    });
  }

  /** Pages made so far (for tests: the memory the table holds). */
  int pagesMade() {
    int c = 0;
    for (int[] p : pages) {
      c += p == null ? 0 : 1;
    }
    return c;
  }
}
