package io.gstm.core.jvm;

import java.util.Arrays;

/**
 * A binary min-heap of vertices keyed by a value (a distance or a label), one per relaxation
 * worker. A vertex may be in it several times with different keys; the relaxation skips the
 * entries whose vertex it has already scanned from an equal or lower value.
 */
final class VertexHeap {
  private double[] keys = new double[64];
  private int[] vertices = new int[64];
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

  /** The smallest key; only when not empty. */
  double minKey() {
    return keys[0];
  }

  void push(int vertex, double key) {
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      vertices = Arrays.copyOf(vertices, size * 2);
    }
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (keys[parent] <= key) {
        break;
      }
      keys[i] = keys[parent];
      vertices[i] = vertices[parent];
      i = parent;
    }
    keys[i] = key;
    vertices[i] = vertex;
  }

  /** Removes and returns the vertex of the smallest key; only when not empty. */
  int pop() {
    int top = vertices[0];
    size--;
    if (size > 0) {
      double key = keys[size];
      int vertex = vertices[size];
      int i = 0;
      while (true) {
        int child = 2 * i + 1;
        if (child >= size) {
          break;
        }
        if (child + 1 < size && keys[child + 1] < keys[child]) {
          child++;
        }
        if (keys[child] >= key) {
          break;
        }
        keys[i] = keys[child];
        vertices[i] = vertices[child];
        i = child;
      }
      keys[i] = key;
      vertices[i] = vertex;
    }
    return top;
  }
}
