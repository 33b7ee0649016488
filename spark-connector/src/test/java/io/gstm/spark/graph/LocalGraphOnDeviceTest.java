package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A subgraph whose edges stayed on the GPU that built them (here a stand-in for the relaxer
 * that holds them): its counts come from the build, the host reads the edges back once and only
 * when asked, a copy carries them, and edges that cannot be read back are an error naming the
 * subgraph.
 */
class LocalGraphOnDeviceTest {
  private static final CsrGraph EDGES = new CsrGraph(3, new int[] {0, 2, 3, 3},
      new int[] {1, 2, 2}, new double[] {1.5, 2.5, 0.5});

  private static LocalGraph onDevice(java.util.function.Supplier<CsrGraph> back) {
    int[] ids = {10, 20, 30};
    return new LocalGraph(1, 2, new LocalGraph.Numbering(ids, ids.clone(), new int[] {0, 1, 2}),
        EDGES.offsets(), EDGES.edgeCount(), back);
  }

  @Test
  void theEdgesComeBackOnceAndOnlyWhenAsked() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    LocalGraph g = onDevice(() -> {
      reads.incrementAndGet();
      return EDGES;
    });
    assertThat(g.edgeCount()).isEqualTo(3);
    assertThat(g.edgesOnDevice()).isTrue();
    assertThat(g.local(20)).isEqualTo(1);
    assertThat(reads).hasValue(0);
    assertThat(g.csr().targets()).containsExactly(1, 2, 2);
    assertThat(g.csr().weights()).containsExactly(1.5, 2.5, 0.5);
    assertThat(g.edgesOnDevice()).isFalse();
    assertThat(reads).hasValue(1);

    // A copy (a spilled or fetched cache block) carries the edges with it.
    LocalGraph fresh = onDevice(() -> {
      reads.incrementAndGet();
      return EDGES;
    });
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(fresh);
    }
    LocalGraph copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (LocalGraph) in.readObject();
    }
    assertThat(reads).hasValue(2);
    assertThat(copy.edgesOnDevice()).isFalse();
    assertThat(copy.edgeCount()).isEqualTo(3);
    assertThat(copy.csr().offsets()).containsExactly(0, 2, 3, 3);
    assertThat(copy.csr().targets()).containsExactly(1, 2, 2);
  }

  @Test
  void edgesThatCannotComeBackAreAnErrorNamingTheSubgraph() {
    LocalGraph g = onDevice(() -> {
      throw new IllegalStateException("graph relaxer already closed");
    });
    assertThatThrownBy(g::csr).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("subgraph 1").hasMessageContaining("already closed");
  }
}
