package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryLoopsTest {
  @Test
  void aSetRetriesInPlaceUntilABatchAbortsHalfItsAttempts() {
    RetryLoops loops = new RetryLoops();
    assertThat(loops.semantic("a")).isFalse();
    assertThat(loops.note("a", false, 0.49, 100)).isFalse();
    assertThat(loops.semantic("a")).isFalse();
    assertThat(loops.note("a", false, 0.5, 100)).as("tries the other loop").isTrue();
    assertThat(loops.semantic("a")).isTrue();
    assertThat(loops.semantic("b")).as("another set").isFalse();
  }

  @Test
  void aContendedSetKeepsTheLoopThatCommittedFaster() {
    RetryLoops semanticWins = new RetryLoops();
    semanticWins.note("k", false, 0.94, 100);
    assertThat(semanticWins.note("k", true, 0.94, 160)).isFalse();
    assertThat(semanticWins.semantic("k")).isTrue();
    assertThat(semanticWins.note("k", true, 0.93, 150)).isFalse();
    assertThat(semanticWins.semantic("k")).isTrue();
    // The loop it stayed in slowed below the other's last rate: back to the other.
    assertThat(semanticWins.note("k", true, 0.93, 90)).isTrue();
    assertThat(semanticWins.semantic("k")).isFalse();

    RetryLoops inPlaceWins = new RetryLoops();
    inPlaceWins.note("q", false, 0.91, 108);
    assertThat(inPlaceWins.note("q", true, 0.91, 87)).as("back in place").isTrue();
    assertThat(inPlaceWins.semantic("q")).isFalse();
  }

  @Test
  void aBatchUnderAQuarterSendsTheSetBackInPlaceAndForgetsTheRates() {
    RetryLoops loops = new RetryLoops();
    loops.note("a", false, 0.9, 100);
    assertThat(loops.semantic("a")).isTrue();
    assertThat(loops.note("a", true, 0.3, 50)).as("between the thresholds").isFalse();
    assertThat(loops.semantic("a")).isTrue();
    assertThat(loops.note("a", true, 0.1, 500)).isTrue();
    assertThat(loops.semantic("a")).isFalse();
    assertThat(loops.note("a", false, 0.9, 100)).as("tries the other loop again").isTrue();
  }
}
