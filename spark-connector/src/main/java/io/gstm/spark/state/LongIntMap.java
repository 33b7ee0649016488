package io.gstm.spark.state;

import java.util.Arrays;

/**
 * An open-addressing map from long keys to non-negative int values (a partition's key to its
 * dense local row): two flat arrays, no boxing. Not thread-safe; built once, then only read.
 */
final class LongIntMap {
  private static final int EMPTY = -1;
  private final long[] keys;
  private final int[] values;
  private final int mask;
  private int size;

  LongIntMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
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
    size++;
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

  int size() {
    return size;
  }

  private int slot(long key) {
    return (int) KeyPartitioner.mix(key) & mask;
  }
}
