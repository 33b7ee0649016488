package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class RmatChunkTest {
  private static final int SCALE = 12;
  private static final long EDGES = 2L * RmatGenerator.CHUNK_EDGES + 5;

  @Test
  void aChunkDependsOnlyOnItsSeedAndIndex() {
    int[] perm = RmatGenerator.permutation(SCALE, 7);
    EdgeList a = RmatGenerator.chunk(SCALE, EDGES, 1, 7, true, perm);
    EdgeList b = RmatGenerator.chunk(SCALE, EDGES, 1, 7, true,
        RmatGenerator.permutation(SCALE, 7));
    assertThat(a.src()).isEqualTo(b.src());
    assertThat(a.dst()).isEqualTo(b.dst());
    assertThat(a.weights()).isEqualTo(b.weights());
    EdgeList other = RmatGenerator.chunk(SCALE, EDGES, 0, 7, true, perm);
    assertThat(other.src()).isNotEqualTo(a.src());
    EdgeList otherSeed = RmatGenerator.chunk(SCALE, EDGES, 1, 8, true, perm);
    assertThat(otherSeed.src()).isNotEqualTo(a.src());
  }

  @Test
  void chunksCoverTheEdgeCountAndTheLastIsShort() {
    int[] perm = RmatGenerator.permutation(SCALE, 3);
    assertThat(RmatGenerator.chunks(EDGES)).isEqualTo(3);
    assertThat(RmatGenerator.chunks(0)).isZero();
    EdgeList last = RmatGenerator.chunk(SCALE, EDGES, 2, 3, false, perm);
    assertThat(last.edgeCount()).isEqualTo(5);
    assertThat(last.weights()).isNull();
    assertThat(last.vertexCount()).isEqualTo(1 << SCALE);
  }

  @Test
  void chunksHaveRmatsSkewedDegreesAndScrambledIds() {
    int[] perm = RmatGenerator.permutation(SCALE, 11);
    EdgeList g = RmatGenerator.chunk(SCALE, EDGES, 0, 11, true, perm);
    int[] degree = new int[1 << SCALE];
    for (int s : g.src()) {
      degree[s]++;
    }
    int[] sorted = degree.clone();
    Arrays.sort(sorted);
    double mean = (double) g.edgeCount() / degree.length;
    // R-MAT's heaviest source has far more edges than the mean; a uniform graph would not.
    assertThat(sorted[sorted.length - 1]).isGreaterThan((int) (20 * mean));
    // The heaviest vertex is perm[0] (quadrant a at every level), not id 0.
    assertThat(degree[perm[0]]).isEqualTo(sorted[sorted.length - 1]);
    assertThat(Arrays.stream(g.weights()).allMatch(w -> w >= 1 && w <= RmatGenerator.MAX_WEIGHT
        && w == Math.rint(w))).isTrue();
  }

  /** Mapped through their permutation, the unscrambled edges are generate's: one draw, chunked. */
  @Test
  void unscrambledEdgesMappedThroughThePermutationAreGeneratesEdges() {
    for (int edges : new int[] {1000, RmatGenerator.CHUNK_EDGES + 7}) {
      for (boolean weighted : new boolean[] {true, false}) {
        EdgeList g = RmatGenerator.generate(SCALE, edges, 5, weighted);
        RmatGenerator.Unscrambled u = RmatGenerator.generateUnscrambled(SCALE, edges, 5,
            weighted);
        assertThat(u.perm()).hasSize(1 << SCALE);
        assertThat(u.edges().vertexCount()).isEqualTo(g.vertexCount());
        int[] src = Arrays.stream(u.edges().src()).map(v -> u.perm()[v]).toArray();
        int[] dst = Arrays.stream(u.edges().dst()).map(v -> u.perm()[v]).toArray();
        assertThat(src).isEqualTo(g.src());
        assertThat(dst).isEqualTo(g.dst());
        assertThat(u.edges().weights()).isEqualTo(g.weights());
        // Unscrambled, R-MAT's heaviest vertex is id 0 (quadrant a at every level).
        assertThat(u.edges().src()).contains(0);
      }
    }
  }

  @Test
  void badArgumentsNameTheParameter() {
    int[] perm = RmatGenerator.permutation(SCALE, 1);
    assertThatThrownBy(() -> RmatGenerator.chunk(SCALE, EDGES, 3, 1, true, perm))
        .hasMessageContaining("index must be in 0..2");
    assertThatThrownBy(() -> RmatGenerator.chunk(SCALE + 1, EDGES, 0, 1, true, perm))
        .hasMessageContaining("perm");
    assertThatThrownBy(() -> RmatGenerator.chunk(SCALE, -1, 0, 1, true, perm))
        .hasMessageContaining("edgeCount");
    assertThatThrownBy(() -> RmatGenerator.permutation(31, 1)).hasMessageContaining("scale");
    assertThatThrownBy(() -> RmatGenerator.generateUnscrambled(SCALE, -1, 1, true))
        .hasMessageContaining("edgeCount");
  }
}
