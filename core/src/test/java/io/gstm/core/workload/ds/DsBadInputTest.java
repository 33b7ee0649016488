package io.gstm.core.workload.ds;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Bad sizes, mixes and names are refused before anything runs, naming the parameter and limit. */
class DsBadInputTest {
  private static DsConfig cfg(DsKind kind, int keyRange, int initial, int pool, int tx,
      double ins, double del, int work, int levels) {
    return DsConfig.builder().kind(kind).keyRange(keyRange).initialEntries(initial).pool(pool)
        .transactions(tx).insertFraction(ins).deleteFraction(del).maxWork(work).levels(levels)
        .grid(32, 2).seed(1).build();
  }

  @Test
  void unknownStructure() {
    assertThatThrownBy(() -> DsKind.parse("structures", "heap"))
        .hasMessageContaining("structures").hasMessageContaining("'heap'")
        .hasMessageContaining("queue, hashmap, tree, skiplist");
    assertThatThrownBy(() -> cfg(null, 8, 0, 0, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("structure");
  }

  @Test
  void keyRanges() {
    assertThatThrownBy(() -> cfg(DsKind.HASHMAP, DsConfig.MAX_HASH_KEYS + 1, 0, 0, 10, 0.5, 0,
        0, 1)).hasMessageContaining("keyRange must be in 1..3840").hasMessageContaining("chain");
    assertThatThrownBy(() -> cfg(DsKind.TREE, 0, 0, 0, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("keyRange");
    assertThatThrownBy(() -> cfg(DsKind.SKIPLIST, DsConfig.MAX_KEYED + 1, 0, 0, 10, 0.5, 0, 0,
        1)).hasMessageContaining("keyRange must be in 1.." + DsConfig.MAX_KEYED);
  }

  @Test
  void sizes() {
    assertThatThrownBy(() -> cfg(DsKind.TREE, 64, 65, 0, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("initialEntries must be in 0..64");
    assertThatThrownBy(() -> cfg(DsKind.QUEUE, 1, -1, 0, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("initialEntries");
    assertThatThrownBy(() -> cfg(DsKind.QUEUE, 1, 4, 0, 0, 0.5, 0, 0, 1))
        .hasMessageContaining("transactions must be in 1..");
    assertThatThrownBy(() -> cfg(DsKind.QUEUE, 1, 4, 0, 10, 0.5, 0, DsConfig.MAX_WORK + 1, 1))
        .hasMessageContaining("maxWork").hasMessageContaining("" + DsConfig.MAX_WORK);
    assertThatThrownBy(() -> cfg(DsKind.SKIPLIST, 64, 0, 0, 10, 0.3, 0.3, 0, 6))
        .hasMessageContaining("levels must be in 1..5");
    assertThatThrownBy(() -> cfg(DsKind.SKIPLIST, 64, 0, 0, 10, 0.3, 0.3, 0, 0))
        .hasMessageContaining("levels must be in 1..5");
    assertThatThrownBy(() -> cfg(DsKind.HASHMAP, 64, 0, 0, 10, 0.3, 0.3, 0, 2))
        .hasMessageContaining("levels must be in 1..1");
    assertThatThrownBy(() -> DsConfig.builder().kind(DsKind.QUEUE).keyRange(1).initialEntries(4)
        .pool(0).transactions(10).insertFraction(0.5).deleteFraction(0).maxWork(0).levels(1)
        .grid(512, 1).seed(1).build())
        .hasMessageContaining("threadsPerBlock");
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

  @Test
  void pools() {
    assertThatThrownBy(() -> cfg(DsKind.QUEUE, 1, 10, 10, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("pool must hold the 10 initial entries: at least 11");
    assertThatThrownBy(() -> cfg(DsKind.HASHMAP, 256, 100, 50, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("pool must hold the 100 initial entries: at least 100");
    assertThatThrownBy(() -> cfg(DsKind.TREE, 64, 15, 10, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("pool must hold the 15 initial entries");
    assertThatThrownBy(() -> cfg(DsKind.TREE, 64, 0, 65, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("pool must be in 0..64").hasMessageContaining("one node slot");
    assertThatThrownBy(() -> cfg(DsKind.HASHMAP, 64, 0, -1, 10, 0.5, 0, 0, 1))
        .hasMessageContaining("pool must be in 0..");
  }

  @Test
  void mixes() {
    assertThatThrownBy(() -> cfg(DsKind.HASHMAP, 64, 0, 0, 10, 0.7, 0.5, 0, 1))
        .hasMessageContaining("insertFraction + deleteFraction must be at most 1");
    assertThatThrownBy(() -> cfg(DsKind.TREE, 64, 0, 0, 10, 0.5, 0.1, 0, 1))
        .hasMessageContaining("deleteFraction must be 0 for the tree");
    assertThatThrownBy(() -> cfg(DsKind.QUEUE, 1, 0, 0, 10, 0.5, 0.5, 0, 1))
        .hasMessageContaining("deleteFraction must be 0 for the queue");
    assertThatThrownBy(() -> cfg(DsKind.HASHMAP, 64, 0, 0, 10, Double.NaN, 0, 0, 1))
        .hasMessageContaining("insertFraction must be in 0..1");
  }
}
