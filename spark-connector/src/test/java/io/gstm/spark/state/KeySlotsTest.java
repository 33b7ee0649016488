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
 * direct table, widened both ways), keys that spread (the switch to a map), a run of consecutive
 * ids (found by their rank, their slots never given back), room reserved ahead, and the free
 * list.
 */
class KeySlotsTest {
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  void addsAndReleasesMatchAMap(long seed) {
    againstAMap(seed, 2, false);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {5, 6, 7, 8})
  void aRunOfIdsKeepsItsSlotsThroughReleasesAndMatchesAMap(long seed) {
    againstAMap(seed, 1, false);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {9, 10, 11})
  void roomReservedAheadMatchesAMap(long seed) {
    againstAMap(seed, 1, true);
    againstAMap(seed, 3, true);
  }

  /**
   * Random adds, releases and lookups on keys created {@code spacing} apart, against a map; with
   * {@code reserve}, some adds come in groups announced by {@link KeySlots#reserve} first.
   */
  private static void againstAMap(long seed, long spacing, boolean reserve) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int n = 200;
    long[] sorted = new long[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = 1_000 + spacing * i;
    }
    KeySlots slots = KeySlots.of(sorted, true);
    Map<Long, Integer> model = new HashMap<>();
    for (int i = 0; i < n; i++) {
      model.put(sorted[i], i);
    }
    Set<Integer> used = new HashSet<>(model.values());
    int run = spacing == 1 ? n : 1;
    for (int step = 0; step < 20_000; step++) {
      if (step == 12_000) {
        // At the state's row limit the run is given up: its ids are found as the others are.
        assertThat(slots.dissolveRun()).isTrue();
        assertThat(slots.dissolveRun()).isFalse();
        run = 0;
      }
      int op = rnd.nextInt(10);
      if (reserve && op == 0) {
        // A group of new keys, announced with their range first (as a batch's new keys are).
        long lo = rnd.nextInt(4_000);
        long hi = lo + rnd.nextInt(2_000);
        int more = 1 + rnd.nextInt(20);
        slots.reserve(more, lo, hi);
        for (int k = 0; k < more; k++) {
          long key = lo + rnd.nextLong(hi - lo + 1);
          if (!model.containsKey(key)) {
            int slot = slots.add(key);
            assertThat(used.add(slot)).as("slot %d given twice", slot).isTrue();
            model.put(key, slot);
          }
        }
      } else if (op < 5) {
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
        int slot = model.get(key);
        if (slots.release(slot)) {
          model.remove(key);
          used.remove(slot);
        } else {
          // A slot of the run of ids the state was created with: its id keeps it.
          assertThat(slot < run && key == 1_000 + slot).as("key %d", key).isTrue();
        }
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

  /**
   * Room reserved for many new ids makes their pages at once; for a few ids spread over a wide
   * range it makes only the pages they land in (memory in proportion to the keys).
   */
  @org.junit.jupiter.api.Test
  void roomForFewKeysOverAWideRangeMakesOnlyTheirPages() {
    int n = 1_000_000;
    long[] sorted = new long[n];
    for (int i = 0; i < n; i++) {
      sorted[i] = 3L * i; // dense, not a run: every key in the table
    }
    KeySlots slots = KeySlots.of(sorted, true);
    int before = slots.tablePages();
    long lo = 3L * n + PagedTable.PAGE; // past the last page the loaded keys fill
    long hi = lo + 40L * PagedTable.PAGE;
    slots.reserve(2, lo, hi);
    slots.add(lo);
    slots.add(hi);
    assertThat(slots.tablePages()).isEqualTo(before + 2);
    assertThat(slots.local(lo)).isEqualTo(n);
    assertThat(slots.local(hi)).isEqualTo(n + 1);
    long many = hi + 1;
    slots.reserve(64 * 5, many, many + 5L * PagedTable.PAGE - 1);
    assertThat(slots.tablePages()).isGreaterThanOrEqualTo(before + 2 + 5);
  }
}
