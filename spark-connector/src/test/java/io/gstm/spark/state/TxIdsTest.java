package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An epoch's ids kept as runs of consecutive ids when there are few (the routed array free to
 * reuse), else as the array: every row reads its own id either way.
 */
class TxIdsTest {
  /** Ids in runs: a run per input partition and a few jumps, over several of the passes' slices. */
  @ParameterizedTest(name = "{0} rows")
  @ValueSource(ints = {1, 2, 1_000, 300_001})
  void idsInRunsAreKeptAsRuns(int n) {
    long[] ids = new long[n + 5]; // longer than the rows: a recycled array
    Random random = new Random(n);
    long next = 1L << 40;
    for (int i = 0; i < n; i++) {
      if (n >= 1_000 && random.nextInt(n / 8) == 0) {
        next = random.nextBoolean() ? next + random.nextInt(1_000_000) : random.nextLong() >> 8;
      }
      ids[i] = next++;
    }
    TxIds kept = TxIds.of(ids, n);
    assertThat(kept.holds(ids)).as("kept as runs").isFalse();
    for (int i = 0; i < n; i++) {
      assertThat(kept.get(i)).as("row %d", i).isEqualTo(ids[i]);
    }
  }

  @ParameterizedTest(name = "{0} rows")
  @ValueSource(ints = {64, 300_000})
  void scatteredIdsAreKeptAsTheArray(int n) {
    long[] ids = new Random(n).longs(n).toArray();
    TxIds kept = TxIds.of(ids, n);
    assertThat(kept.holds(ids)).as("the array itself").isTrue();
    long[] longer = java.util.Arrays.copyOf(ids, n + 3);
    TxIds copied = TxIds.of(longer, n);
    assertThat(copied.holds(longer)).as("a copy of the rows").isFalse();
    for (int i = 0; i < n; i++) {
      assertThat(kept.get(i)).isEqualTo(ids[i]);
      assertThat(copied.get(i)).isEqualTo(ids[i]);
    }
  }
}
