package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The paged table against a map, its range widened below and above, across page edges. */
class PagedTableTest {
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void putsRemovesAndWideningsMatchAMap(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    long start = rnd.nextLong(-1_000_000, 1_000_000);
    PagedTable table = new PagedTable(start, start + 10);
    Map<Long, Integer> model = new HashMap<>();
    long lo = start;
    long hi = start + 10;
    for (int step = 0; step < 50_000; step++) {
      int op = rnd.nextInt(10);
      // Keys around the covered range, some a few pages beyond either side.
      long key = lo - 3L * PagedTable.PAGE + rnd.nextLong(hi - lo + 6L * PagedTable.PAGE);
      if (op < 4) {
        table.cover(key, key);
        lo = Math.min(lo, key);
        hi = Math.max(hi, key);
        int v = rnd.nextInt(1 << 30);
        table.put(key, v);
        model.put(key, v);
      } else if (op < 5 && key >= lo && key <= hi) {
        table.remove(key);
        model.remove(key);
      } else if (op < 6) {
        long a = key - rnd.nextInt(3 * PagedTable.PAGE);
        table.cover(a, key);
        table.allocate(a, key);
        lo = Math.min(lo, a);
        hi = Math.max(hi, key);
      } else {
        assertThat(table.get(key)).as("key %d", key).isEqualTo(model.getOrDefault(key, -1));
      }
      assertThat(table.from()).isLessThanOrEqualTo(lo);
      assertThat(table.to()).isGreaterThanOrEqualTo(hi);
    }
    model.forEach((k, v) -> assertThat(table.get(k)).isEqualTo(v));
  }

  @Test
  void idsInOrderWidenTheDirectoryOncePerDoubling() {
    PagedTable table = new PagedTable(0, 0);
    long firstTo = table.to();
    int widenings = 0;
    long last = table.to();
    for (long k = 0; k < 64L * PagedTable.PAGE; k += 97) {
      table.cover(k, k);
      table.put(k, (int) (k & 0xFFFF));
      if (table.to() != last) {
        widenings++;
        last = table.to();
      }
    }
    assertThat(firstTo).isEqualTo(PagedTable.PAGE - 1);
    assertThat(widenings).isEqualTo(6); // 1 page, then 2, 4, ... 64
    assertThat(table.get(97L * 1000)).isEqualTo((int) ((97L * 1000) & 0xFFFF));
    assertThat(table.get(-1)).isEqualTo(-1);
    assertThat(table.get(table.to() + 1)).isEqualTo(-1);
  }
}
