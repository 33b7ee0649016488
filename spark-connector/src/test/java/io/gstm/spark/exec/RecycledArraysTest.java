package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Arrays given back are handed out again, of the very length asked for, once each. */
class RecycledArraysTest {
  private int bound;

  @BeforeEach
  void lowerTheBound() {
    bound = RecycledArrays.keepFrom(1_000);
  }

  @AfterEach
  void restoreTheBound() {
    RecycledArrays.keepFrom(bound);
  }

  @Test
  void anArrayGivenBackIsTakenAgainOnlyAtItsLength() {
    long[] a = RecycledArrays.longs(5_003);
    RecycledArrays.give(a);
    assertThat(RecycledArrays.longs(5_004)).isNotSameAs(a).hasSize(5_004);
    assertThat(RecycledArrays.longs(5_003)).isSameAs(a);
    assertThat(RecycledArrays.longs(5_003)).as("taken once").isNotSameAs(a);
    int[] i = RecycledArrays.ints(7_001);
    byte[] b = RecycledArrays.bytes(7_001);
    RecycledArrays.give(i);
    RecycledArrays.give(b);
    assertThat(RecycledArrays.ints(7_001)).isSameAs(i);
    assertThat(RecycledArrays.bytes(7_001)).isSameAs(b);
  }

  @Test
  void aKeptArrayIsHandedOutOnlyWhenOneWasGivenBack() {
    assertThat(RecycledArrays.keptLongs(6_007)).isNull();
    long[] a = new long[6_007];
    RecycledArrays.give(a);
    assertThat(RecycledArrays.keptInts(6_007)).as("another kind").isNull();
    assertThat(RecycledArrays.keptLongs(6_007)).isSameAs(a);
    assertThat(RecycledArrays.keptLongs(6_007)).isNull();
    assertThat(RecycledArrays.keptBytes(999)).as("below the bound").isNull();
  }

  @Test
  void smallArraysAreLeftToTheCollector() {
    int[] small = RecycledArrays.ints(999);
    RecycledArrays.give(small);
    assertThat(RecycledArrays.ints(999)).isNotSameAs(small);
  }

  @Test
  void anArrayGivenBackTwiceIsRefused() {
    int[] a = RecycledArrays.ints(9_001);
    RecycledArrays.give(a);
    assertThatThrownBy(() -> RecycledArrays.give(a)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("given back twice");
    assertThat(RecycledArrays.ints(9_001)).isSameAs(a);
  }
}
