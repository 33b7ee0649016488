package io.gstm.spark.state;

import java.util.Arrays;

/**
 * A partition's keys and the store rows ("slots") that hold them. A state of fixed keys holds
 * them in ascending order, a key's slot its rank ({@link KeyIndexes} picks the fastest lookup).
 * A state with inserts and deletes gives a slot to every key a transaction names, before the
 * batch runs: whether the key's row exists is the store's business ({@code exists}); a slot
 * whose row does not exist goes back to the free list when slots run short
 * ({@link #release}), and the store grows when they run out. Its lookup is a direct table over
 * the keys' range while that range stays within {@value KeyIndexes#DENSE_SPREAD} times the keys
 * held (ids handed out in order, as new customers get them: one memory access per key), and an
 * open-addressing map from the first key that spreads them further.
 */
final class KeySlots implements BatchRunner.KeyIndex {
  private final boolean growable;
  private final BatchRunner.KeyIndex fixed;
  /** Growable: key - base to slot (-1: none) while dense; null once the keys spread. */
  private int[] table;
  private long base;
  private LongIntMap map;
  /** Slot to key; the slots below {@code limit} hold a key unless free. */
  private long[] keyOf;
  private boolean[] freeSlot;
  private int limit;
  private int[] free = new int[16];
  private int freeCount;

  private KeySlots(long[] sorted, boolean growable) {
    this.growable = growable;
    this.keyOf = sorted;
    this.limit = sorted.length;
    if (growable) {
      fixed = null;
      freeSlot = new boolean[sorted.length];
      int n = sorted.length;
      if (n == 0 || !dense(sorted[0], sorted[n - 1], n)) {
        toMap();
      } else {
        base = sorted[0];
        table = new int[(int) (sorted[n - 1] - base + 1)];
        Arrays.fill(table, -1);
        for (int i = 0; i < n; i++) {
          table[(int) (sorted[i] - base)] = i;
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
    if (table != null) {
      long d = key - base;
      return d >= 0 && d < table.length ? table[(int) d] : -1;
    }
    return map.get(key);
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
        map.put(keyOf[i], i);
      }
    }
    table = null;
  }

  /** Records {@code key} in {@code slot}: in the table (widened), or the map. */
  private void index(long key, int slot) {
    if (table != null) {
      long d = key - base;
      if (d < 0 || d >= table.length) {
        long lo = Math.min(base, key);
        long hi = Math.max(base + table.length - 1, key);
        if (!dense(lo, hi, count() + 1L)) {
          toMap();
          map.put(key, slot);
          return;
        }
        // Doubled toward the side the key came from (ids handed out in order widen it once
        // per doubling); dense, so the table stays within twice the spread allowed.
        long span = hi - lo + 1;
        long grown = Math.min(Integer.MAX_VALUE - 9, Math.max(span, 2L * table.length));
        long newBase = key < base ? hi - grown + 1 : lo;
        int[] t = new int[(int) grown];
        Arrays.fill(t, -1);
        System.arraycopy(table, 0, t, (int) (base - newBase), table.length);
        table = t;
        base = newBase;
        d = key - base;
      }
      table[(int) d] = slot;
      return;
    }
    map.put(key, slot);
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
    return keyOf[slot];
  }

  boolean holds(int slot) {
    return slot < limit && (freeSlot == null || !freeSlot[slot]);
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
      freeSlot[slot] = false;
    } else {
      slot = limit++;
      if (slot == keyOf.length) {
        keyOf = Arrays.copyOf(keyOf, Math.max(16, slot * 2));
        freeSlot = Arrays.copyOf(freeSlot, keyOf.length);
      }
    }
    keyOf[slot] = key;
    index(key, slot);
    return slot;
  }

  /** Frees {@code slot}, whose row does not exist (its words are zero). */
  void release(int slot) {
    if (table != null) {
      table[(int) (keyOf[slot] - base)] = -1;
    } else {
      map.remove(keyOf[slot]);
    }
    freeSlot[slot] = true;
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = slot;
  }
}
