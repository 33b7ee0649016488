package io.gstm.core.jvm;

import java.util.Arrays;

/**
 * A 4-ary min-heap of vertices keyed by a value (a distance or a label), one per relaxation
 * worker. Each entry is one long, the key as a float's bits above the vertex id: one array
 * and one comparison per step (a binary heap of separate key and vertex arrays made shortest
 * paths on an R-MAT partition half again as slow as label-correcting rounds). Rounding a key
 * to a float only blurs the order between nearly equal values, never what is computed: the
 * relaxation reads the current value of whatever it pops. A vertex may be in the heap several
 * times; the relaxation skips an entry whose vertex's value has since dropped below its key.
 * Keys must be non-negative (their float bits then order as the floats).
 */
final class VertexHeap {
  private long[] entries = new long[64];
  private int size;

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  void clear() {
    size = 0;
  }

  /** The entry of {@code vertex} with {@code key}. */
  static long entry(int vertex, double key) {
    return ((long) Float.floatToRawIntBits((float) key) << 32) | (vertex & 0xFFFFFFFFL);
  }

  /** The entry of the smallest key; only when not empty. */
  long peek() {
    return entries[0];
  }

  void push(int vertex, double key) {
    push(entry(vertex, key));
  }

  /** Adds an entry made by {@link #entry}. */
  void push(long e) {
    if (size == entries.length) {
      entries = Arrays.copyOf(entries, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long p = entries[parent];
      if (p <= e) {
        break;
      }
      entries[i] = p;
      i = parent;
    }
    entries[i] = e;
  }

  /**
   * Removes the entry of the smallest key and returns it: the vertex in the low 32 bits, the
   * key's float bits in the high ones. Only when not empty.
   */
  long pop() {
    long top = entries[0];
    size--;
    if (size > 0) {
      long e = entries[size];
      int i = 0;
      while (true) {
        int first = 4 * i + 1;
        if (first >= size) {
          break;
        }
        int best = first;
        long b = entries[first];
        int last = Math.min(size, first + 4);
        for (int c = first + 1; c < last; c++) {
          if (entries[c] < b) {
            b = entries[c];
            best = c;
          }
        }
        if (b >= e) {
          break;
        }
        entries[i] = b;
        i = best;
      }
      entries[i] = e;
    }
    return top;
  }
}
