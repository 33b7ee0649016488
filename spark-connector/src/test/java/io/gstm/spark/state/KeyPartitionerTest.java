package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A hash partitioner's owner is the key's hash modulo the partitions, whatever shortcut finds
 * it (one partition, a power of two): a state's keys stay where they were placed.
 */
class KeyPartitionerTest {
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 2, 3, 4, 7, 8, 16, 1024, 100_000})
  void theOwnerIsTheHashModuloThePartitions(int partitions) {
    KeyPartitioner parts = KeyPartitioner.hash(partitions);
    SplittableRandom rnd = new SplittableRandom(partitions);
    for (int i = 0; i < 100_000; i++) {
      long key = i < 1_000 ? i - 500 : i < 2_000 ? Long.MIN_VALUE + i : rnd.nextLong();
      assertThat(parts.owner(key)).as("key %d", key)
          .isEqualTo((int) Math.floorMod(KeyPartitioner.mix(key), (long) partitions));
    }
  }
}
