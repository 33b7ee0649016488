package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Which cached input partitions each state partition's task reads in an epoch in one stage
 * ({@link EpochMesh#groups}); the cross-partition batch's coordinator, store sizes and distinct
 * rows.
 */
class EpochMeshGroupsTest {
  private static final String A = "executor_h_1";
  private static final String B = "executor_h_2";

  @Test
  void eachTaskReadsTheBlocksCachedOnItsOwnExecutorEvenlyAmongThePartitionsThere() {
    // Partitions 0 and 2 on A, 1 on B; blocks 0-5 on A, 6-8 on B.
    String[] blockAt = {A, A, A, A, A, A, B, B, B};
    int[][] g = EpochMesh.groups(blockAt, new String[] {A, B, A}, 3);
    assertThat(g[0]).containsExactly(0, 2, 4);
    assertThat(g[2]).containsExactly(1, 3, 5);
    assertThat(g[1]).containsExactly(6, 7, 8);
  }

  @Test
  void blocksElsewhereOrNotCachedGoToTheLeastLoadedPartition() {
    String[] blockAt = {A, A, A, "executor_h_3", null, "h"};
    int[][] g = EpochMesh.groups(blockAt, new String[] {A, B}, 2);
    assertThat(g[0]).containsExactly(0, 1, 2);
    assertThat(g[1]).containsExactly(3, 4, 5);
  }

  @Test
  void everyBlockIsReadOnceAndLocalModeSharesThemEvenly() {
    String[] blockAt = new String[10];
    int[][] g = EpochMesh.groups(blockAt, null, 4);
    int[] all = Arrays.stream(g).flatMapToInt(Arrays::stream).sorted().toArray();
    assertThat(all).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    assertThat(Arrays.stream(g).mapToInt(x -> x.length)).containsExactly(3, 3, 2, 2);
  }

  @Test
  void crossStoresComeInPowersOfTwoFromTheSmallest() {
    assertThat(CrossStores.classRows(0)).isEqualTo(CrossStores.MIN_ROWS);
    assertThat(CrossStores.classRows(CrossStores.MIN_ROWS)).isEqualTo(CrossStores.MIN_ROWS);
    assertThat(CrossStores.classRows(CrossStores.MIN_ROWS + 1))
        .isEqualTo(2 * CrossStores.MIN_ROWS);
    assertThat(CrossStores.classRows(5_000_000)).isEqualTo(1 << 23);
  }

  @Test
  void thePartitionsTakeTurnsCoordinating() {
    assertThat(java.util.stream.LongStream.rangeClosed(1, 6)
        .mapToInt(e -> CrossBatch.coordinator(e, 3)).toArray()).containsExactly(1, 2, 0, 1, 2, 0);
    assertThat(CrossBatch.coordinator(7, 2)).isEqualTo(1);
  }

  @Test
  void distinctRowsComeOnceInOrderAndEveryUseFindsItsOwn() {
    CrossBatch.Distinct d = CrossBatch.distinct(new int[] {7, 2, -1, 7, 0, 2}, 9);
    assertThat(d.rows()).containsExactly(0, 2, 7);
    assertThat(d.index()).containsExactly(2, 1, -1, 2, 0, 1);
    CrossBatch.Distinct none = CrossBatch.distinct(new int[] {-1}, 4);
    assertThat(none.rows()).isEmpty();
    assertThat(none.index()).containsExactly(-1);
  }

  @Test
  void distinctRowsOfMillionsOfUsesOnAllCores() {
    java.util.Random random = new java.util.Random(5);
    int limit = 3_000_000;
    int[] rows = new int[2_000_000];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = random.nextInt(20) == 0 ? -1 : random.nextInt(limit);
    }
    CrossBatch.Distinct d = CrossBatch.distinct(rows, limit);
    int[] expected = Arrays.stream(rows).filter(r -> r >= 0).distinct().sorted().toArray();
    assertThat(d.rows()).isEqualTo(expected);
    for (int i = 0; i < rows.length; i++) {
      assertThat(rows[i] < 0 ? -1 : d.rows()[d.index()[i]]).isEqualTo(rows[i]);
    }
  }
}
