package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CudaCsrBuild#fromPartsNumbered}: the device numbers the ids present (edge ends and
 * extra ids below the bound) in ascending order and builds the CSR of the edges so mapped, the
 * host build's arrays for them; ids outside the bound are named.
 */
@EnabledIfGpu
class CudaCsrNumberingTest {
  private static CudaEngine gpu;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
  }

  @AfterAll
  static void close() {
    gpu.close();
  }

  @ParameterizedTest(name = "bound {0}, {1} edges in {2} parts, weighted {3}, undirected {4}")
  @CsvSource({"10, 30, 2, true, false", "100000, 400000, 5, true, true",
      "3000000, 2000000, 3, false, false", "3000000, 2000000, 4, false, true",
      "5000, 3000000, 1, true, false"})
  void numberedOnTheDeviceAsOnTheHost(int bound, int m, int partCount, boolean weighted,
      boolean undirected) {
    SplittableRandom r = new SplittableRandom(bound + m);
    // Ids from a third of the range, hubs among them, so that many ids are absent.
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = i % 5 == 0 ? r.nextInt(Math.min(bound, 7)) : 3 * r.nextInt((bound + 2) / 3);
      dst[i] = i % 13 == 0 ? src[i] : 3 * r.nextInt((bound + 2) / 3);
      src[i] = Math.min(src[i], bound - 1);
      dst[i] = Math.min(dst[i], bound - 1);
      w[i] = r.nextInt(10);
    }
    int[] extra = {bound - 1, 1, 1, bound / 2};
    List<CudaCsrBuild.Part> parts = new ArrayList<>();
    for (int k = 0, from = 0; k < partCount; k++) {
      int to = k == partCount - 1 ? m : from + m / partCount;
      parts.add(new CudaCsrBuild.Part(Arrays.copyOfRange(src, from, to + 1 > m ? to : to + 1),
          Arrays.copyOfRange(dst, from, to + 1 > m ? to : to + 1),
          Arrays.copyOfRange(w, from, to + 1 > m ? to : to + 1), to - from));
      from = to;
    }
    int[] table = new int[bound];
    for (int i = 0; i < m; i++) {
      table[src[i]] = 1;
      table[dst[i]] = 1;
    }
    for (int id : extra) {
      table[id] = 1;
    }
    int[] ids = IntStream.range(0, bound).filter(v -> table[v] != 0).toArray();
    for (int k = 0; k < ids.length; k++) {
      table[ids[k]] = k;
    }
    int[] ms = new int[m];
    int[] md = new int[m];
    for (int i = 0; i < m; i++) {
      ms[i] = table[src[i]];
      md[i] = table[dst[i]];
    }
    CsrGraph expected = CsrGraph.fromEdges(ids.length, ms, md, weighted ? w : null);
    if (undirected) {
      expected = expected.undirected();
    }
    CudaCsrBuild.Numbered built =
        CudaCsrBuild.fromPartsNumbered(gpu, bound, parts, extra, weighted, undirected);
    assertThat(built.ids()).isEqualTo(ids);
    CudaCsrBuildTest.assertSame(built.built().graph(), expected);
  }

  @Test
  void noEdgesNumbersTheExtraIds() {
    List<CudaCsrBuild.Part> none =
        List.of(new CudaCsrBuild.Part(new int[0], new int[0], null, 0));
    CudaCsrBuild.Numbered built =
        CudaCsrBuild.fromPartsNumbered(gpu, 10, none, new int[] {7, 2, 7}, false, true);
    assertThat(built.ids()).containsExactly(2, 7);
    assertThat(built.built().graph().vertexCount()).isEqualTo(2);
    assertThat(built.built().graph().edgeCount()).isZero();
  }

  @Test
  void idsOutsideTheBoundAreNamed() {
    List<CudaCsrBuild.Part> parts = List.of(
        new CudaCsrBuild.Part(new int[] {0, 1}, new int[] {1, 2}, null, 2),
        new CudaCsrBuild.Part(new int[] {2, 5}, new int[] {-1, 1}, null, 2));
    assertThatThrownBy(() -> CudaCsrBuild.fromPartsNumbered(gpu, 5, parts, new int[0], false,
        false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parts[1] edge 1: source 5 is outside the ids 0..4");
    List<CudaCsrBuild.Part> target = List.of(
        new CudaCsrBuild.Part(new int[] {0, 2}, new int[] {1, -1}, null, 2));
    assertThatThrownBy(() -> CudaCsrBuild.fromPartsNumbered(gpu, 5, target, new int[0], false,
        true)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("parts[0] edge 1: target -1 is outside the ids 0..4");
    List<CudaCsrBuild.Part> fine = List.of(
        new CudaCsrBuild.Part(new int[] {0}, new int[] {1}, null, 1));
    assertThatThrownBy(() -> CudaCsrBuild.fromPartsNumbered(gpu, 5, fine, new int[] {3, 9},
        false, false)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("extraIds[1] = 9 is outside the ids 0..4");
  }
}
