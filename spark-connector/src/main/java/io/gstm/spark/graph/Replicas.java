package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.function.IntPredicate;
import org.roaringbitmap.RoaringBitmap;

/**
 * Where each vertex of a vertex cut lives: per partition, the set of global ids its subgraph
 * holds and the subset with out-edges there (compressed bitmaps, collected once after the build
 * and broadcast). The lowest partition that holds a vertex reports its value. A partition sends a
 * vertex's improved value to every other partition that {@link #needs} it: one where the vertex
 * has out-edges (the value relaxes them) or that reports it. A replica with neither only ever
 * compares its value with the candidates of its in-edges; a stale value there can at worst
 * produce an update the others ignore (each takes the min), never a wrong result.
 */
@DefaultSerializer(JavaSerializer.class)
final class Replicas implements Serializable {
  private static final long serialVersionUID = 2L;

  private final RoaringBitmap[] held;
  private final RoaringBitmap[] relaying;

  /**
   * {@code held[q]}: the global ids partition {@code q} holds; {@code relaying[q]}: those of them
   * with out-edges in {@code q}.
   */
  Replicas(RoaringBitmap[] held, RoaringBitmap[] relaying) {
    if (held.length != relaying.length) {
      throw new IllegalArgumentException("relaying: " + relaying.length + " sets for "
          + held.length + " partitions");
    }
    this.held = held;
    this.relaying = relaying;
  }

  /**
   * The replicas of a single subgraph: it reports every vertex ({@link #reports}) and has no
   * other partition to send to ({@link #needs} is never asked), so its sets are left empty
   * rather than collected from the built subgraph by a job of their own.
   */
  static Replicas one() {
    return new Replicas(new RoaringBitmap[] {new RoaringBitmap()},
        new RoaringBitmap[] {new RoaringBitmap()});
  }

  /** The global ids of {@code g}, as {@link #Replicas} takes them. */
  static RoaringBitmap idsOf(LocalGraph g) {
    RoaringBitmap b = RoaringBitmap.bitmapOf(g.sortedGlobalIds());
    b.runOptimize();
    return b;
  }

  /** The global ids of {@code g}'s vertices with out-edges in {@code g}. */
  static RoaringBitmap sourcesOf(LocalGraph g) {
    RoaringBitmap b = new RoaringBitmap();
    for (int v = 0; v < g.size(); v++) {
      if (g.offsets[v + 1] > g.offsets[v]) {
        b.add(g.globalIds[v]);
      }
    }
    b.runOptimize();
    return b;
  }

  int partitions() {
    return held.length;
  }

  /** Whether partition {@code q} needs {@code v}'s improvements: it relays or reports it. */
  boolean needs(int q, int v) {
    return relaying[q].contains(v) || (held[q].contains(v) && reports(q, v));
  }

  /**
   * Per local vertex of {@code g}, a bit for each other partition that {@link #needs} it: set
   * operations over the bitmaps once per subgraph, where asking {@link #needs} for every vertex
   * that improved cost a few bitmap lookups per vertex and partition in every superstep (seconds
   * over millions of replicas). Null beyond 32 partitions.
   */
  int[] needMasks(LocalGraph g) {
    int p = held.length;
    if (p > Integer.SIZE) {
      return null;
    }
    int[] masks = new int[g.size()];
    RoaringBitmap mine = held[g.partition];
    RoaringBitmap lower = new RoaringBitmap(); // held by a partition below q: q does not report
    for (int q = 0; q < p; q++) {
      if (q != g.partition) {
        RoaringBitmap needed = RoaringBitmap.or(relaying[q], RoaringBitmap.andNot(held[q], lower));
        needed.and(mine);
        int bit = 1 << q;
        g.forEachLocal(needed, v -> masks[v] |= bit);
      }
      lower.or(held[q]);
    }
    return masks;
  }

  /**
   * {@link #reports} for partition {@code p} over many vertices: the ids held below {@code p} as a
   * plain bit set over their span (one bit test a vertex instead of a bitmap lookup per lower
   * partition; a subgraph's result has millions of vertices).
   */
  IntPredicate reporter(int p) {
    if (p == 0) {
      return v -> true;
    }
    RoaringBitmap below = new RoaringBitmap();
    for (int q = 0; q < p; q++) {
      below.or(held[q]);
    }
    if (below.isEmpty()) {
      return v -> true;
    }
    long[] bits = new long[(int) ((below.last() & 0xffffffffL) >>> 6) + 1];
    below.forEach((int v) -> bits[v >>> 6] |= 1L << v);
    return v -> (v >>> 6) >= bits.length || (bits[v >>> 6] & (1L << v)) == 0;
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
