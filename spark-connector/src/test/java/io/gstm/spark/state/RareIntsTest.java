package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** An int per row kept for the rows that have one: batches merged in, zeros left out. */
class RareIntsTest {
  @Test
  void batchesOfRowsMergeAndZerosAreLeftOut() {
    Random random = new Random(11);
    int n = 5_000;
    int[] expected = new int[n];
    RareInts kept = new RareInts();
    // Three batches of interleaved rows (row % 3 picks the batch), a third of them zeros.
    for (int batch = 0; batch < 3; batch++) {
      int[] rows = new int[n / 3 + 1];
      int[] values = new int[rows.length];
      int k = 0;
      for (int row = batch; row < n; row += 3) {
        rows[k] = row;
        values[k] = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(1_000);
        expected[row] = values[k++];
      }
      kept.set(java.util.Arrays.copyOf(rows, k), java.util.Arrays.copyOf(values, k));
    }
    RareInts.Cursor walk = kept.cursor();
    for (int row = 0; row < n; row++) {
      assertThat(kept.get(row)).as("row %d", row).isEqualTo(expected[row]);
      assertThat(walk.at(row)).as("row %d walked", row).isEqualTo(expected[row]);
    }
    assertThat(kept.get(n + 7)).isZero();
  }

  @Test
  void rowsAndValuesOfOtherLengthsAreRefused() {
    assertThatThrownBy(() -> new RareInts().set(new int[2], new int[1]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 rows and 1 values");
  }
}
