package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The host's half of the union-find's sample: the most common root, ties to the lowest. */
class CudaComponentsSampleTest {
  @Test
  void theMostCommonRootIsSkipped() {
    assertThat(CudaComponents.mostCommon(new int[] {7, 3, 7, 9, 3, 7})).isEqualTo(7);
    assertThat(CudaComponents.mostCommon(new int[] {9, 4, 9, 4})).isEqualTo(4);
    assertThat(CudaComponents.mostCommon(new int[] {5})).isEqualTo(5);
  }

  @Test
  void noSampleSkipsNothing() {
    assertThat(CudaComponents.mostCommon(new int[0])).isEqualTo(-1);
  }
}
