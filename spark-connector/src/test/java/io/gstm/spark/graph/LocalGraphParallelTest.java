package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parallel build of a subgraph over a list of chunks ({@link ParallelBuild}, {@link
 * ParallelCsr}) gives exactly the sequential build's arrays over the chunks copied into one:
 * skewed sources with hubs (out-degrees past the small-degree compaction), duplicates with
 * different and equal weights (0.0 and -0.0 among them), self-loops, extra vertices, chunks of
 * uneven sizes, directed and undirected, numbered by degree or by global id. The thresholds are
 * lowered so that small graphs take the parallel path in many pieces.
 */
class LocalGraphParallelTest {
  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
  void parallelBuildEqualsTheSequentialBuild(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    // Vertex counts on both sides of ParallelCsr's 2048 ranges of one vertex each.
    int n = 2 + r.nextInt(seed % 3 == 0 ? 100_000 : 3000);
    int m = 1 + r.nextInt(40_000);
    boolean weighted = seed % 4 != 1;
    List<EdgeChunk> chunks = chunks(r, n, m, weighted);
    int piece = 1 + r.nextInt(5000);
    for (boolean undirected : new boolean[] {false, true}) {
      for (boolean byDegree : new boolean[] {false, true}) {
        LocalGraph expected = sequential(chunks, weighted, undirected, byDegree);
        LocalGraph actual = ParallelBuild.build(0, 1, chunks, weighted, undirected, byDegree,
            piece);
        assertThat(actual).as("dense ids take the parallel path").isNotNull();
        assertSame(actual, expected, "undirected " + undirected + ", byDegree " + byDegree);
      }
    }
  }

  /**
   * Edges all self-loops, or none but bare vertex ids: no group keeps an edge (the result arrays
   * are still allocated, weighted or not); and a graph without duplicates, where every group
   * keeps all its edges.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void noEdgesKeptAndNoDuplicates(boolean weighted) {
    EdgeChunk loops = new EdgeChunk(weighted);
    EdgeChunk simple = new EdgeChunk(weighted);
    for (int v = 0; v < 5000; v++) {
      loops.addEdge(v, v, 1);
      simple.addEdge(v, (v * 7 + 1) % 5000, v % 3);
      simple.addEdge(v, (v * 11 + 2) % 5000, 0);
    }
    EdgeChunk ids = new EdgeChunk(weighted);
    ids.addVertex(3);
    ids.addVertex(12_345);
    for (List<EdgeChunk> chunks : List.of(List.of(loops, ids), List.of(ids), List.of(simple))) {
      for (boolean undirected : new boolean[] {false, true}) {
        LocalGraph expected = sequential(chunks, weighted, undirected, false);
        LocalGraph actual = ParallelBuild.build(0, 1, chunks, weighted, undirected, false, 700);
        assertSame(actual, expected, chunks.size() + " chunks, undirected " + undirected);
      }
    }
  }

  /** Below the threshold, and with sparse ids, the list build is the sequential one. */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void listBuildAcrossTheThresholdAndSparseIds(boolean sparse) {
    SplittableRandom r = new SplittableRandom(sparse ? 21 : 22);
    List<EdgeChunk> chunks = new ArrayList<>();
    for (int k = 0; k < 5; k++) {
      EdgeChunk c = new EdgeChunk(true);
      for (int i = r.nextInt(3000); i > 0; i--) {
        int s = r.nextInt(1 + r.nextInt(500));
        c.addEdge(sparse ? s * 1_000_003 : s, sparse ? r.nextInt(500) * 1_000_003
            : r.nextInt(500), r.nextInt(4));
      }
      chunks.add(c);
    }
    int m = chunks.stream().mapToInt(EdgeChunk::size).sum();
    if (sparse) {
      assertThat(ParallelBuild.build(0, 1, chunks, true, false, false, 100)).isNull();
    }
    for (int threshold : new int[] {m, m + 1, 1}) {
      LocalGraph actual = LocalGraph.build(0, 1, chunks, false, false, threshold, 100);
      assertSame(actual, sequential(chunks, true, false, false), "threshold " + threshold);
    }
  }

