package io.gstm.spark.graph;

import java.io.Serializable;
import org.roaringbitmap.RoaringBitmap;

/**
 * Where each vertex of a vertex cut lives: per partition, the set of global ids its subgraph
 * holds (compressed bitmaps, collected once after the build and broadcast). A partition sends a
 * vertex's improved value to every other partition that holds it; the lowest partition that holds
 * a vertex reports its value.
 */
final class Replicas implements Serializable {
  private static final long serialVersionUID = 1L;

  private final RoaringBitmap[] held;

  /** {@code held[q]}: the global ids partition {@code q} holds. */
  Replicas(RoaringBitmap[] held) {
    this.held = held;
  }

  /** The global ids of {@code g}, as {@link #Replicas} takes them. */
  static RoaringBitmap idsOf(LocalGraph g) {
    RoaringBitmap b = RoaringBitmap.bitmapOf(g.sortedGlobalIds());
    b.runOptimize();
    return b;
  }

  int partitions() {
    return held.length;
  }

  /** Whether partition {@code q} holds vertex {@code v}. */
  boolean holds(int q, int v) {
    return held[q].contains(v);
  }

  /** Whether partition {@code p}, which holds {@code v}, is the lowest one that does. */
  boolean reports(int p, int v) {
    for (int q = 0; q < p; q++) {
      if (held[q].contains(v)) {
        return false;
      }
    }
    return true;
  }
}
