package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.Arrays;

/**
 * Which subgraph owns a vertex: where its out-edges go when the edges are placed by range, and
 * where an extra vertex id (the source, {@code setVertices}) goes. Either {@code id mod P} (the
 * edges stay where they were read) or ranges of ids ({@link EdgePlacement}): subgraph {@code q}
 * owns the ids in {@code [bounds[q - 1], bounds[q])}.
 */
@DefaultSerializer(JavaSerializer.class)
final class VertexPlacement implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int partitions;
  /** Ascending; null for {@code id mod P}. */
  private final int[] bounds;

  private VertexPlacement(int partitions, int[] bounds) {
    this.partitions = partitions;
    this.bounds = bounds;
  }

  /** {@code id mod partitions}. */
  static VertexPlacement modulo(int partitions) {
    return new VertexPlacement(partitions, null);
  }

  /** {@code bounds.length + 1} ranges split at the ascending {@code bounds}. */
  static VertexPlacement ranges(int[] bounds) {
    for (int i = 1; i < bounds.length; i++) {
      if (bounds[i] < bounds[i - 1]) {
        throw new IllegalArgumentException("bounds: not ascending at " + i);
      }
    }
    return new VertexPlacement(bounds.length + 1, bounds.clone());
  }

  int partitions() {
    return partitions;
  }

  boolean byRange() {
    return bounds != null;
  }

  /** The owner of vertex {@code v}, in {@code [0, partitions)}. */
  int owner(int v) {
    if (bounds == null) {
      return v % partitions;
    }
    int i = Arrays.binarySearch(bounds, v);
    if (i < 0) {
      return -i - 1;
    }
    // Equal bounds (an empty range): the last range that starts at v.
    while (i + 1 < bounds.length && bounds[i + 1] == v) {
      i++;
    }
    return i + 1;
  }

  @Override
  public String toString() {
    return bounds == null ? "id mod " + partitions : "ranges split at " + Arrays.toString(bounds);
  }
}
