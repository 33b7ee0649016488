package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The codes of many transactions at once, walked with the list, are those a search finds. */
class AbortCodesTest {
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void theCodesOfManyTransactionsAreThoseASearchFinds(long seed) {
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
    int[] walked = aborts.get(asked);
    for (int i = 0; i < asked.length; i++) {
      assertThat(walked[i]).as("transaction %d", asked[i]).isEqualTo(aborts.get(asked[i]));
    }
    assertThat(ProgramResult.AbortCodes.NONE.get(asked)).containsOnly(0);
  }
}
