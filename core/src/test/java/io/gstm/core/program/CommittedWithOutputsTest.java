package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The committed transactions whose program has each output slot, listed on all cores, are those
 * a plain walk lists: one slot or three, one program for all or several, densities from almost
 * none to nearly all, batches of several slices.
 */
class CommittedWithOutputsTest {
  private static final ProgramSet PROGRAMS = ProgramSet.parse("""
      program none(a: int32) regions r: int64 { r[a] = 1; }
      program one(a: int32) regions r: int64 outputs x: int64 { x = r[a]; }
      program three(a: int32) regions r: int64 outputs x: int64, y: int64, z: int64 {
        x = r[a]; y = 2; z = 3;
      }
      """);
  private static final ProgramSet ONE_SLOT = ProgramSet.parse("""
      program none(a: int32) regions r: int64 { r[a] = 1; }
      program one(a: int32) regions r: int64 outputs x: int64 { x = r[a]; }
      """);

  @ParameterizedTest(name = "seed {0}, {1} slot(s), uniform {2}, committed 1 in {3}")
  @CsvSource({"1, 1, -1, 2", "2, 1, -1, 1000000", "3, 1, 1, 3", "4, 1, 0, 2", "5, 3, -1, 2",
      "6, 3, 2, 4", "7, 3, -1, 1", "8, 1, -1, 1"})
  void theListedRowsAreThoseAWalkFinds(long seed, int slots, int uniform, int oneIn) {
    ProgramSet set = slots == 1 ? ONE_SLOT : PROGRAMS;
    SplittableRandom rnd = new SplittableRandom(seed);
    int n = 1 + rnd.nextInt(300_000);
    int[] types = new int[n];
    byte[] outcomes = new byte[n];
    for (int t = 0; t < n; t++) {
      types[t] = uniform >= 0 ? uniform : rnd.nextInt(set.size());
      outcomes[t] = (byte) (rnd.nextInt(oneIn) == 0 ? Outcome.COMMITTED.code()
          : rnd.nextBoolean() ? Outcome.USER_ABORT.code() : 0);
    }
    ProgramBatch.Builder b = ProgramBatch.builder(set).int32("a", new int[n]);
    ProgramBatch batch = (uniform >= 0 ? b.all(set.get(uniform).name(), n) : b.types(types))
        .build();
    int[][] rows = ProgramResult.committedWithOutputs(outcomes, batch);
    assertThat(rows).hasNumberOfRows(slots);
    for (int s = 0; s < slots; s++) {
      List<Integer> walked = new ArrayList<>();
      for (int t = 0; t < n; t++) {
        if (outcomes[t] == Outcome.COMMITTED.code()
            && set.get(types[t]).outputs().size() > s) {
          walked.add(t);
        }
      }
      assertThat(rows[s]).as("slot %d", s)
          .containsExactly(walked.stream().mapToInt(Integer::intValue).toArray());
    }
  }
}
