package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A growable partition's keys against a plain map, through adds and releases: dense keys (a
 * direct table, widened both ways), keys that spread (the switch to a map), and the free list.
 */
class KeySlotsTest {
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  void addsAndReleasesMatchAMap(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int n = 200;
    long[] sorted = new long[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = 1_000 + 2L * i;
    }
    KeySlots slots = KeySlots.of(sorted, true);
    Map<Long, Integer> model = new HashMap<>();
    for (int i = 0; i < n; i++) {
      model.put(sorted[i], i);
    }
    Set<Integer> used = new HashSet<>(model.values());
    for (int step = 0; step < 20_000; step++) {
      int op = rnd.nextInt(10);
      if (op < 5) {
        // Mostly keys near the range (below and above it), some far away after a while.
        long key = step > 15_000 && rnd.nextInt(50) == 0 ? rnd.nextLong()
            : 500 + rnd.nextInt(3_000);
        if (!model.containsKey(key)) {
          int slot = slots.add(key);
          assertThat(used.add(slot)).as("slot %d given twice", slot).isTrue();
          model.put(key, slot);
        }
      } else if (op < 7 && !model.isEmpty()) {
        List<Long> keys = new ArrayList<>(model.keySet());
        long key = keys.get(rnd.nextInt(keys.size()));
        int slot = model.remove(key);
        slots.release(slot);
        used.remove(slot);
      } else {
        long key = 400 + rnd.nextInt(3_300);
        assertThat(slots.local(key)).as("key %d", key).isEqualTo(model.getOrDefault(key, -1));
      }
    }
    model.forEach((k, v) -> {
      assertThat(slots.local(k)).isEqualTo(v);
      assertThat(slots.holds(v)).isTrue();
      assertThat(slots.keyAt(v)).isEqualTo(k);
    });
    assertThat(slots.count()).isEqualTo(model.size());
  }

  @ParameterizedTest(name = "{0} keys first")
  @ValueSource(ints = {0, 1, 10_000})
  void idsHandedOutInOrderStayDense(int n) {
    long[] sorted = new long[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = i;
    }
    KeySlots slots = KeySlots.of(sorted, true);
    for (long k = n; k < n + 50_000; k++) {
      assertThat(slots.add(k)).isEqualTo((int) k);
    }
    for (long k = 0; k < n + 50_000; k++) {
      assertThat(slots.local(k)).isEqualTo((int) k);
    }
    assertThat(slots.local(-1)).isEqualTo(-1);
    assertThat(slots.local(n + 50_000)).isEqualTo(-1);
  }
}
