package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.SharedEngines;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What happens at run time: a transaction that indexes out of range, divides by zero, loops
 * past its bound or aborts ends with its own outcome and changes nothing, and the rest of the
 * batch goes on; outputs and codes come back; programs run on CSMV stores too.
 */
class ProgramRunTest {
  private static final StoreLayout LAYOUT = StoreLayout.of(
      new RegionSpec("r", RegionType.INT32, 8, 1),
      new RegionSpec("f", RegionType.FLOAT64, 4, 1));
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  /** A program that adds 1 to r[0] then, by its kind, ends badly or commits. */
  static final String PROGRAM = """
      program step(kind: int32, x: int32)
          regions r: int32, f: float64
          outputs seen: int32, half: float64
      {
        r[0] = r[0] + 1;
        if (kind == 1) { r[1] = r[x]; }
        if (kind == 2) { r[1] = 100 / x; }
        if (kind == 3) { for i in 0 .. x max 3 { r[2] = r[2] + 1; } }
        if (kind == 4) { abort(x * 10); }
        seen = r[0];
        half = float64(x) / 2.0;
        f[0] = f[0] + half;
      }
      """;

  private static ProgramResult run(Engine e, TxStore store, int[] kinds, int[] xs) {
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.parse(PROGRAM)).all("step", kinds.length)
        .int32("kind", kinds).int32("x", xs).grid(2, 2).build();
    return e.run(store, batch, RunOptions.defaults());
  }

  @Test
  void badTransactionsEndWithTheirOwnOutcomeAndChangeNothing() {
    int[] kinds = {0, 1, 2, 3, 4, 0, 1, 2, 3};
    int[] xs = {4, 9, 0, 5, 7, 2, -1, 5, 2};
    try (TxStore store = engines.jvm().createStore(LAYOUT)) {
      ProgramResult r = run(engines.jvm(), store, kinds, xs);
      assertThat(Arrays.stream(kinds).mapToObj(i -> "").count()).isEqualTo(9);
      assertThat(r.outcome(0)).isEqualTo(Outcome.COMMITTED);
      assertThat(r.outcome(1)).isEqualTo(Outcome.OUT_OF_RANGE);
      assertThat(r.outcome(2)).isEqualTo(Outcome.DIVIDE_BY_ZERO);
      assertThat(r.outcome(3)).isEqualTo(Outcome.LOOP_LIMIT);
      assertThat(r.outcome(4)).isEqualTo(Outcome.USER_ABORT);
      assertThat(r.abortCode(4)).isEqualTo(70);
      assertThat(r.outcome(5)).isEqualTo(Outcome.COMMITTED);
      assertThat(r.outcome(6)).isEqualTo(Outcome.OUT_OF_RANGE);
      assertThat(r.outcome(7)).isEqualTo(Outcome.COMMITTED);
      assertThat(r.outcome(8)).isEqualTo(Outcome.COMMITTED);
      // Four commits added 1 each; the bad ones left nothing behind.
      int[] words = store.readInt32(0);
      assertThat(words[0]).isEqualTo(4);
      assertThat(words[1]).isEqualTo(20); // 100 / 5
      assertThat(words[2]).isEqualTo(2);
      assertThat(store.readFloat64(1)[0]).isEqualTo(2 + 1 + 2.5 + 1);
      assertThat(r.outputDouble(0, "half")).isEqualTo(2.0);
      assertThat(r.outputLong(1, "seen")).isZero(); // not committed: no outputs
      assertThat(r.abortCode(0)).isZero();
      assertThat(r.outcomeCounts()).containsEntry(Outcome.COMMITTED, 4)
          .containsEntry(Outcome.OUT_OF_RANGE, 2);
    }
  }

  @Test
  void programsRunOnCsmvStores() {
    try (TxStore store = engines.jvm().createStore(StoreLayout.of(
        new RegionSpec("r", RegionType.INT32, 8, 1)), Algorithm.csmv(4))) {
      ProgramSet set = ProgramSet.parse("""
          program inc(x: int32) regions r: int32 outputs was: int32 {
            let v = r[x];
            if (v > 5) { abort(v); }
            r[x] = v + 1;
            was = v;
          }
          program total() regions r: int32 outputs t: int64 { t = sum(r, 0, 8); }
          """);
      int n = 40;
      int[] types = new int[n];
      int[] xs = new int[n];
      for (int t = 0; t < n; t++) {
        types[t] = t % 5 == 4 ? 1 : 0;
        xs[t] = t % 3;
      }
      ProgramResult r = engines.jvm().run(store, ProgramBatch.builder(set).types(types)
          .int32("x", xs).grid(32, 1).build(), RunOptions.defaults());
      int[] words = store.readInt32(0);
      long commitsOfInc = 0;
      for (int t = 0; t < n; t++) {
        if (types[t] == 0 && r.outcome(t) == Outcome.COMMITTED) {
          commitsOfInc++;
        }
        if (types[t] == 0 && r.outcome(t) == Outcome.USER_ABORT) {
          assertThat(r.abortCode(t)).isEqualTo(6);
        }
        if (types[t] == 1) {
          assertThat(r.outcome(t)).isEqualTo(Outcome.COMMITTED);
          assertThat(r.outputLong(t, "t")).isBetween(0L, 18L);
        }
      }
      assertThat(words[0] + words[1] + words[2]).isEqualTo((int) commitsOfInc);
      assertThat(words[0]).isEqualTo(6);
    }
  }

  /**
   * A CSMV update transaction keeps a read-set slot for every read, shared regions' included
   * (its snapshot reads are versioned): the read bound counts them, so none ends TOO_LARGE.
   */
  @Test
  void sharedReadsCountForCsmvReadSets() {
    CompiledProgram p = ProgramSet.parse("""
        program copy(x: int32) regions shared src: int32, dst: int32 {
          for i in 0 .. 6 { dst[(x + i) % 8] = src[i] + src[i + 1]; }
        }
        """).get(0);
    assertThat(p.analysis().reads()).isEqualTo(12);
    try (TxStore store = engines.jvm().createStore(StoreLayout.of(
        new RegionSpec("src", RegionType.INT32, 8, 1),
        new RegionSpec("dst", RegionType.INT32, 8, 1)), Algorithm.csmv(4))) {
      store.writeInt32(0, new int[] {1, 2, 3, 4, 5, 6, 7, 8});
      ProgramResult r = engines.jvm().run(store, ProgramBatch.builder(ProgramSet.of(p)).all("copy",
          4)
          .int32("x", new int[] {0, 1, 2, 3}).grid(4, 1).build(), RunOptions.defaults());
      assertThat(r.outcomeCounts()).containsOnlyKeys(Outcome.COMMITTED);
    }
    // The history keeps every word read, more than PR-STM's largest set (16), each once however
    // often it is read (repeats crowded out later reads once).
    try (TxStore wide = engines.jvm().createStore(StoreLayout.of(
        new RegionSpec("src", RegionType.INT32, 24, 1),
        new RegionSpec("dst", RegionType.INT32, 8, 1)), Algorithm.csmv(4))) {
      CompiledProgram many = ProgramSet.parse("""
          program fold(x: int32) regions shared src: int32, dst: int32 {
            var s = 0;
            for i in 0 .. 20 { s = s + src[i] + src[i]; }
            dst[x] = s;
          }
          """).get(0);
      ProgramResult h = engines.jvm().run(wide, ProgramBatch.builder(ProgramSet.of(many))
          .all("fold", 4).int32("x", new int[] {0, 1, 2, 3}).grid(4, 1).build(),
          RunOptions.defaults().withHistory(true));
      assertThat(h.stats().history().committed()).hasSize(4)
          .allSatisfy(tx -> assertThat(tx.reads()).hasSize(20));
      assertThat(io.gstm.core.history.HistoryChecker.check(h.stats().history()).serializable())
          .isTrue();
    }
  }

  /**
   * A range read leaves its version sum behind in the worker's transaction object: a later
   * read-only transaction on the same worker must not compare against it (it did, and aborted
   * until its retry limit).
   */
  @Test
  void aRangeReadDoesNotLeakIntoTheNextTransaction() {
    try (JvmEngine one = new JvmEngine(1);
        TxStore store = one.createStore(StoreLayout.of(
            new RegionSpec("r", RegionType.INT32, 8, 1)))) {
      store.writeInt32(0, new int[] {1, 2, 3, 4, 5, 6, 7, 8});
      ProgramSet set = ProgramSet.parse("""
          program total() regions r: int32 outputs t: int64 { t = sum(r, 0, 8); }
          program peek() regions r: int32 outputs v: int32 { v = r[3]; }
          """);
      ProgramResult r = one.run(store, ProgramBatch.builder(set).types(new int[] {0, 1})
          .grid(1, 1).build(), RunOptions.defaults().withMaxRetries(3));
      assertThat(r.outcome(0)).isEqualTo(Outcome.COMMITTED);
      assertThat(r.outputLong(0, "t")).isEqualTo(36);
      assertThat(r.outcome(1)).isEqualTo(Outcome.COMMITTED);
      assertThat(r.outputLong(1, "v")).isEqualTo(4);
    }
  }

  @Test
  void aBatchThatFailsBindingLeavesTheStoreAsItWas() {
    try (TxStore store = engines.jvm().createStore(LAYOUT)) {
      store.writeInt32(0, new int[] {1, 2, 3, 4, 5, 6, 7, 8});
      ProgramSet set = ProgramSet.parse("program p() regions missing: int32 { missing[0] = 1; }");
      assertThatThrownBy(() -> engines.jvm().run(store, ProgramBatch.builder(set).all("p",
          3).build(),
          RunOptions.defaults())).hasMessageContaining("region 'missing'");
      assertThat(store.readInt32(0)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    }
  }
}
