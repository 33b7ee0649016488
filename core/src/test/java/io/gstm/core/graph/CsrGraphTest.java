package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** CSR construction, its validation, the R-MAT generator and the verifier's own checks. */
class CsrGraphTest {

  @Test
  void dropsSelfLoopsAndKeepsTheLightestDuplicate() {
    CsrGraph g = CsrGraph.fromEdges(3, new int[] {0, 0, 0, 1, 2, 0},
        new int[] {2, 1, 2, 1, 0, 2}, new double[] {5, 1, 3, 9, 4, 7});
    assertThat(g.offsets()).containsExactly(0, 2, 2, 3);
    assertThat(g.targets()).containsExactly(1, 2, 0);
    assertThat(g.weights()).containsExactly(1, 3, 4);
    CsrGraph u = g.undirected();
    assertThat(u.targets()).containsExactly(1, 2, 0, 0);
    assertThat(u.weights()).containsExactly(1, 3, 1, 3);
    assertThat(u.edgeCount()).isEqualTo(4);
  }

  @Test
  void badEdgesNameTheArgument() {
    assertThatThrownBy(() -> CsrGraph.fromEdges(-1, new int[0], new int[0], null))
        .hasMessageContaining("vertexCount");
    assertThatThrownBy(() -> CsrGraph.fromEdges(2, new int[] {2}, new int[] {0}, null))
        .hasMessageContaining("src[0] = 2");
    assertThatThrownBy(() -> CsrGraph.fromEdges(2, new int[] {0}, new int[] {-1}, null))
        .hasMessageContaining("dst[0] = -1");
    assertThatThrownBy(() -> CsrGraph.fromEdges(2, new int[] {0}, new int[] {1, 0}, null))
        .hasMessageContaining("dst");
    assertThatThrownBy(() -> CsrGraph.fromEdges(2, new int[] {0}, new int[] {1},
        new double[] {-1})).hasMessageContaining("weights[0]");
    assertThatThrownBy(() -> CsrGraph.fromEdges(2, new int[] {0}, new int[] {1},
        new double[] {Double.NaN})).hasMessageContaining("weights[0]");
    assertThatThrownBy(() -> CsrGraph.fromEdges(2, new int[] {0}, new int[] {1},
        new double[] {1, 2})).hasMessageContaining("weights");
  }

  /** A large graph is checked in parallel, and the error still names the first bad entry. */
  @Test
  void largeGraphsNameTheirFirstBadTargetAndWeight() {
    int m = 3 << 20;
    int[] offsets = {0, m / 2, m};
    int[] targets = new int[m];
    targets[m - 5] = 7;
    targets[m / 3] = -1;
    assertThatThrownBy(() -> new CsrGraph(2, offsets, targets, null))
        .hasMessageStartingWith("targets[" + m / 3 + "] = -1 is out of range");
    targets[m / 3] = 1;
    targets[m - 5] = 1;
    double[] weights = new double[m];
    weights[m - 1] = Double.NaN;
    weights[12345] = -2;
    assertThatThrownBy(() -> new CsrGraph(2, offsets, targets, weights))
        .hasMessageStartingWith("weights[12345] = -2.0");
    weights[12345] = 0;
    weights[m - 1] = 0;
    assertThat(new CsrGraph(2, offsets, targets, weights).edgeCount()).isEqualTo(m);
  }

  /**
   * A builder's arrays (ofBuiltArrays) keep the checks of shape, not the per-edge ones;
   * checkEdgeArrays checks the arrays without reading the edges.
   */
  @Test
  void builtArraysKeepTheChecksOfShapeOnly() {
    assertThatThrownBy(() -> CsrGraph.ofBuiltArrays(2, new int[] {0, 1}, new int[] {1}, null))
        .hasMessageStartingWith("offsets: expected vertexCount + 1 = 3 entries");
    assertThatThrownBy(() -> CsrGraph.ofBuiltArrays(2, new int[] {0, 1, 2}, new int[] {1},
        null)).hasMessageStartingWith("offsets: must run from 0 to the edge count 1");
    assertThatThrownBy(() -> CsrGraph.ofBuiltArrays(2, new int[] {0, 1, 1}, new int[] {1},
        new double[2])).hasMessageStartingWith("weights: expected one per edge (1)");
    // The edges themselves are the builder's word: the constructor would refuse these.
    int[] offsets = {0, 1, 1};
    int[] targets = {5};
    assertThat(CsrGraph.ofBuiltArrays(2, offsets, targets, null).targets()).containsExactly(5);
    assertThatThrownBy(() -> new CsrGraph(2, offsets, targets, null))
        .hasMessageStartingWith("targets[0] = 5 is out of range");

    CsrGraph.checkEdgeArrays(2, new int[] {9}, new int[] {-1}, new double[] {Double.NaN});
    assertThatThrownBy(() -> CsrGraph.checkEdgeArrays(2, new int[] {0}, new int[] {1, 1},
        null)).hasMessageStartingWith("dst: expected one entry per src entry (1)");
    assertThatThrownBy(() -> CsrGraph.checkEdges(2, new int[] {9}, new int[] {1}, null))
        .hasMessageStartingWith("src[0] = 9 is out of range");
  }

  @Test
  void rmatIsDeterministicAndSkewed() {
    EdgeList a = RmatGenerator.generate(10, 8000, 42, true);
    EdgeList b = RmatGenerator.generate(10, 8000, 42, true);
    assertThat(a.src()).isEqualTo(b.src());
    assertThat(a.dst()).isEqualTo(b.dst());
    assertThat(a.weights()).isEqualTo(b.weights());
    assertThat(a.vertexCount()).isEqualTo(1024);
    for (double w : a.weights()) {
      assertThat(w).isBetween(1.0, 100.0).isEqualTo(Math.rint(w));
    }
    CsrGraph g = a.toCsr();
    int max = 0;
    for (int v = 0; v < g.vertexCount(); v++) {
      max = Math.max(max, g.degree(v));
    }
    assertThat(max).isGreaterThan(10 * 8000 / 1024);
    assertThat(RmatGenerator.generate(10, 100, 1, false).weights()).isNull();
    assertThatThrownBy(() -> RmatGenerator.generate(0, 1, 1, true))
        .hasMessageContaining("scale");
  }

  @Test
  void verifierReportsTheFirstMismatch() {
    CsrGraph g = CsrGraph.fromEdges(3, new int[] {0, 1}, new int[] {1, 2}, new double[] {2, 3});
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS, 3, 0);
    assertThat(RelaxationVerifier.expected(g, RelaxationKind.SHORTEST_PATHS, init))
        .containsExactly(0, 2, 5);
    RelaxationVerifier.Report bad = RelaxationVerifier.check(g, RelaxationKind.SHORTEST_PATHS,
        init, new double[] {0, 2, 6});
    assertThat(bad.ok()).isFalse();
    assertThat(bad.toString()).contains("vertex 2: expected 5.0, got 6.0");
    double[] labels = RelaxationVerifier.initialValues(RelaxationKind.CONNECTED_COMPONENTS, 3);
    assertThat(RelaxationVerifier.expected(g.undirected(), RelaxationKind.CONNECTED_COMPONENTS,
        labels)).containsExactly(0, 0, 0);
  }
}
