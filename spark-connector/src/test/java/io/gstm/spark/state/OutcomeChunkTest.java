package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.program.ValueType;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An output's bits converted to its column's type as the boxed numbers convert; an epoch's
 * outcome codes counted as a plain loop counts them.
 */
class OutcomeChunkTest {
  /** Lengths around the parallel slices' edges, odd tails, one code nearly everywhere. */
  @ParameterizedTest(name = "n = {0}")
  @ValueSource(ints = {0, 1, 3, 7, 262_143, 262_147, 524_288, 1_000_003})
  void everyCodeIsCountedAsAPlainLoopCountsIt(int n) {
    SplittableRandom rnd = new SplittableRandom(n);
    byte[] codes = new byte[n + 5];
    for (int i = 0; i < codes.length; i++) {
      codes[i] = (byte) (rnd.nextInt(10) == 0 ? rnd.nextInt(128) : 1);
    }
    long[] want = new long[128];
    for (int i = 0; i < n; i++) {
      want[codes[i]]++;
    }
    assertThat(OutcomeChunk.countCodes(codes, n)).containsExactly(want);
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {7, 8, 9})
  void anOutputConvertsAsItsBoxedNumberDoes(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    ValueType[] numeric = {ValueType.INT32, ValueType.INT64, ValueType.FLOAT32,
        ValueType.FLOAT64};
    for (int i = 0; i < 20_000; i++) {
      ValueType from = numeric[rnd.nextInt(4)];
      ValueType to = numeric[rnd.nextInt(4)];
      long bits = switch (from) {
        case INT32 -> rnd.nextInt();
        case INT64 -> rnd.nextLong();
        case FLOAT32 -> Float.floatToRawIntBits(i % 7 == 0 ? Float.NaN
            : (float) (rnd.nextDouble() - 0.5) * (float) Math.pow(10, rnd.nextInt(20)));
        default -> Double.doubleToRawLongBits(i % 7 == 0 ? Double.NEGATIVE_INFINITY
            : (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(40)));
      };
      long boxed = to.bits((Number) from.box(bits));
      assertThat(OutcomeChunk.convert(from, to, bits)).as("%s %x to %s", from, bits, to)
          .isEqualTo(boxed);
    }
  }
}
