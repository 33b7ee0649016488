package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.CsrGraph;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CSR build by source ({@link LocalGraph#csrBySource}) holds the same out-edges as core's
 * {@link CsrGraph#fromEdges} (self-loops dropped, of duplicates the lightest, the first in input
 * order among equal weights), each vertex's edges in input order instead of by target.
 */
class LocalGraphCsrTest {
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void sameEdgesAsFromEdges(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = 1 + r.nextInt(200);
    int m = r.nextInt(3000);
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = r.nextInt(n);
      dst[i] = r.nextInt(4) == 0 ? src[i] : r.nextInt(Math.min(n, 1 + r.nextInt(n)));
      w[i] = r.nextInt(3) == 0 ? (r.nextBoolean() ? 0.0 : -0.0) : r.nextInt(5);
    }
    for (double[] weights : new double[][] {w, null}) {
      CsrGraph a = LocalGraph.csrBySource(n, src, dst, weights);
      CsrGraph b = CsrGraph.fromEdges(n, src, dst, weights);
      assertThat(a.offsets()).isEqualTo(b.offsets());
      assertThat(a.weights() == null).isEqualTo(weights == null);
      for (int v = 0; v < n; v++) {
        // Bitwise weights, so that 0.0 and -0.0 count as different.
        assertThat(edges(a, v)).as("out-edges of %d", v).isEqualTo(edges(b, v));
      }
      // Input order within a vertex: the first occurrence of each target.
      for (int v = 0; v < n; v++) {
        List<Integer> firsts = new ArrayList<>();
        for (int i = 0; i < m; i++) {
          if (src[i] == v && dst[i] != v && !firsts.contains(dst[i])) {
            firsts.add(dst[i]);
          }
        }
        List<Integer> actual = new ArrayList<>();
        for (int e = a.offsets()[v]; e < a.offsets()[v + 1]; e++) {
          actual.add(a.targets()[e]);
        }
        assertThat(actual).isEqualTo(firsts);
      }
    }
  }

  private static Map<Integer, Long> edges(CsrGraph g, int v) {
    Map<Integer, Long> out = new TreeMap<>();
    for (int e = g.offsets()[v]; e < g.offsets()[v + 1]; e++) {
      long bits = g.weights() == null ? 0 : Double.doubleToRawLongBits(g.weights()[e]);
      assertThat(out.put(g.targets()[e], bits)).as("duplicate target").isNull();
    }
    return out;
  }

  /**
   * A built subgraph numbers its vertices by degree (highest first, ties by global id), finds
   * every global id it holds and no other, and its CSR holds the input's out-edges (self-loops
   * dropped, the lightest of duplicates) in global ids, whether the ids are dense or sparse.
   */
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6})
  void buildNumbersVerticesByDegreeAndKeepsTheEdges(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    boolean sparse = seed % 2 == 0; // ids far apart: the sorted path instead of the table
    int n = 1 + r.nextInt(300);
    int m = r.nextInt(2000);
    EdgeChunk chunk = new EdgeChunk(true);
    Map<Long, Double> expected = new TreeMap<>();
    for (int i = 0; i < m; i++) {
      int s = id(r.nextInt(n), sparse);
      int d = id(r.nextInt(1 + r.nextInt(n)), sparse);
      double w = r.nextInt(7);
      chunk.addEdge(s, d, w);
      if (s != d) {
        expected.merge(((long) s << 32) | d, w, Math::min);
      }
    }
    int isolated = id(n + 5, sparse);
    chunk.addVertex(isolated);
    LocalGraph g = LocalGraph.build(0, 1, chunk, false);
    int[] degree = new int[g.size()];
    Map<Long, Double> actual = new TreeMap<>();
    for (int v = 0; v < g.size(); v++) {
      assertThat(g.local(g.globalIds[v])).isEqualTo(v);
      for (int e = g.offsets[v]; e < g.offsets[v + 1]; e++) {
        actual.put(((long) g.globalIds[v] << 32) | g.globalIds[g.targets()[e]], g.weights()[e]);
      }
    }
    assertThat(actual).isEqualTo(expected);
    assertThat(g.local(isolated)).isEqualTo(g.size() - 1);
    assertThat(g.local(id(n + 6, sparse))).isEqualTo(-1);
    assertThat(g.sortedGlobalIds()).isSorted().hasSize(g.size());
    // Degrees of the input (self-loops and duplicates included) never increase with the local id.
    for (int i = 0; i < chunk.size(); i++) {
      degree[g.local(chunk.src[i])]++;
      degree[g.local(chunk.dst[i])]++;
    }
    for (int v = 1; v < g.size(); v++) {
      assertThat(degree[v]).as("degree of local %d", v).isLessThanOrEqualTo(degree[v - 1]);
      if (degree[v] == degree[v - 1]) {
        assertThat(g.globalIds[v]).isGreaterThan(g.globalIds[v - 1]);
      }
    }
  }

  /** Numbered by input, local ids follow the global ids and the edges are the same. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void buildByInputKeepsTheGlobalOrder(boolean sparse) {
    SplittableRandom r = new SplittableRandom(sparse ? 3 : 4);
    EdgeChunk chunk = new EdgeChunk(true);
    for (int i = 0; i < 500; i++) {
      chunk.addEdge(id(r.nextInt(80), sparse), id(r.nextInt(80), sparse), r.nextInt(5));
    }
    LocalGraph byInput = LocalGraph.build(0, 1, chunk, true, false);
    LocalGraph byDegree = LocalGraph.build(0, 1, chunk, true, true);
    assertThat(byInput.globalIds).isSorted().isEqualTo(byDegree.sortedGlobalIds());
    assertThat(edges(byInput)).isEqualTo(edges(byDegree));
    for (int v = 0; v < byInput.size(); v++) {
      assertThat(byInput.local(byInput.globalIds[v])).isEqualTo(v);
    }
  }

  private static Map<Long, Double> edges(LocalGraph g) {
    Map<Long, Double> out = new TreeMap<>();
    for (int v = 0; v < g.size(); v++) {
      for (int e = g.offsets[v]; e < g.offsets[v + 1]; e++) {
        out.put(((long) g.globalIds[v] << 32) | g.globalIds[g.targets()[e]], g.weights()[e]);
      }
    }
    return out;
  }

  private static int id(int v, boolean sparse) {
    return sparse ? v * 1_000_003 : v;
  }
}
