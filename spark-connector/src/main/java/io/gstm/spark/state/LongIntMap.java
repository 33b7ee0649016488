package io.gstm.spark.state;

import java.util.Arrays;

/**
 * An open-addressing map from long keys to non-negative int values (a partition's key to its
 * local row): two flat arrays, no boxing, linear probing, at most half full (it doubles as it
 * fills). Not thread-safe: lookups may run in parallel only while nothing changes it.
 */
final class LongIntMap {
  private static final int EMPTY = -1;
  private long[] keys;
  private int[] values;
  private int mask;
  private int size;

  LongIntMap(int expected) {
    allocate(Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1);
  }

  private void allocate(int cap) {
    keys = new long[cap];
    values = new int[cap];
    Arrays.fill(values, EMPTY);
    mask = cap - 1;
  }

  /** Maps {@code key} to {@code value} (non-negative); returns the previous value or -1. */
  int put(long key, int value) {
    int i = slot(key);
    while (values[i] != EMPTY) {
      if (keys[i] == key) {
        int old = values[i];
        values[i] = value;
        return old;
      }
      i = (i + 1) & mask;
    }
    keys[i] = key;
    values[i] = value;
    if (++size * 2 > keys.length) {
      grow();
    }
    return EMPTY;
  }

  /** The value of {@code key}, or -1. */
  int get(long key) {
    int i = slot(key);
    while (values[i] != EMPTY) {
      if (keys[i] == key) {
        return values[i];
      }
      i = (i + 1) & mask;
    }
    return EMPTY;
  }

  /** Removes {@code key}; returns its value or -1. */
  int remove(long key) {
    int i = slot(key);
    while (values[i] != EMPTY && keys[i] != key) {
      i = (i + 1) & mask;
    }
    if (values[i] == EMPTY) {
      return EMPTY;
    }
    int old = values[i];
    // Backward-shift deletion: move later entries of the probe run into the hole when their
    // home slot does not lie (cyclically) between the hole and them.
    int hole = i;
    for (int j = (i + 1) & mask; values[j] != EMPTY; j = (j + 1) & mask) {
      int home = slot(keys[j]);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
    }
    values[hole] = EMPTY;
    size--;
    return old;
  }

  int size() {
    return size;
  }

  private void grow() {
    long[] k = keys;
    int[] v = values;
    allocate(keys.length * 2);
    size = 0;
    for (int i = 0; i < k.length; i++) {
      if (v[i] != EMPTY) {
        put(k[i], v[i]);
      }
    }
  }

  private int slot(long key) {
    return (int) KeyPartitioner.mix(key) & mask;
  }
}