  /** The list build's default entry point, for a graph past the threshold in one chunk. */
  @Test
  void largeGraphAtTheDefaultThreshold() {
    SplittableRandom r = new SplittableRandom(99);
    List<EdgeChunk> chunks = chunks(r, 1 << 16, ParallelBuild.MIN_EDGES + 1000, true);
    LocalGraph actual = LocalGraph.build(0, 1, chunks, false, false);
    assertSame(actual, sequential(chunks, true, false, false), "default threshold");
  }

  /**
   * A CSR built elsewhere ({@link DeviceCsrBuild} on the GPU: {@code CudaCsrBuild.fromParts},
   * whose arrays are those of {@code CsrGraph.fromEdges} over the mapped edges, and
   * {@code fromPartsNumbered}, which numbers the ids too, as GPU tests check) gets the chunks as
   * read and the numbering's table, or numbers them itself when the numbering goes by global id:
   * modelled here on the host, the subgraph is the host build's, each vertex's edges sorted by
   * target.
   */
  @ParameterizedTest
  @ValueSource(longs = {31, 32, 33, 34})
  void aCsrBuiltFromTheChunksAndTheTableIsTheSameGraph(long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = 2 + r.nextInt(seed % 2 == 0 ? 100_000 : 3000);
    boolean weighted = seed != 33;
    List<EdgeChunk> chunks = chunks(r, n, 1 + r.nextInt(40_000), weighted);
    ParallelBuild.CsrBuilder model = new DeviceModel();
    for (boolean undirected : new boolean[] {false, true}) {
      for (boolean byDegree : new boolean[] {false, true}) {
        String what = "undirected " + undirected + ", byDegree " + byDegree;
        LocalGraph host = ParallelBuild.build(0, 1, chunks, weighted, undirected, byDegree, 997);
        LocalGraph built = ParallelBuild.build(0, 1, chunks, weighted, undirected, byDegree,
            997, model);
        assertThat(built.globalIds).as("globalIds, %s", what).isEqualTo(host.globalIds);
        assertThat(built.offsets).as("offsets, %s", what).isEqualTo(host.offsets);
        for (int v = 0; v < host.size(); v++) {
          assertThat(edges(built, v)).as("edges of %d, %s", v, what)
              .isEqualTo(edges(host, v));
        }
      }
    }
  }

  /**
   * The device build's contract on the host: the mapped edges' {@code CsrGraph.fromEdges} (its
   * {@code undirected()}), and a numbering of the present ids in ascending order.
   */
  private static final class DeviceModel implements ParallelBuild.CsrBuilder {
    @Override
    public io.gstm.core.graph.CsrGraph build(int vertices, int[] table, List<EdgeChunk> cs,
        boolean w, boolean undirected) {
      EdgeChunk all = EdgeChunk.concat(cs, w);
      int m = all.size();
      int[] s = new int[m];
      int[] d = new int[m];
      for (int i = 0; i < m; i++) {
        s[i] = table[all.src[i]];
        d[i] = table[all.dst[i]];
      }
      io.gstm.core.graph.CsrGraph g = io.gstm.core.graph.CsrGraph.fromEdges(vertices, s, d,
          w ? Arrays.copyOf(all.w, m) : null);
      return undirected ? g.undirected() : g;
    }

    @Override
    public ParallelBuild.Numbered buildNumbered(int idBound, List<EdgeChunk> cs, boolean w,
        boolean undirected) {
      EdgeChunk all = EdgeChunk.concat(cs, w);
      int[] table = new int[idBound];
      for (int i = 0; i < all.size(); i++) {
        table[all.src[i]] = 1;
        table[all.dst[i]] = 1;
      }
      for (int i = 0; i < all.vertexCount(); i++) {
        table[all.vertices[i]] = 1;
      }
      int[] ids = java.util.stream.IntStream.range(0, idBound).filter(v -> table[v] != 0)
          .toArray();
      for (int k = 0; k < ids.length; k++) {
        table[ids[k]] = k;
      }
      return new ParallelBuild.Numbered(build(ids.length, table, cs, w, undirected), ids, null);
    }
  }

