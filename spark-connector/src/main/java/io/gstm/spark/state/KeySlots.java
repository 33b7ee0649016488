package io.gstm.spark.state;

import java.util.Arrays;

/**
 * A partition's keys and the store rows ("slots") that hold them. A state of fixed keys holds
 * them in ascending order, a key's slot its rank ({@link KeyIndexes} picks the fastest lookup).
 * A state with inserts and deletes gives a slot to every key a transaction names, before the
 * batch runs: whether the key's row exists is the store's business ({@code exists}); a slot
 * whose row does not exist goes back to the free list when slots run short
 * ({@link #release}), and the store grows when they run out. Keys created as a run of
 * consecutive ids keep their rank as their slot for good: finding one of those takes no memory
 * access at all (a batch of ten million transfers looks up twenty million keys). Other keys are
 * found in a direct table over their range while it stays within {@value
 * KeyIndexes#DENSE_SPREAD} times the keys held ({@link PagedTable}; ids handed out in order, as
 * new customers get them: one memory access per key), and in an open-addressing map from the
 * first key that spreads them further.
 */
final class KeySlots implements BatchRunner.KeyIndex {
  private final boolean growable;
  private final BatchRunner.KeyIndex fixed;
  /** Growable: key to slot while dense; null once the keys spread. */
  private PagedTable table;
  /** The least and greatest key the table was given (its own range has room beyond). */
  private long keyLo;
  private long keyHi;
  /**
   * Growable: keys {@code runBase + i}, {@code i < run}, are in slot {@code i} (created so), for
   * good: these slots are never released.
   */
  private long runBase;
  private int run;
  private LongIntMap map;
  /** Slot to key; the slots below {@code limit} hold a key unless free. */
  private final SlotKeys keyOf;
  private int limit;
  private int[] free = new int[16];
  private int freeCount;

  private KeySlots(long[] sorted, boolean growable) {
    this.growable = growable;
    this.keyOf = new SlotKeys(sorted, growable);
    this.limit = sorted.length;
    if (growable) {
      fixed = null;
      int n = sorted.length;
      while (run < n && sorted[run] == sorted[0] + run) {
        run++;
      }
      runBase = n == 0 ? 0 : sorted[0];
      if (n == 0 || !dense(sorted[0], sorted[n - 1], n)) {
        toMap();
      } else {
        table = new PagedTable(sorted[0], sorted[n - 1]);
        keyLo = sorted[0];
        keyHi = sorted[n - 1];
        for (int i = 0; i < n; i++) {
          table.put(sorted[i], i);
        }
      }
    } else {
      fixed = KeyIndexes.of(sorted);
    }
  }

  /** The keys {@code sorted} (ascending, distinct) in slots 0, 1, ...; fixed or growable. */
  static KeySlots of(long[] sorted, boolean growable) {
    return new KeySlots(sorted, growable);
  }

  boolean growable() {
    return growable;
  }

  @Override
  public int local(long key) {
    if (!growable) {
      return fixed.local(key);
    }
    long r = key - runBase;
    if (r >= 0 && r < run) {
      return (int) r;
    }
    return table != null ? table.get(key) : map.get(key);
  }

  /**
   * Room for {@code more} keys from {@code lo} to {@code hi} before they are added one by one
   * ({@link #add}): the table widened once to cover them (or the map taken, if they spread the
   * keys too far), the slots' pages made once, instead of one at a time as the keys come.
   */
  void reserve(int more, long lo, long hi) {
    if (!growable || more <= 0) {
      return;
    }
    keyOf.reserve((int) Math.min(Integer.MAX_VALUE - 8, (long) limit + more));
    if (table != null) {
      if (dense(Math.min(keyLo, lo), Math.max(keyHi, hi), (long) count() + more)) {
        table.cover(lo, hi);
        if (more >= 64 * (((hi - lo) >>> PagedTable.PAGE_BITS) + 1)) {
          table.allocate(lo, hi); // pages filled well enough to make them all now, side by side
        }
        keyLo = Math.min(keyLo, lo);
        keyHi = Math.max(keyHi, hi);
      } else {
        toMap();
      }
    }
  }

  /** Pages of the direct table made (for tests), or -1 once the keys are in a map. */
  int tablePages() {
    return table == null ? -1 : table.pagesMade();
  }

  /** Whether keys from {@code lo} to {@code hi} ({@code n} of them) fit a direct table. */
  private static boolean dense(long lo, long hi, long n) {
    long span = hi - lo + 1;
    return span > 0 && span <= (long) KeyIndexes.DENSE_SPREAD * n
        && span < Integer.MAX_VALUE - 8;
  }

  /** The lookup as a map, from the slots' keys. */
  private void toMap() {
    map = new LongIntMap(Math.max(16, count()));
    for (int i = 0; i < limit; i++) {
      if (holds(i)) {
        map.put(keyOf.get(i), i);
      }
    }
    table = null;
  }

  /** Records {@code key} in {@code slot}: in the table (widened), or the map. */
  private void index(long key, int slot) {
    if (table != null) {
      if (key < keyLo || key > keyHi) {
        if (!dense(Math.min(keyLo, key), Math.max(keyHi, key), count() + 1L)) {
          toMap();
          map.put(key, slot);
          return;
        }
        table.cover(key, key);
        keyLo = Math.min(keyLo, key);
        keyHi = Math.max(keyHi, key);
      }
      table.put(key, slot);
      return;
    }
    map.put(key, slot);
  }

  /**
   * Ends the run of ids found by arithmetic: they are found as the other keys are (the table or
   * the map holds every key from the start) and their slots can be released. Returns whether
   * there was a run.
   */
  boolean dissolveRun() {
    boolean had = run > 0;
    run = 0;
    return had;
  }

  /** Keys held. */
  int count() {
    return limit - freeCount;
  }

  /** Slots in use or free below it: the store needs at least this many rows. */
  int limit() {
    return limit;
  }

  /** The key in {@code slot}, which must hold one ({@link #holds}). */
  long keyAt(int slot) {
    return keyOf.get(slot);
  }

  boolean holds(int slot) {
    return slot < limit && !keyOf.isFree(slot);
  }

  /** Slots a batch can take without going past {@code capacity} rows. */
  int available(int capacity) {
    return freeCount + capacity - limit;
  }

  /** A slot for {@code key} (not held yet): a free one, else the next; the caller has room. */
  int add(long key) {
    int slot;
    if (freeCount > 0) {
      slot = free[--freeCount];
    } else {
      slot = limit++;
    }
    keyOf.set(slot, key); // in use again, or in a new page when past the last
    index(key, slot);
    return slot;
  }

  /**
   * Frees {@code slot}, whose row does not exist (its words are zero); returns false, keeping
   * it, for a slot of the run of ids the state was created with. That row stays its id's (empty
   * until the id is inserted again): finding an id of the run is then arithmetic alone, where a
   * check of which ids left, a bit each, made every lookup of ten million a cache miss. At the
   * state's row limit the run is given up ({@link #dissolveRun}) and its rows can go too.
   */
  boolean release(int slot) {
    if (slot < run) {
      return false;
    }
    if (table != null) {
      table.remove(keyOf.get(slot));
    } else {
      map.remove(keyOf.get(slot));
    }
    keyOf.free(slot);
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = slot;
    return true;
  }
}
