package io.gstm.core.jvm;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The words an attempt has read, with the value each showed: a second read of a word returns the
 * logged value (Cederman's local copy of an object; GPU-STM's repeatable reads), and GPU-STM's
 * value-based validation compares the logged values with the store.
 */
final class ReadLog {
  private final int[] region;
  private final int[] index;
  private final int[] lock;
  private final long[] value;
  private int size;

  ReadLog(int capacity) {
    this.region = new int[capacity];
    this.index = new int[capacity];
    this.lock = new int[capacity];
    this.value = new long[capacity];
  }

  void clear() {
    size = 0;
  }

  /** The entry of word {@code index} of {@code region}, or -1. */
  int find(int r, int i) {
    for (int e = 0; e < size; e++) {
      if (region[e] == r && index[e] == i) {
        return e;
      }
    }
    return -1;
  }

  long value(int entry) {
    return value[entry];
  }

  boolean full() {
    return size == region.length;
  }

  /** Logs a word read under {@code l} (the caller checked {@link #full()}). */
  void add(int r, int i, int l, long v) {
    region[size] = r;
    index[size] = i;
    lock[size] = l;
    value[size] = v;
    size++;
  }

  /** Every word logged under lock {@code l} still holds the value read. */
  boolean valuesHold(int l, AtomicLongArray[] data) {
    for (int e = 0; e < size; e++) {
      if (lock[e] == l && data[region[e]].get(index[e]) != value[e]) {
        return false;
      }
    }
    return true;
  }
}
