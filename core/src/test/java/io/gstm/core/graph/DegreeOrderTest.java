package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class DegreeOrderTest {
  @Test
  void newIdsGoByDescendingDegreeAndKeepTiesInOrder() {
    assertThat(DegreeOrder.newIds(new int[] {1, 5, 0, 5, 2})).containsExactly(3, 0, 4, 1, 2);
    assertThat(DegreeOrder.newIds(new int[0])).isEmpty();
    assertThatThrownBy(() -> DegreeOrder.newIds(new int[] {1, -1}))
        .hasMessageContaining("degree");
  }

  /** Relabelling renames every edge end by newIds and keeps the weights; degrees then descend. */
  @Test
  void relabelRenamesEveryEdgeEndConsistently() {
    EdgeList g = RmatGenerator.generate(10, 1 << 13, 5, true);
    EdgeList r = DegreeOrder.relabel(g);
    int n = g.vertexCount();
    int[] degree = new int[n];
    for (int i = 0; i < g.edgeCount(); i++) {
      degree[g.src()[i]]++;
      degree[g.dst()[i]]++;
    }
    int[] ids = DegreeOrder.newIds(degree);
    assertThat(Arrays.stream(ids).sorted().toArray()).isEqualTo(
        java.util.stream.IntStream.range(0, n).toArray());
    int[] newDegree = new int[n];
    for (int i = 0; i < r.edgeCount(); i++) {
      assertThat(r.src()[i]).isEqualTo(ids[g.src()[i]]);
      assertThat(r.dst()[i]).isEqualTo(ids[g.dst()[i]]);
      newDegree[r.src()[i]]++;
      newDegree[r.dst()[i]]++;
    }
    for (int v = 1; v < n; v++) {
      assertThat(newDegree[v]).isLessThanOrEqualTo(newDegree[v - 1]);
    }
    assertThat(r.weights()).isSameAs(g.weights());
  }
}
