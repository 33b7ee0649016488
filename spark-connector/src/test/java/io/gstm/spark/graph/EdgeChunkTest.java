package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A chunk's largest id and weights' sum, kept as it fills (a subgraph's build reads them instead
 * of scanning its edges): equal to a scan of its arrays whichever way it was filled (adopted
 * columns, edges added one by one, bare vertices, chunks concatenated, serialized), and a bad
 * value still refused by name.
 */
class EdgeChunkTest {
  private static int scannedMax(EdgeChunk c) {
    int max = -1;
    for (int i = 0; i < c.size(); i++) {
      max = Math.max(max, Math.max(c.src[i], c.dst[i]));
    }
    for (int i = 0; i < c.vertexCount(); i++) {
      max = Math.max(max, c.vertices[i]);
    }
    return max;
  }

  private static double scannedSum(EdgeChunk c) {
    double sum = 0;
    for (int i = 0; c.w != null && i < c.size(); i++) {
      sum += c.w[i];
    }
    return sum;
  }

  private static EdgeChunk adopted(SplittableRandom r, int n, int bound) {
    int[] s = new int[n];
    int[] d = new int[n];
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      s[i] = r.nextInt(bound);
      d[i] = r.nextInt(bound);
      w[i] = r.nextInt(1, 100);
    }
    return EdgeChunk.adopt(s, d, w, "src", "dst", "w");
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  void theLargestIdAndTheWeightsSumEqualAScan(long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    EdgeChunk a = adopted(r, 1 + r.nextInt(5000), 1 + r.nextInt(1 << 20));
    assertThat(a.maxId()).isEqualTo(scannedMax(a));
    assertThat(a.weightSum()).isEqualTo(scannedSum(a));

    EdgeChunk b = new EdgeChunk(true);
    for (int i = r.nextInt(3000); i > 0; i--) {
      b.addEdge(r.nextInt(1 << 16), r.nextInt(1 << 16), r.nextInt(1, 100));
    }
    b.addVertex(r.nextInt(1 << 22)); // a bare vertex may be the largest
    assertThat(b.maxId()).isEqualTo(scannedMax(b));
    assertThat(b.weightSum()).isEqualTo(scannedSum(b));

    EdgeChunk all = EdgeChunk.concat(List.of(a, b, new EdgeChunk(true)), true);
    assertThat(all.maxId()).isEqualTo(Math.max(a.maxId(), b.maxId()));
    assertThat(all.weightSum()).isEqualTo(a.weightSum() + b.weightSum());
    assertThat(EdgeChunk.concat(List.of(a, b), false).weightSum()).isZero();

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(all.trim());
    }
    EdgeChunk back;
    try (ObjectInputStream in = new ObjectInputStream(
        new ByteArrayInputStream(bytes.toByteArray()))) {
      back = (EdgeChunk) in.readObject();
    }
    assertThat(back.maxId()).isEqualTo(all.maxId());
    assertThat(back.weightSum()).isEqualTo(all.weightSum());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"empty", "unweighted"})
  void aChunkWithoutWeightsOrEdges(String which) {
    EdgeChunk c = new EdgeChunk(false);
    if (which.equals("unweighted")) {
      c.addEdge(7, 3, 1.0);
    }
    assertThat(c.maxId()).isEqualTo(which.equals("empty") ? -1 : 7);
    assertThat(c.weightSum()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"id", "weight"})
  void aBadValueIsStillRefusedByName(String bad) {
    int[] s = {1, bad.equals("id") ? -4 : 2};
    double[] w = {1, bad.equals("weight") ? Double.NaN : 2};
    assertThatThrownBy(() -> EdgeChunk.adopt(s, new int[] {0, 0}, w, "from", "to", "cost"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(bad.equals("id") ? "from" : "cost");
  }
}
