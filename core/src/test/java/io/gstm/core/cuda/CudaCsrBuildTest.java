package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.DegreeOrder;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GraphTestGraphs;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CSR built on the GPU is the host build's, array for array (offsets, targets sorted per
 * vertex, duplicates merged at the lightest weight, the first in input order among equal
 * weights, self-loops dropped), directed and undirected: over random graphs with hubs,
 * duplicates and loops; one tile and many (the scan of the counts in one, two and three
 * levels); ids of 1 to 25 bits (one to seven radix passes); R-MAT; no edges; bad input.
 */
@EnabledIfGpu
class CudaCsrBuildTest {
  private static CudaEngine gpu;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
  }

  @AfterAll
  static void close() {
    gpu.close();
  }

  static EdgeList edges(int n, int m, boolean weighted, boolean negativeZero, long seed) {
    return GraphTestGraphs.hubsLoopsAndDuplicates(n, m, weighted, negativeZero, seed);
  }

  static void assertSame(CsrGraph actual, CsrGraph expected) {
    assertThat(actual.vertexCount()).isEqualTo(expected.vertexCount());
    assertThat(actual.offsets()).isEqualTo(expected.offsets());
    assertThat(actual.targets()).isEqualTo(expected.targets());
    if (expected.weights() == null) {
      assertThat(actual.weights()).isNull();
    } else {
      // Bit for bit: -0.0 and 0.0 are told apart.
      double[] a = actual.weights();
      double[] e = expected.weights();
      assertThat(a).hasSameSizeAs(e);
      for (int i = 0; i < e.length; i++) {
        if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(e[i])) {
          throw new AssertionError("weights[" + i + "]: " + a[i] + ", expected " + e[i]);
        }
      }
    }
  }

  @ParameterizedTest(name = "{0} vertices, {1} edges, weighted {2}, seed {3}")
  @CsvSource({"1, 5, true, 1", "2, 1, false, 2", "3, 2047, true, 3", "3, 2048, true, 4",
      "1000, 2049, true, 5", "70000, 300000, false, 6", "2000000, 1100000, true, 7",
      "1048576, 5000000, true, 8", "16777219, 100000, true, 9", "5000, 12000000, true, 10"})
  void makesTheHostBuildsArrays(int n, int m, boolean weighted, long seed) {
    EdgeList g = edges(n, m, weighted, true, seed);
    CsrGraph expected = CsrGraph.fromEdges(n, g.src(), g.dst(), g.weights());
    assertSame(CudaCsrBuild.fromEdges(gpu, n, g.src(), g.dst(), g.weights()), expected);
  }

  @ParameterizedTest(name = "{0} vertices, {1} edges, weighted {2}, seed {3}")
  @CsvSource({"1, 5, true, 1", "3, 2047, true, 3", "70000, 300000, true, 6",
      "1048576, 5000000, false, 8", "5000, 20000000, true, 11"})
  void undirectedIsTheHostsUndirected(int n, int m, boolean weighted, long seed) {
    // No -0.0 here: the host merges the two directions in another order, and of 0.0 and -0.0
    // (equal weights) keeps whichever it meets first.
    EdgeList g = edges(n, m, weighted, false, seed);
    CsrGraph expected = CsrGraph.fromEdges(n, g.src(), g.dst(), g.weights()).undirected();
    assertSame(CudaCsrBuild.undirected(gpu, n, g.src(), g.dst(), g.weights()), expected);
  }

  @Test
  void rmatAsTheBenchmarkBuildsIt() {
    EdgeList g = RmatGenerator.generate(18, 16 << 18, 42, true);
    int n = g.vertexCount();
    assertSame(CudaCsrBuild.fromEdges(gpu, n, g.src(), g.dst(), g.weights()), g.toCsr());
    assertSame(CudaCsrBuild.undirected(gpu, n, g.src(), g.dst(), g.weights()),
        g.toCsr().undirected());
  }

  /**
   * Numbered by degree on the device: the host's numbering (DegreeOrder, equal degrees in order
   * of id) and the CSR of the host's relabelled edges, directed and undirected; hubs, isolated
   * vertices, loops and duplicates among them.
   */
  @ParameterizedTest(name = "{0} vertices, {1} edges, weighted {2}, undirected {3}, seed {4}")
  @CsvSource({"1, 5, true, false, 1", "3, 2047, true, true, 3", "1000, 2049, false, false, 5",
      "70000, 300000, true, false, 6", "1048576, 5000000, true, true, 8",
      "5000, 12000000, true, false, 10"})
  void byDegreeIsTheHostsRelabelledBuild(int n, int m, boolean weighted, boolean undirected,
      long seed) {
    EdgeList g = edges(n, m, weighted, !undirected, seed);
    int[] newIds = DegreeOrder.newIds(g);
    EdgeList relabelled = DegreeOrder.relabel(g, newIds);
    CsrGraph expected = undirected ? relabelled.toCsr().undirected() : relabelled.toCsr();
    CudaCsrBuild.ByDegree built =
        CudaCsrBuild.buildByDegree(gpu, n, g.src(), g.dst(), g.weights(), undirected);
    assertThat(built.newIds()).isEqualTo(newIds);
    assertSame(built.built().graph(), expected);
  }

  @Test
  void byDegreeOfSkewedAndEmptyGraphs() {
    EdgeList rmat = RmatGenerator.generate(16, 16 << 16, 7, true);
    int[] newIds = DegreeOrder.newIds(rmat);
    CudaCsrBuild.ByDegree built = CudaCsrBuild.buildByDegree(gpu, rmat.vertexCount(),
        rmat.src(), rmat.dst(), rmat.weights(), false);
    assertThat(built.newIds()).isEqualTo(newIds);
    assertSame(built.built().graph(), DegreeOrder.relabel(rmat, newIds).toCsr());
    // No edges: every vertex keeps its id.
    CudaCsrBuild.ByDegree empty = CudaCsrBuild.buildByDegree(gpu, 4, new int[0], new int[0],
        null, false);
    assertThat(empty.newIds()).containsExactly(0, 1, 2, 3);
    assertSame(empty.built().graph(), CsrGraph.fromEdges(4, new int[0], new int[0], null));
    // A bad id is the host's error, as without the numbering.
    assertThatThrownBy(() -> CudaCsrBuild.buildByDegree(gpu, 3, new int[] {0, 3},
        new int[] {1, 1}, null, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("src[1] = 3 is out of range: vertexCount is 3, so ids 0..2");
  }

  /**
   * R-MAT drawn unscrambled and mapped through its permutation on the device: the numbering and
   * the CSR of generate's (scrambled) edges numbered by degree, directed and undirected, one
   * draw and chunked; a bad table or id named.
   */
  @ParameterizedTest(name = "scale {0}, {1} edges, undirected {2}")
  @CsvSource({"10, 5000, false", "17, 2097159, false", "17, 2097159, true"})
  void byDegreeThroughTheGeneratorsPermutation(int scale, int edges, boolean undirected) {
    EdgeList g = RmatGenerator.generate(scale, edges, 13, true);
    RmatGenerator.Unscrambled u = RmatGenerator.generateUnscrambled(scale, edges, 13, true);
    int[] newIds = DegreeOrder.newIds(g);
    EdgeList relabelled = DegreeOrder.relabel(g, newIds);
    CudaCsrBuild.ByDegree built = CudaCsrBuild.buildByDegree(gpu, g.vertexCount(),
        u.edges().src(), u.edges().dst(), u.edges().weights(), undirected, u.perm());
    assertThat(built.newIds()).isEqualTo(newIds);
    assertSame(built.built().graph(),
        undirected ? relabelled.toCsr().undirected() : relabelled.toCsr());
  }

  @Test
  void byDegreeThroughABadTableIsNamed() {
    assertThatThrownBy(() -> CudaCsrBuild.buildByDegree(gpu, 3, new int[] {0, 1},
        new int[] {1, 2}, null, false, new int[] {0, 1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idTable must hold vertexCount (3) ids, got 2");
    assertThatThrownBy(() -> CudaCsrBuild.buildByDegree(gpu, 3, new int[] {0, 1},
        new int[] {1, 2}, null, false, new int[] {2, 3, 0}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idTable[1] = 3 is out of range: vertexCount is 3");
    // An edge's id outside the table: the host's message for the unmapped edge.
    assertThatThrownBy(() -> CudaCsrBuild.buildByDegree(gpu, 3, new int[] {0, 3},
        new int[] {1, 1}, null, false, new int[] {2, 1, 0}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("src[1] = 3 is out of range: vertexCount is 3, so ids 0..2");
  }

  @Test
  void noEdgesNoVertices() {
    assertSame(CudaCsrBuild.fromEdges(gpu, 0, new int[0], new int[0], null),
        CsrGraph.fromEdges(0, new int[0], new int[0], null));
    assertSame(CudaCsrBuild.undirected(gpu, 4, new int[0], new int[0], new double[0]),
        CsrGraph.fromEdges(4, new int[0], new int[0], new double[0]));
    // Only loops: every key flagged out.
    assertSame(CudaCsrBuild.fromEdges(gpu, 3, new int[] {1, 2, 1}, new int[] {1, 2, 1}, null),
        CsrGraph.fromEdges(3, new int[] {1, 2, 1}, new int[] {1, 2, 1}, null));
  }

  @Test
  void badInputIsTheHostsError() {
    assertThatThrownBy(() -> CudaCsrBuild.fromEdges(gpu, 3, new int[] {0, 3},
        new int[] {1, 1}, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("src[1] = 3 is out of range: vertexCount is 3, so ids 0..2");
    assertThatThrownBy(() -> CudaCsrBuild.undirected(gpu, 3, new int[] {0},
        new int[] {1}, new double[] {Double.NaN}))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("weights[0]");
    assertThatThrownBy(() -> CudaCsrBuild.fromEdges(gpu, 3, new int[] {0},
        new int[] {1, 2}, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("dst:");
  }

  /**
   * Edges in parts of an input (arrays longer than their parts, empty parts), ids mapped through
   * a table on the device: the CSR of the mapped edges in order, directed and undirected,
   * weighted or not (a weighted input built unweighted drops its weights).
   */
  @ParameterizedTest(name = "{0} ids, {1} edges in {2} parts, weighted {3}, undirected {4}")
  @CsvSource({"10, 40, 3, true, false", "5000, 200000, 7, true, true",
      "70000, 3000000, 4, false, false", "70000, 3000000, 5, false, true",
      "100000, 600000, 2, true, false"})
  void partsMappedThroughATableAreTheMappedEdgesBuild(int ids, int m, int partCount,
      boolean weighted, boolean undirected) {
    EdgeList g = edges(ids, m, true, false, ids + m);
    // A table that renumbers the ids backwards.
    int n = ids;
    int[] table = new int[ids];
    for (int id = 0; id < ids; id++) {
      table[id] = ids - 1 - id;
    }
    int[] src = g.src();
    int[] dst = g.dst();
    java.util.List<CudaCsrBuild.Part> parts = new java.util.ArrayList<>();
    int[] mappedSrc = new int[m];
    int[] mappedDst = new int[m];
    for (int i = 0; i < m; i++) {
      mappedSrc[i] = table[src[i]];
      mappedDst[i] = table[dst[i]];
    }
    for (int k = 0, from = 0; k < partCount; k++) {
      int to = k == partCount - 1 ? m : from + (m / partCount) * (k % 2 == 0 ? 1 : 0);
      int size = to - from;
      // Arrays with room past the part's end, as a reader's chunk has.
      int[] ps = java.util.Arrays.copyOf(java.util.Arrays.copyOfRange(src, from, to), size + 3);
      int[] pd = java.util.Arrays.copyOf(java.util.Arrays.copyOfRange(dst, from, to), size + 3);
      double[] pw = java.util.Arrays.copyOf(
          java.util.Arrays.copyOfRange(g.weights(), from, to), size + 3);
      parts.add(new CudaCsrBuild.Part(ps, pd, pw, size));
      from = to;
    }
    double[] w = weighted ? g.weights() : null;
    CsrGraph expected = CsrGraph.fromEdges(n, mappedSrc, mappedDst, w);
    if (undirected) {
      expected = expected.undirected();
    }
    assertSame(CudaCsrBuild.fromParts(gpu, n, parts, table, weighted, undirected).graph(),
        expected);
  }

  /** A part's id outside the table, or mapped outside the vertices, or a bad weight, is named. */
  @Test
  void badPartsAreNamed() {
    int[] table = {2, 0, 1, 7};
    java.util.List<CudaCsrBuild.Part> parts = java.util.List.of(
        new CudaCsrBuild.Part(new int[] {0, 1}, new int[] {1, 2}, new double[] {1, 2}, 2),
        new CudaCsrBuild.Part(new int[] {2, 4}, new int[] {0, 1}, new double[] {1, 2}, 2));
    assertThatThrownBy(() -> CudaCsrBuild.fromParts(gpu, 3, parts, table, true, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parts[1] edge 1: source 4 is outside idTable (ids 0..3)");
    java.util.List<CudaCsrBuild.Part> mappedOut = java.util.List.of(
        new CudaCsrBuild.Part(new int[] {0, 1}, new int[] {3, 2}, null, 2));
    assertThatThrownBy(() -> CudaCsrBuild.fromParts(gpu, 3, mappedOut, table, false, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parts[0] edge 0: target 3 maps to 7, outside the vertices 0..2");
    java.util.List<CudaCsrBuild.Part> badWeight = java.util.List.of(
        new CudaCsrBuild.Part(new int[] {0, 1}, new int[] {1, 2}, new double[] {1, -2}, 2));
    assertThatThrownBy(() -> CudaCsrBuild.fromParts(gpu, 3, badWeight, table, true, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("parts[0] edge 1: weight -2.0");
    assertThatThrownBy(() -> CudaCsrBuild.fromParts(gpu, 3, mappedOut, table, true, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parts[0]: no weights for a weighted build");
  }
}
