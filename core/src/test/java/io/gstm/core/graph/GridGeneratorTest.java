package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The grid generator: row-major ids, the street count, symmetric weights in range, the same
 * edges for the same seed, road-like removal and shortcuts, and a shuffle that only reorders.
 */
class GridGeneratorTest {

  @Test
  void gridHasEveryStreetBothWaysWithOneWeight() {
    EdgeList g = GridGenerator.grid(3, 4, 7);
    assertThat(g.vertexCount()).isEqualTo(12);
    // 3 rows of 3 horizontal streets, 2 rows of 4 vertical ones, each both ways.
    assertThat(g.edgeCount()).isEqualTo(2 * (3 * 3 + 2 * 4));
    Map<Long, Double> weight = new HashMap<>();
    for (int e = 0; e < g.edgeCount(); e++) {
      int a = g.src()[e];
      int b = g.dst()[e];
      // Neighbours in row-major ids: one column or one row apart, never across a row's end.
      boolean right = b == a + 1 && a / 4 == b / 4;
      boolean left = a == b + 1 && a / 4 == b / 4;
      assertThat(right || left || Math.abs(a - b) == 4).as(a + " -> " + b).isTrue();
      assertThat(g.weights()[e]).isBetween(1.0, (double) RmatGenerator.MAX_WEIGHT);
      assertThat(g.weights()[e]).isEqualTo(Math.rint(g.weights()[e]));
      weight.put(((long) a << 32) | b, g.weights()[e]);
    }
    weight.forEach((k, w) ->
        assertThat(weight.get((k << 32) | (k >>> 32))).as("reverse of " + k).isEqualTo(w));
    assertThat(GridGenerator.grid(3, 4, 7).weights()).isEqualTo(g.weights());
    assertThat(GridGenerator.grid(3, 4, 8).weights()).isNotEqualTo(g.weights());
  }

  @Test
  void gridDiameterIsRowsPlusColumns() {
    EdgeList g = GridGenerator.grid(30, 50, 1);
    CsrGraph hops = CsrGraph.fromEdges(g.vertexCount(), g.src(), g.dst(), null);
    double[] d = RelaxationVerifier.dijkstra(hops,
        RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, g.vertexCount(), 0));
    assertThat(d[30 * 50 - 1]).isEqualTo(29 + 49);
    assertThat(GridGenerator.square(1_000, 1).vertexCount()).isEqualTo(32 * 32);
  }

  @Test
  void roadLikeRemovesStreetsAndAddsShortcuts() {
    EdgeList full = GridGenerator.grid(100, 100, 3);
    EdgeList road = GridGenerator.roadLike(100, 100, 3, 0.2, 10);
    int streets = full.edgeCount() / 2;
    int kept = (road.edgeCount() - 20) / 2;
    assertThat((double) kept / streets).isBetween(0.75, 0.85);
    // The streets that stay keep their weights (the draw does not depend on the removal).
    Map<Long, Double> weight = new HashMap<>();
    for (int e = 0; e < full.edgeCount(); e++) {
      weight.put(((long) full.src()[e] << 32) | full.dst()[e], full.weights()[e]);
    }
    for (int e = 0; e < road.edgeCount() - 20; e++) {
      assertThat(weight.get(((long) road.src()[e] << 32) | road.dst()[e]))
          .isEqualTo(road.weights()[e]);
    }
    for (int e = road.edgeCount() - 20; e < road.edgeCount(); e += 2) {
      assertThat(road.src()[e + 1]).isEqualTo(road.dst()[e]);
      assertThat(road.weights()[e]).isGreaterThanOrEqualTo(1);
    }
  }

  @Test
  void shuffleOnlyReorders() {
    EdgeList g = GridGenerator.roadLike(20, 30, 5, 0.1, 3);
    EdgeList s = GridGenerator.shuffled(g, 9);
    assertThat(s.edgeCount()).isEqualTo(g.edgeCount());
    assertThat(s.src()).isNotEqualTo(g.src());
    assertThat(sortedTriples(s)).isEqualTo(sortedTriples(g));
    assertThat(GridGenerator.shuffled(g, 9).src()).isEqualTo(s.src());
    CsrGraph a = g.toCsr();
    CsrGraph b = s.toCsr();
    assertThat(b.offsets()).isEqualTo(a.offsets());
    assertThat(b.targets()).isEqualTo(a.targets());
    assertThat(b.weights()).isEqualTo(a.weights());
  }

  @Test
  void badSizesNameTheParameter() {
    assertThatThrownBy(() -> GridGenerator.grid(0, 5, 1)).hasMessageContaining("rows and cols");
    assertThatThrownBy(() -> GridGenerator.grid(5, GridGenerator.MAX_SIDE + 1, 1))
        .hasMessageContaining("rows and cols");
    assertThatThrownBy(() -> GridGenerator.roadLike(5, 5, 1, 1.0, 0))
        .hasMessageContaining("removed");
    assertThatThrownBy(() -> GridGenerator.roadLike(5, 5, 1, 0, -1))
        .hasMessageContaining("shortcuts");
    assertThatThrownBy(() -> GridGenerator.square(0, 1)).hasMessageContaining("vertices");
  }

  private static long[] sortedTriples(EdgeList g) {
    long[] t = new long[g.edgeCount()];
    for (int e = 0; e < t.length; e++) {
      t[e] = ((long) g.src()[e] << 40) ^ ((long) g.dst()[e] << 8) ^ (long) g.weights()[e];
    }
    Arrays.sort(t);
    return t;
  }
}
