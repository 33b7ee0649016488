package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryLoopsTest {
  @Test
  void aSetRetriesInPlaceUntilABatchAbortsHalfItsAttempts() {
    RetryLoops loops = new RetryLoops();
    assertThat(loops.semantic("a")).isFalse();
    assertThat(loops.note("a", 0.49)).isFalse();
    assertThat(loops.semantic("a")).isFalse();
    assertThat(loops.note("a", 0.5)).isTrue();
    assertThat(loops.semantic("a")).isTrue();
    assertThat(loops.semantic("b")).as("another set").isFalse();
  }

  @Test
  void aContendedSetGoesBackInPlaceOnlyWhenABatchAbortsUnderAQuarter() {
    RetryLoops loops = new RetryLoops();
    loops.note("a", 0.93);
    assertThat(loops.note("a", 0.93)).as("already there").isFalse();
    assertThat(loops.note("a", 0.3)).isFalse();
    assertThat(loops.semantic("a")).as("between the thresholds: unchanged").isTrue();
    assertThat(loops.note("a", 0.1)).isTrue();
    assertThat(loops.semantic("a")).isFalse();
    assertThat(loops.note("a", 0.3)).isFalse();
    assertThat(loops.semantic("a")).as("between the thresholds: unchanged").isFalse();
  }
}
