package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The host's listing of a GPU run's changed bits, against a plain pass over every vertex. */
class ChangedVerticesTest {
  @ParameterizedTest(name = "{0} vertices, density {1}, seed {2}")
  @CsvSource({"0, 0.5, 1", "1, 1.0, 2", "31, 0.5, 3", "33, 1.0, 4", "1000, 0.01, 5",
      "524289, 0.3, 6", "1048576, 1.0, 7", "1048607, 0.0, 8"})
  void listsTheSetBitsInOrder(int n, double density, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] words = new int[(n + 31) / 32];
    boolean[] set = new boolean[n];
    for (int v = 0; v < n; v++) {
      if (rnd.nextDouble() < density) {
        set[v] = true;
        words[v >> 5] |= 1 << (v & 31);
      }
    }
    // Bits past the last vertex (a word's tail) are not vertices.
    if (n % 32 != 0) {
      words[words.length - 1] |= -1 << (n % 32);
    }
    int[] expected = IntStream.range(0, n).filter(v -> set[v]).toArray();
    assertThat(ChangedVertices.fromBits(words, n)).isEqualTo(expected);
  }
}
