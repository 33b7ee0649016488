package io.gstm.core.workload.ds;

import static io.gstm.core.testing.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.Refusals;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad sizes, mixes and names are refused before anything runs, naming the parameter and limit. */
class DsBadInputTest {
  /**
   * A valid configuration of {@code kind} (64 keys, empty, 10 transactions, half inserts, one
   * level) to change one thing of.
   */
  private static DsConfig.Builder valid(DsKind kind) {
    return DsConfig.builder().kind(kind).keyRange(64).initialEntries(0).pool(0).transactions(10)
        .insertFraction(0.5).deleteFraction(0).maxWork(0).levels(1).grid(32, 2).seed(1);
  }

  @Test
  void algorithmsAStructureCannotRunOn() {
    DsConfig five = valid(DsKind.SKIPLIST).initialEntries(32).insertFraction(0.3)
        .deleteFraction(0.3).levels(5).build();
    assertThatThrownBy(() -> five.checkAlgorithm(Algorithm.csmv(4)))
        .hasMessageContaining("levels must be at most 4 for a skip list on csmv");
    five.checkAlgorithm(Algorithm.prStm());
    five.runnableOn(Algorithm.csmv(4)).checkAlgorithm(Algorithm.csmv(4));
  }

  static Stream<Arguments> badInput() {
    return Stream.of(
        // Structures.
        refused(() -> DsKind.parse("structures", "heap"), "structures", "'heap'",
            "queue, hashmap, tree, skiplist"),
        refused(() -> valid(null).keyRange(8).build(), "structure"),
        // Key ranges.
        refused(() -> valid(DsKind.HASHMAP).keyRange(DsConfig.MAX_HASH_KEYS + 1).build(),
            "keyRange must be in 1..3840", "chain"),
        refused(() -> valid(DsKind.TREE).keyRange(0).build(), "keyRange"),
        refused(() -> valid(DsKind.SKIPLIST).keyRange(DsConfig.MAX_KEYED + 1).build(),
            "keyRange must be in 1.." + DsConfig.MAX_KEYED),
        // Sizes.
        refused(() -> valid(DsKind.TREE).initialEntries(65).build(),
            "initialEntries must be in 0..64"),
        refused(() -> valid(DsKind.QUEUE).keyRange(1).initialEntries(-1).build(),
            "initialEntries"),
        refused(() -> valid(DsKind.QUEUE).keyRange(1).initialEntries(4).transactions(0).build(),
            "transactions must be in 1.."),
        refused(() -> valid(DsKind.QUEUE).keyRange(1).initialEntries(4)
            .maxWork(DsConfig.MAX_WORK + 1).build(), "maxWork", "" + DsConfig.MAX_WORK),
        refused(() -> valid(DsKind.SKIPLIST).insertFraction(0.3).deleteFraction(0.3).levels(6)
            .build(), "levels must be in 1..5"),
        refused(() -> valid(DsKind.SKIPLIST).insertFraction(0.3).deleteFraction(0.3).levels(0)
            .build(), "levels must be in 1..5"),
        refused(() -> valid(DsKind.HASHMAP).insertFraction(0.3).deleteFraction(0.3).levels(2)
            .build(), "levels must be in 1..1"),
        refused(() -> valid(DsKind.QUEUE).keyRange(1).initialEntries(4).grid(512, 1).build(),
            "threadsPerBlock"),
        // Pools.
        refused(() -> valid(DsKind.QUEUE).keyRange(1).initialEntries(10).pool(10).build(),
            "pool must hold the 10 initial entries: at least 11"),
        refused(() -> valid(DsKind.HASHMAP).keyRange(256).initialEntries(100).pool(50).build(),
            "pool must hold the 100 initial entries: at least 100"),
        refused(() -> valid(DsKind.TREE).initialEntries(15).pool(10).build(),
            "pool must hold the 15 initial entries"),
        refused(() -> valid(DsKind.TREE).pool(65).build(), "pool must be in 0..64",
            "one node slot"),
        refused(() -> valid(DsKind.HASHMAP).pool(-1).build(), "pool must be in 0.."),
        // Mixes.
        refused(() -> valid(DsKind.HASHMAP).insertFraction(0.7).deleteFraction(0.5).build(),
            "insertFraction + deleteFraction must be at most 1"),
        refused(() -> valid(DsKind.TREE).deleteFraction(0.1).build(),
            "deleteFraction must be 0 for the tree"),
        refused(() -> valid(DsKind.QUEUE).keyRange(1).deleteFraction(0.5).build(),
            "deleteFraction must be 0 for the queue"),
        refused(() -> valid(DsKind.HASHMAP).insertFraction(Double.NaN).build(),
            "insertFraction must be in 0..1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInput")
  void badInputIsRefusedNamingTheParameterAndLimit(ThrowingCallable action, String[] message) {
    Refusals.assertRefused(action, message);
  }
}
