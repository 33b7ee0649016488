package io.gstm.core.workload.ds;

import static io.gstm.core.testing.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.testing.Refusals;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad sizes, mixes and names are refused before anything runs, naming the parameter and limit. */
class DsBadInputTest {
  private static DsConfig cfg(DsKind kind, int keyRange, int initial, int pool, int tx,
      double ins, double del, int work, int levels) {
    return DsConfig.builder().kind(kind).keyRange(keyRange).initialEntries(initial).pool(pool)
        .transactions(tx).insertFraction(ins).deleteFraction(del).maxWork(work).levels(levels)
        .grid(32, 2).seed(1).build();
  }

  static Stream<Arguments> badInput() {
    return Stream.of(
        // Structures.
        refused(() -> DsKind.parse("structures", "heap"), "structures", "'heap'",
            "queue, hashmap, tree, skiplist"),
        refused(() -> cfg(null, 8, 0, 0, 10, 0.5, 0, 0, 1), "structure"),
        // Key ranges.
        refused(() -> cfg(DsKind.HASHMAP, DsConfig.MAX_HASH_KEYS + 1, 0, 0, 10, 0.5, 0, 0, 1),
            "keyRange must be in 1..3840", "chain"),
        refused(() -> cfg(DsKind.TREE, 0, 0, 0, 10, 0.5, 0, 0, 1), "keyRange"),
        refused(() -> cfg(DsKind.SKIPLIST, DsConfig.MAX_KEYED + 1, 0, 0, 10, 0.5, 0, 0, 1),
            "keyRange must be in 1.." + DsConfig.MAX_KEYED),
        // Sizes.
        refused(() -> cfg(DsKind.TREE, 64, 65, 0, 10, 0.5, 0, 0, 1),
            "initialEntries must be in 0..64"),
        refused(() -> cfg(DsKind.QUEUE, 1, -1, 0, 10, 0.5, 0, 0, 1), "initialEntries"),
        refused(() -> cfg(DsKind.QUEUE, 1, 4, 0, 0, 0.5, 0, 0, 1), "transactions must be in 1.."),
        refused(() -> cfg(DsKind.QUEUE, 1, 4, 0, 10, 0.5, 0, DsConfig.MAX_WORK + 1, 1), "maxWork",
            "" + DsConfig.MAX_WORK),
        refused(() -> cfg(DsKind.SKIPLIST, 64, 0, 0, 10, 0.3, 0.3, 0, 6),
            "levels must be in 1..5"),
        refused(() -> cfg(DsKind.SKIPLIST, 64, 0, 0, 10, 0.3, 0.3, 0, 0),
            "levels must be in 1..5"),
        refused(() -> cfg(DsKind.HASHMAP, 64, 0, 0, 10, 0.3, 0.3, 0, 2),
            "levels must be in 1..1"),
        refused(() -> DsConfig.builder().kind(DsKind.QUEUE).keyRange(1).initialEntries(4).pool(0)
            .transactions(10).insertFraction(0.5).deleteFraction(0).maxWork(0).levels(1)
            .grid(512, 1).seed(1).build(), "threadsPerBlock"),
        // Pools.
        refused(() -> cfg(DsKind.QUEUE, 1, 10, 10, 10, 0.5, 0, 0, 1),
            "pool must hold the 10 initial entries: at least 11"),
        refused(() -> cfg(DsKind.HASHMAP, 256, 100, 50, 10, 0.5, 0, 0, 1),
            "pool must hold the 100 initial entries: at least 100"),
        refused(() -> cfg(DsKind.TREE, 64, 15, 10, 10, 0.5, 0, 0, 1),
            "pool must hold the 15 initial entries"),
        refused(() -> cfg(DsKind.TREE, 64, 0, 65, 10, 0.5, 0, 0, 1), "pool must be in 0..64",
            "one node slot"),
        refused(() -> cfg(DsKind.HASHMAP, 64, 0, -1, 10, 0.5, 0, 0, 1), "pool must be in 0.."),
        // Mixes.
        refused(() -> cfg(DsKind.HASHMAP, 64, 0, 0, 10, 0.7, 0.5, 0, 1),
            "insertFraction + deleteFraction must be at most 1"),
        refused(() -> cfg(DsKind.TREE, 64, 0, 0, 10, 0.5, 0.1, 0, 1),
            "deleteFraction must be 0 for the tree"),
        refused(() -> cfg(DsKind.QUEUE, 1, 0, 0, 10, 0.5, 0.5, 0, 1),
            "deleteFraction must be 0 for the queue"),
        refused(() -> cfg(DsKind.HASHMAP, 64, 0, 0, 10, Double.NaN, 0, 0, 1),
            "insertFraction must be in 0..1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInput")
  void badInputIsRefusedNamingTheParameterAndLimit(ThrowingCallable action, String[] message) {
    Refusals.assertRefused(action, message);
  }

  @Test
  void algorithmsAStructureCannotRunOn() {
    DsConfig five = cfg(DsKind.SKIPLIST, 64, 32, 0, 10, 0.3, 0.3, 0, 5);
    assertThatThrownBy(() -> five.checkAlgorithm(io.gstm.core.store.Algorithm.csmv(4)))
        .hasMessageContaining("levels must be at most 4 for a skip list on csmv");
    five.checkAlgorithm(io.gstm.core.store.Algorithm.prStm());
    five.runnableOn(io.gstm.core.store.Algorithm.csmv(4))
        .checkAlgorithm(io.gstm.core.store.Algorithm.csmv(4));
  }
}
