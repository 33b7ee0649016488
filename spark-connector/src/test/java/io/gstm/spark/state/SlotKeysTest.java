package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Slot keys past the creation's own array, in pages: against a plain array through writes,
 * frees and reuse on both sides of the boundary and across pages, with room reserved ahead in
 * steps of every size (one slot, part of a page, many pages at once).
 */
class SlotKeysTest {
  @ParameterizedTest(name = "{0} keys first")
  @ValueSource(ints = {0, 1, 1_000, SlotKeys.PAGE + 7})
  void matchesAPlainArrayThroughGrowthFreesAndReuse(int n) {
    SplittableRandom rnd = new SplittableRandom(n);
    long[] sorted = new long[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = 3L * i;
    }
    SlotKeys keys = new SlotKeys(sorted, true);
    int most = n + 9 * SlotKeys.PAGE + 123;
    long[] model = new long[most];
    boolean[] free = new boolean[most];
    System.arraycopy(sorted, 0, model, 0, n);
    int limit = n;
    while (limit < most) {
      int step = switch (rnd.nextInt(3)) {
        case 0 -> 1;
        case 1 -> 1 + rnd.nextInt(SlotKeys.PAGE);
        default -> 1 + rnd.nextInt(4 * SlotKeys.PAGE);
      };
      int to = Math.min(most, limit + step);
      if (rnd.nextBoolean()) {
        keys.reserve(to); // as a batch's new keys announce their count first
        assertThat(keys.capacity()).isGreaterThanOrEqualTo(to);
      }
      for (; limit < to; limit++) {
        long key = rnd.nextLong();
        keys.set(limit, key);
        model[limit] = key;
      }
      for (int k = 0; k < 200; k++) {
        int slot = rnd.nextInt(limit);
        if (rnd.nextBoolean()) {
          keys.free(slot);
          free[slot] = true;
        } else if (free[slot]) {
          long key = rnd.nextLong();
          keys.set(slot, key); // a freed slot taken again
          model[slot] = key;
          free[slot] = false;
        }
      }
    }
    for (int s = 0; s < most; s++) {
      assertThat(keys.get(s)).as("slot %d", s).isEqualTo(model[s]);
      assertThat(keys.isFree(s)).as("slot %d", s).isEqualTo(free[s]);
    }
  }

  /** The creation's keys are not copied; a fixed state's slots are never free. */
  @Test
  void theCreationsArrayIsKeptAndAFixedStatesSlotsAreInUse() {
    long[] sorted = {5, 7, 11};
    SlotKeys fixed = new SlotKeys(sorted, false);
    assertThat(fixed.get(2)).isEqualTo(11);
    assertThat(fixed.isFree(1)).isFalse();
    SlotKeys growable = new SlotKeys(sorted, true);
    growable.set(1, 8);
    assertThat(sorted[1]).isEqualTo(8);
    assertThat(growable.capacity()).isEqualTo(3);
    growable.set(3, 13);
    assertThat(growable.capacity()).isEqualTo(3 + SlotKeys.PAGE);
  }
}
