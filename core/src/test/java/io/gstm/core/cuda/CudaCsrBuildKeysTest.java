package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The device build's keys (no GPU needed): a vertex id takes just the bits of the largest id,
 * and the radix sort makes one 8-bit pass per byte of a key's two ids, so a graph of 2^22
 * vertices takes 6 passes, not the 8 of a full 64-bit key.
 */
class CudaCsrBuildKeysTest {
  @ParameterizedTest(name = "{0} vertices: {1} bits an id, {2} passes")
  @CsvSource({"0, 1, 1", "1, 1, 1", "2, 1, 1", "3, 2, 1", "16, 4, 1", "17, 5, 2",
      "4194304, 22, 6", "4194305, 23, 6", "16777216, 24, 6", "16777217, 25, 7",
      "2147483647, 31, 8"})
  void keysHoldTheLargestIdTwice(int vertices, int bits, int passes) {
    assertThat(CudaCsrBuild.idBits(vertices)).isEqualTo(bits);
    assertThat(CudaCsrBuild.passes(vertices)).isEqualTo(passes);
  }
}
