package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class ReplicasTest {
  /** A partition needs a vertex's updates where the vertex has out-edges or where it reports it. */
  @Test
  void needsMeansRelayingOrReporting() {
    Replicas r = new Replicas(
        new RoaringBitmap[] {RoaringBitmap.bitmapOf(1, 2, 3), RoaringBitmap.bitmapOf(2, 3, 4),
            RoaringBitmap.bitmapOf(3, 4)},
        new RoaringBitmap[] {RoaringBitmap.bitmapOf(1), RoaringBitmap.bitmapOf(2, 4),
            new RoaringBitmap()});
    assertThat(r.needs(1, 2)).as("out-edges there").isTrue();
    assertThat(r.needs(0, 2)).as("reports it").isTrue();
    assertThat(r.needs(0, 3)).as("reports it").isTrue();
    assertThat(r.needs(2, 3)).as("a sink replica that does not report").isFalse();
    assertThat(r.needs(2, 4)).as("a sink replica that does not report").isFalse();
    assertThat(r.needs(1, 4)).as("out-edges and reporter").isTrue();
    assertThat(r.needs(0, 4)).as("not held").isFalse();
    assertThat(r.reports(1, 4)).isTrue();
    assertThat(r.reports(2, 4)).isFalse();
    assertThatThrownBy(() -> new Replicas(new RoaringBitmap[2], new RoaringBitmap[1]))
        .hasMessageContaining("relaying");
  }

  /**
   * The bulk forms give the lookups' answers: {@code reporter} as {@code reports}, and {@code
   * needMasks} as {@code needs}, on random cuts of three and five partitions.
   */
  @Test
  void bulkFormsAgreeWithTheLookups() {
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(5);
    for (int p : new int[] {3, 5}) {
      RoaringBitmap[] held = new RoaringBitmap[p];
      RoaringBitmap[] relaying = new RoaringBitmap[p];
      for (int q = 0; q < p; q++) {
        held[q] = new RoaringBitmap();
        relaying[q] = new RoaringBitmap();
        for (int v = 0; v < 5_000; v++) {
          if (rnd.nextInt(3) == 0) {
            held[q].add(v * 7);
            if (rnd.nextBoolean()) {
              relaying[q].add(v * 7);
            }
          }
        }
      }
      Replicas r = new Replicas(held, relaying);
      for (int q = 0; q < p; q++) {
        java.util.function.IntPredicate reports = r.reporter(q);
        for (int v : held[q].toArray()) {
          assertThat(reports.test(v)).as("partition %d reports %d", q, v)
              .isEqualTo(r.reports(q, v));
        }
      }
      // needMasks over a subgraph that holds held[1]'s ids, numbered in reverse.
      int[] ids = held[1].toArray();
      int[] global = new int[ids.length];
      for (int i = 0; i < ids.length; i++) {
        global[i] = ids[ids.length - 1 - i];
      }
      int[] sortedLocal = new int[ids.length];
      for (int i = 0; i < ids.length; i++) {
        sortedLocal[i] = ids.length - 1 - i;
      }
      LocalGraph g = new LocalGraph(1, p, new LocalGraph.Numbering(global, ids, sortedLocal),
          new io.gstm.core.graph.CsrGraph(ids.length, new int[ids.length + 1], new int[0], null));
      int[] masks = r.needMasks(g);
      for (int local = 0; local < global.length; local++) {
        for (int q = 0; q < p; q++) {
          boolean bit = (masks[local] & (1 << q)) != 0;
          assertThat(bit).as("partition %d needs %d", q, global[local])
              .isEqualTo(q != 1 && r.needs(q, global[local]));
        }
      }
    }
  }
}
