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
}
