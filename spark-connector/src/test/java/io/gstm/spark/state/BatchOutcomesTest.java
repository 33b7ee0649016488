package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ValueType;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The outcomes' passes that replaced a search or a boxed number per row give what those gave:
 * the abort codes of the rare transactions walked with the batch's list, and an output's bits
 * converted to its column's type as the boxed numbers convert.
 */
class BatchOutcomesTest {
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void theRareTransactionsCodesAreThoseASearchFinds(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int m = 1 + rnd.nextInt(400_000); // several slices of the walk
    TreeSet<Integer> aborted = new TreeSet<>();
    TreeSet<Integer> rare = new TreeSet<>();
    for (int t = 0; t < m; t++) {
      boolean a = rnd.nextInt(seed == 5 ? 1_000_000 : 4) == 0; // seed 5: almost none
      if (a) {
        aborted.add(t);
      }
      if (a ? rnd.nextInt(5) > 0 : rnd.nextInt(50) == 0) { // and some not among them
        rare.add(t);
      }
    }
    int[] rows = aborted.stream().mapToInt(Integer::intValue).toArray();
    int[] codes = new int[rows.length];
    for (int k = 0; k < codes.length; k++) {
      codes[k] = 1 + rnd.nextInt(1_000);
    }
    ProgramResult.AbortCodes aborts = new ProgramResult.AbortCodes(rows, codes);
    int[] asked = rare.stream().mapToInt(Integer::intValue).toArray();
    int[] walked = BatchOutcomes.codesOf(aborts, asked);
    for (int i = 0; i < asked.length; i++) {
      assertThat(walked[i]).as("transaction %d", asked[i]).isEqualTo(aborts.get(asked[i]));
    }
    assertThat(BatchOutcomes.codesOf(ProgramResult.AbortCodes.NONE, asked)).containsOnly(0);
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
