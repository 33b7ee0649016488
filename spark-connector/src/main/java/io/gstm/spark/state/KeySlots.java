package io.gstm.spark.state;

import java.util.Arrays;

/**
 * A partition's keys and the store rows ("slots") that hold them. A state of fixed keys holds
 * them in ascending order, a key's slot its rank ({@link KeyIndexes} picks the fastest lookup).
 * A state with inserts and deletes gives a slot to every key a transaction names, before the
 * batch runs: whether the key's row exists is the store's business ({@code exists}); a slot
 * whose row does not exist goes back to the free list when slots run short
 * ({@link #release}), and the store grows when they run out.
 */
final class KeySlots implements BatchRunner.KeyIndex {
  private final boolean growable;
  private final BatchRunner.KeyIndex fixed;
  private final LongIntMap map;
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
      map = new LongIntMap(sorted.length);
      for (int i = 0; i < sorted.length; i++) {
        map.put(sorted[i], i);
      }
      fixed = null;
      freeSlot = new boolean[sorted.length];
    } else {
      map = null;
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
    return growable ? map.get(key) : fixed.local(key);
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
    map.put(key, slot);
    return slot;
  }

  /** Frees {@code slot}, whose row does not exist (its words are zero). */
  void release(int slot) {
    map.remove(keyOf[slot]);
    freeSlot[slot] = true;
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = slot;
  }
}
