package io.gstm.spark.state;

import java.io.Serializable;
import java.util.Arrays;

/**
 * An int per row, most of them 0, kept as the rows that have another (ascending) and their
 * values: an epoch of ten million transfers has a few hundred aborts, and an array per row was
 * 40 MB an epoch. Written a batch at a time ({@link #set}), read by row.
 */
final class RareInts implements Serializable {
  private static final long serialVersionUID = 1L;
  private int[] rows = new int[0];
  private int[] values = new int[0];

  /**
   * Adds rows {@code add} (ascending, none of them set before) with their values; rows whose
   * value is 0 are left out.
   */
  synchronized void set(int[] add, int[] with) {
    if (add.length != with.length) {
      throw new IllegalArgumentException(add.length + " rows and " + with.length + " values");
    }
    int k = 0;
    for (int v : with) {
      k += v != 0 ? 1 : 0;
    }
    if (k == 0) {
      return;
    }
    int[] r = new int[rows.length + k];
    int[] v = new int[r.length];
    int i = 0;
    int j = 0;
    int o = 0;
    while (i < rows.length || j < add.length) {
      if (j < add.length && with[j] == 0) {
        j++;
      } else if (j == add.length || i < rows.length && rows[i] < add[j]) {
        r[o] = rows[i];
        v[o++] = values[i++];
      } else {
        r[o] = add[j];
        v[o++] = with[j++];
      }
    }
    rows = r;
    values = v;
  }

  /** Row {@code i}'s value (0 unless set). */
  synchronized int get(int i) {
    int k = Arrays.binarySearch(rows, i);
    return k >= 0 ? values[k] : 0;
  }

  /**
   * A reader for one thread walking rows in ascending order (a chunk's outcome rows): a step
   * per row instead of a search, the rows as set when it was made.
   */
  synchronized Cursor cursor() {
    return new Cursor(rows, values);
  }

  /** See {@link #cursor()}. */
  static final class Cursor {
    private final int[] rows;
    private final int[] values;
    private int next;

    private Cursor(int[] rows, int[] values) {
      this.rows = rows;
      this.values = values;
    }

    /** Row {@code i}'s value; {@code i} not below the last row asked. */
    int at(int i) {
      while (next < rows.length && rows[next] < i) {
        next++;
      }
      return next < rows.length && rows[next] == i ? values[next] : 0;
    }
  }
}
