package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Arrays allocated together come back whole and zeroed, below and above the parallel size. */
class FreshArraysTest {
  @ParameterizedTest(name = "{0} elements")
  @ValueSource(ints = {0, 1, 1_000, FreshArrays.PARALLEL_ELEMENTS + 3})
  void everyArrayIsMadeOnceAndZeroed(int n) {
    long[][] longs = FreshArrays.longs(3, n);
    int[][] ints = FreshArrays.ints(2, n);
    assertThat(longs).hasNumberOfRows(3);
    for (long[] a : longs) {
      assertThat(a).hasSize(n).containsOnly(n == 0 ? new long[0] : new long[] {0L});
    }
    assertThat(ints).hasNumberOfRows(2);
    for (int[] a : ints) {
      assertThat(a).hasSize(n).containsOnly(n == 0 ? new int[0] : new int[] {0});
    }
    AtomicInteger ran = new AtomicInteger();
    FreshArrays.together(n, ran::incrementAndGet, ran::incrementAndGet, ran::incrementAndGet);
    assertThat(ran).hasValue(3);
  }
}
