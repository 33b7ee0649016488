package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Which cached input partitions each state partition's task reads in an epoch in one stage
 * ({@link EpochMesh#groups}), and the size classes of the rounds' stores.
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
  void roundStoresComeInPowersOfFourFromTheSmallest() {
    assertThat(RoundStores.classRows(0)).isEqualTo(RoundStores.MIN_ROWS);
    assertThat(RoundStores.classRows(RoundStores.MIN_ROWS)).isEqualTo(RoundStores.MIN_ROWS);
    assertThat(RoundStores.classRows(RoundStores.MIN_ROWS + 1))
        .isEqualTo(4 * RoundStores.MIN_ROWS);
    assertThat(RoundStores.classRows(5_000_000)).isEqualTo(1 << 24);
  }
}
