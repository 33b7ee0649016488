package io.gstm.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Cederman's backoff functions, their ranges, and how the algorithm carries one. */
class BackoffTest {
  @Test
  void waitsGrowLinearlyOrDoubleUpToTheCap() {
    Backoff lin = Backoff.linear(100, 450);
    assertThat(new long[] {lin.delayNanos(0), lin.delayNanos(1), lin.delayNanos(2),
        lin.delayNanos(4), lin.delayNanos(5), lin.delayNanos(1_000_000)})
        .containsExactly(0, 100, 200, 400, 450, 450);
    Backoff exp = Backoff.exponential(64, 1000);
    assertThat(new long[] {exp.delayNanos(1), exp.delayNanos(2), exp.delayNanos(4),
        exp.delayNanos(5), exp.delayNanos(Integer.MAX_VALUE)})
        .containsExactly(64, 128, 512, 1000, 1000);
    assertThat(Backoff.none().delayNanos(7)).isZero();
  }

  @Test
  void outOfRangeValuesNameTheParameterAndTheLimit() {
    assertThatThrownBy(() -> Backoff.linear(0, 10)).hasMessage(
        "backoff unit must be in 1..100000 ns, got 0");
    assertThatThrownBy(() -> Backoff.exponential(200_000, 300_000)).hasMessage(
        "backoff unit must be in 1..100000 ns, got 200000");
    assertThatThrownBy(() -> Backoff.linear(10, 5)).hasMessage(
        "backoff max must be in the unit (10)..1000000 ns, got 5");
    assertThatThrownBy(() -> Backoff.linear(10, 2_000_000)).hasMessage(
        "backoff max must be in the unit (10)..1000000 ns, got 2000000");
    assertThatThrownBy(() -> Backoff.parse("backoff", "none:1:2"))
        .hasMessageStartingWith("backoff: a backoff is none, linear or exponential");
  }

  @Test
  void labelsParseBack() {
    for (Backoff b : new Backoff[] {Backoff.none(), Backoff.defaults(), Backoff.linear(64, 8192),
        Backoff.linear(3, 30), Backoff.exponential(100, 20_000)}) {
      assertThat(Backoff.parse("backoff", b.label())).isEqualTo(b);
    }
    assertThat(Backoff.defaults().label()).isEqualTo("exponential");
    assertThat(Backoff.linear(3, 30).label()).isEqualTo("linear:3:30");
  }

  @Test
  void onlyTheCedermanStmsTakeABackoff() {
    assertThat(Algorithm.blocking().backoff()).isEqualTo(Backoff.defaults());
    assertThat(Algorithm.obstructionFree().withBackoff(Backoff.none()).label())
        .isEqualTo("obstruction-free:none");
    assertThat(Algorithm.blocking().label()).isEqualTo("blocking");
    assertThat(Algorithm.prStm().backoff()).isNull();
    assertThatThrownBy(() -> Algorithm.prStm().withBackoff(Backoff.none()))
        .hasMessageContaining("backoff: only the blocking and obstruction-free STMs");
    assertThatThrownBy(() -> Algorithm.blocking().withBackoff(null))
        .hasMessageContaining("backoff must not be null");
  }
}