  /** Vertex v's out-edges as "target:weight", sorted (as strings: any order both sides share). */
  private static List<String> edges(LocalGraph g, int v) {
    List<String> out = new ArrayList<>();
    for (int e = g.offsets[v]; e < g.offsets[v + 1]; e++) {
      // 0.0 and -0.0 are equal weights: either may be kept of two duplicates.
      out.add(g.targets()[e] + ":" + (g.weights() == null ? "" : g.weights()[e] + 0.0));
    }
    out.sort(null);
    return out;
  }

  private static LocalGraph sequential(List<EdgeChunk> chunks, boolean weighted,
      boolean undirected, boolean byDegree) {
    return LocalGraph.build(0, 1, EdgeChunk.concat(chunks, weighted), undirected, byDegree);
  }

  private static void assertSame(LocalGraph actual, LocalGraph expected, String what) {
    assertThat(actual.globalIds).as("globalIds, %s", what).isEqualTo(expected.globalIds);
    int[] ids = expected.sortedGlobalIds();
    assertThat(actual.sortedGlobalIds()).as("sortedIds, %s", what).isEqualTo(ids);
    int[] sortedLocal = Arrays.stream(ids).map(expected::local).toArray();
    assertThat(Arrays.stream(ids).map(actual::local).toArray()).as("sortedLocal, %s", what)
        .isEqualTo(sortedLocal);
    assertThat(actual.offsets).as("offsets, %s", what).isEqualTo(expected.offsets);
    assertThat(actual.targets()).as("targets, %s", what).isEqualTo(expected.targets());
    assertThat(actual.weights() == null).as("weighted, %s", what)
        .isEqualTo(expected.weights() == null);
    if (expected.weights() != null) {
      assertThat(bits(actual.weights())).as("weight bits, %s", what)
          .isEqualTo(bits(expected.weights()));
    }
  }

  private static long[] bits(double[] w) {
    return Arrays.stream(w).mapToLong(Double::doubleToRawLongBits).toArray();
  }

  /**
   * {@code m} edges over {@code [0, n)} in chunks of uneven sizes (empty ones among them, some
   * with spare capacity, one of bare vertex ids): hubs, sources skewed towards small ids, repeats
   * of earlier edges, self-loops.
   */
  private static List<EdgeChunk> chunks(SplittableRandom r, int n, int m, boolean weighted) {
    int[] hubs = {0, 1, r.nextInt(n), r.nextInt(n)};
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      int kind = r.nextInt(20);
      if (kind < 3 && i > 0) { // a repeat: equal or other weight
        int j = r.nextInt(i);
        src[i] = src[j];
        dst[i] = dst[j];
        w[i] = r.nextBoolean() ? w[j] : weight(r);
        continue;
      }
      src[i] = kind < 8 ? hubs[r.nextInt(hubs.length)] : r.nextInt(1 + r.nextInt(n));
      dst[i] = kind == 19 ? src[i] : kind < 11 ? hubs[r.nextInt(hubs.length)] : r.nextInt(n);
      w[i] = weight(r);
    }
    List<EdgeChunk> chunks = new ArrayList<>();
    int at = 0;
    while (at < m) {
      int size = r.nextInt(4) == 0 ? 0 : Math.min(m - at, 1 + r.nextInt(1 + m / 3));
      if (r.nextBoolean()) {
        EdgeChunk c = new EdgeChunk(weighted); // grown by doubling: spare capacity
        for (int i = at; i < at + size; i++) {
          c.addEdge(src[i], dst[i], w[i]);
        }
        chunks.add(c);
      } else {
        chunks.add(EdgeChunk.adopt(Arrays.copyOfRange(src, at, at + size),
            Arrays.copyOfRange(dst, at, at + size),
            weighted ? Arrays.copyOfRange(w, at, at + size) : null, "s", "d", "w"));
      }
      if (r.nextInt(3) == 0) {
        chunks.get(chunks.size() - 1).addVertex(r.nextInt(n + 50)); // maybe isolated
      }
      at += size;
    }
    EdgeChunk ids = new EdgeChunk(weighted);
    ids.addVertex(n + 7);
    ids.addVertex(r.nextInt(n));
    chunks.add(r.nextInt(chunks.size() + 1), ids);
    return chunks;
  }

  private static double weight(SplittableRandom r) {
    return r.nextInt(3) == 0 ? (r.nextBoolean() ? 0.0 : -0.0) : r.nextInt(5);
  }
}
