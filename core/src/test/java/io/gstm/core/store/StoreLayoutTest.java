package io.gstm.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Where each region's locks start, and regions that share another's locks a row. */
class StoreLayoutTest {
  private static RegionSpec spec(String name, int length, int coverage) {
    return new RegionSpec(name, RegionType.INT32, length, coverage);
  }

  @Test
  void regionsWithLocksOfTheirOwnFollowEachOther() {
    StoreLayout l = StoreLayout.of(spec("a", 10, 1), spec("b", 10, 4), spec("c", 3, 1));
    assertThat(l.lockBase(0)).isZero();
    assertThat(l.lockBase(1)).isEqualTo(10);
    assertThat(l.lockBase(2)).isEqualTo(13);
    assertThat(l.lockCount()).isEqualTo(16);
    assertThat(l.lockOf(1, 7)).isEqualTo(11);
  }

  @Test
  void aRegionSharingLocksIsGuardedWordForWordByTheOwnersLocks() {
    StoreLayout l = StoreLayout.of(spec("dist", 100, 1), spec("other", 5, 1),
        spec("parent", 100, 1).withLocksOf("dist"), spec("hops", 100, 1).withLocksOf("dist"));
    assertThat(l.lockCount()).isEqualTo(105);
    for (int v = 0; v < 100; v++) {
      assertThat(l.lockOf(2, v)).isEqualTo(l.lockOf(0, v)).isEqualTo(l.lockOf(3, v));
    }
    assertThat(l.lockOf(1, 0)).isEqualTo(100);
    assertThat(l.region(2).lockCount()).isZero();
    assertThat(l).isNotEqualTo(StoreLayout.of(spec("dist", 100, 1), spec("other", 5, 1),
        spec("parent", 100, 1), spec("hops", 100, 1).withLocksOf("dist")));
  }

  @Test
  void sharedLocksKeepTheOwnersCoverage() {
    StoreLayout l = StoreLayout.of(spec("a", 64, 8), spec("b", 64, 8).withLocksOf("a"));
    assertThat(l.lockCount()).isEqualTo(8);
    assertThat(l.lockOf(1, 63)).isEqualTo(l.lockOf(0, 56)).isEqualTo(7);
  }

  @Test
  void aRegionSharesOnlyTheLocksOfAnEarlierOwnerOfItsShape() {
    assertThatThrownBy(() -> StoreLayout.of(spec("a", 10, 1).withLocksOf("b"), spec("b", 10, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("regions[0] ('a'): locksOf 'b' names no earlier region");
    assertThatThrownBy(() -> StoreLayout.of(spec("a", 10, 1), spec("b", 10, 1).withLocksOf("x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("locksOf 'x' names no earlier region")
        .hasMessageContaining("[a]");
    assertThatThrownBy(() -> StoreLayout.of(spec("a", 10, 1), spec("b", 11, 1).withLocksOf("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has length 10 and lockCoverage 1, this region 11 and 1");
    assertThatThrownBy(() -> StoreLayout.of(spec("a", 10, 1), spec("b", 10, 2).withLocksOf("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must have the same");
    assertThatThrownBy(() -> StoreLayout.of(spec("a", 10, 1), spec("b", 10, 1).withLocksOf("a"),
        spec("c", 10, 1).withLocksOf("b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("regions[2] ('c'): locksOf 'b' shares the locks of 'a' itself");
    assertThatThrownBy(() -> spec("a", 10, 1).withLocksOf("a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("region 'a': locksOf must name another region");
  }
}
