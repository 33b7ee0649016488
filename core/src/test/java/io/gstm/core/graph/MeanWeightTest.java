package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The bucket width's mean weight, summed in blocks on all cores. */
class MeanWeightTest {
  @Test
  void wholeWeightsAcrossBlocksGiveTheExactMean() {
    SplittableRandom r = new SplittableRandom(5);
    double[] w = new double[(1 << 20) * 3 + 17];
    long sum = 0;
    for (int i = 0; i < w.length; i++) {
      w[i] = 1 + r.nextInt(100);
      sum += (long) w[i];
    }
    assertThat(GraphRelaxer.meanWeight(w)).isEqualTo((double) sum / w.length);
    assertThat(GraphRelaxer.meanWeight(w)).isEqualTo(GraphRelaxer.meanWeight(w.clone()));
  }

  @Test
  void noWeightOrOnlyZerosGiveOne() {
    assertThat(GraphRelaxer.meanWeight(new double[0])).isEqualTo(1.0);
    assertThat(GraphRelaxer.meanWeight(new double[] {0, 0, 0})).isEqualTo(1.0);
    assertThat(GraphRelaxer.meanWeight(new double[] {2, 4})).isEqualTo(3.0);
  }
}
