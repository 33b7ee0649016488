package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gstm.core.kmeans.KMeansPartial;

/** The comparison of k-means partials that the engines' and the connector's tests share. */
public final class KMeansChecks {
  private KMeansChecks() {}

  /** Equal counts, and sums and cost within 1e-9 relative (absolute below 1). */
  public static void assertMatches(KMeansPartial actual, KMeansPartial expected) {
    assertThat(actual.counts()).isEqualTo(expected.counts());
    for (int i = 0; i < expected.sums().length; i++) {
      assertThat(actual.sums()[i]).isCloseTo(expected.sums()[i],
          within(1e-9 * Math.max(1, Math.abs(expected.sums()[i]))));
    }
    assertThat(actual.cost()).isCloseTo(expected.cost(),
        within(1e-9 * Math.max(1, expected.cost())));
  }
}
