package io.gstm.spark.state;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Each slot's key, and for a growable state whether the slot is free: the slots a partition was
 * created with in the creation's own sorted array, the slots added since in pages of {@value
 * #PAGE}. Room for more slots copies nothing: a flat array grown by half past its length copied
 * and zeroed 100-200 MB on one thread, 50 ms in the epoch whose new keys crossed it (an H200
 * node's inserts benchmark, ten million keys and one million new ones an epoch).
 */
final class SlotKeys {
  static final int PAGE_BITS = 16;
  static final int PAGE = 1 << PAGE_BITS;
  /** Pages made at once from which {@link #reserve} makes them on all cores. */
  private static final int PARALLEL_PAGES = 8;

  private final long[] first;
  /** Null for a fixed state (no slot is ever free). */
  private final boolean[] firstFree;
  private long[][] keyPages = new long[0][];
  private boolean[][] freePages = new boolean[0][];

  /** Slots 0.. of {@code keys} (kept, not copied); {@code growable} tracks free slots. */
  SlotKeys(long[] keys, boolean growable) {
    this.first = keys;
    this.firstFree = growable ? new boolean[keys.length] : null;
  }

  /** The key in {@code slot} (below {@link #capacity}). */
  long get(int slot) {
    if (slot < first.length) {
      return first[slot];
    }
    int d = slot - first.length;
    return keyPages[d >>> PAGE_BITS][d & (PAGE - 1)];
  }

  /** Whether {@code slot} was freed (never, for a fixed state). */
  boolean isFree(int slot) {
    if (firstFree == null) {
      return false;
    }
    if (slot < first.length) {
      return firstFree[slot];
    }
    int d = slot - first.length;
    return freePages[d >>> PAGE_BITS][d & (PAGE - 1)];
  }

  /** Puts {@code key} in {@code slot}, in use; room for it is made first if there is none. */
  void set(int slot, long key) {
    if (slot < first.length) {
      first[slot] = key;
      if (firstFree != null) {
        firstFree[slot] = false;
      }
      return;
    }
    reserve(slot + 1);
    int d = slot - first.length;
    keyPages[d >>> PAGE_BITS][d & (PAGE - 1)] = key;
    freePages[d >>> PAGE_BITS][d & (PAGE - 1)] = false;
  }

  /** Marks {@code slot} (growable) free. */
  void free(int slot) {
    if (slot < first.length) {
      firstFree[slot] = true;
    } else {
      int d = slot - first.length;
      freePages[d >>> PAGE_BITS][d & (PAGE - 1)] = true;
    }
  }

  /** Slots that {@link #set} can write without making a page. */
  long capacity() {
    return first.length + ((long) keyPages.length << PAGE_BITS);
  }

  /** Room for slots 0..{@code slots - 1}: the missing pages made, on all cores when many. */
  void reserve(int slots) {
    long beyond = (long) slots - first.length;
    if (beyond <= (long) keyPages.length << PAGE_BITS) {
      return;
    }
    int had = keyPages.length;
    int pages = (int) ((beyond + PAGE - 1) >>> PAGE_BITS);
    keyPages = Arrays.copyOf(keyPages, pages);
    freePages = Arrays.copyOf(freePages, pages);
    IntStream made = IntStream.range(had, pages);
    (pages - had >= PARALLEL_PAGES ? made.parallel() : made).forEach(p -> {
      keyPages[p] = new long[PAGE];
      freePages[p] = new boolean[PAGE];
    });
  }
}
