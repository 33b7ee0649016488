package io.gstm.core.workload.ds;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.SharedEngines;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The verifier catches what it must: a lost, duplicated or misplaced node, a broken order, an
 * output the serial replay does not give; and a small pool ends inserts with the pool code.
 */
class DsVerifierTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(1);

  private static DsRun serialRun(DsConfig cfg) {
    return DsRun.run(engines.jvm(), Algorithm.prStm(), DsBatch.of(cfg.withGrid(1, 1)),
        RunOptions.defaults().withHistory(true));
  }

  private static long[][] copy(long[][] a) {
    long[][] c = new long[a.length][];
    for (int i = 0; i < a.length; i++) {
      c[i] = a[i].clone();
    }
    return c;
  }

  private static List<String> recheck(DsBatch b, ProgramResult r, long[][] after) {
    return DsRun.check(b, r, after);
  }

  @ParameterizedTest
  @EnumSource(DsKind.class)
  void aSerialRunPassesAndEveryCorruptionOfItsFinalStateIsCaught(DsKind kind) {
    DsConfig cfg = DsConfig.fullContention(kind, 300, 1, 1, 7);
    DsBatch b = DsBatch.of(cfg);
    DsRun run = DsRun.run(engines.jvm(), Algorithm.prStm(), b,
        RunOptions.defaults().withHistory(true));
    assertThat(run.problems()).isEmpty();
    long[][] after = run.after();
    switch (kind) {
      case QUEUE -> {
        long[][] lost = copy(after); // the head skips an entry
        lost[0][0] = after[1][(int) after[0][0]];
        assertThat(recheck(b, run.result(), lost)).isNotEmpty();
        long[][] cycle = copy(after); // the tail points back at the head
        cycle[1][(int) after[0][1]] = after[0][0];
        assertThat(recheck(b, run.result(), cycle)).isNotEmpty();
        long[][] value = copy(after);
        value[2][(int) after[0][1]] += 1;
        assertThat(recheck(b, run.result(), value)).isNotEmpty();
      }
      case HASHMAP -> {
        int bucket = firstNonEmpty(after[0]);
        long[][] emptied = copy(after); // a bucket loses its list
        emptied[0][bucket] = DsState.NIL;
        assertThat(recheck(b, run.result(), emptied)).isNotEmpty();
        long[][] rekeyed = copy(after); // a key moves to another bucket
        rekeyed[1][(int) after[0][bucket]] += 1;
        assertThat(recheck(b, run.result(), rekeyed)).isNotEmpty();
      }
      case TREE -> {
        long[][] cut = copy(after); // the root loses its left subtree
        cut[1][(int) (2 * after[0][0])] = DsState.NIL;
        assertThat(recheck(b, run.result(), cut)).isNotEmpty();
        long[][] swapped = copy(after); // the root's children change sides
        long root = after[0][0];
        swapped[1][(int) (2 * root)] = after[1][(int) (2 * root + 1)];
        swapped[1][(int) (2 * root + 1)] = after[1][(int) (2 * root)];
        assertThat(recheck(b, run.result(), swapped)).isNotEmpty();
      }
      case SKIPLIST -> {
        int levels = cfg.levels();
        int head = b.pool();
        long[][] upper = copy(after); // a key at level 1 that level 0 lacks
        long first = after[0][head * levels];
        upper[0][head * levels] = after[0][(int) first * levels];
        assertThat(recheck(b, run.result(), upper)).isNotEmpty();
        long[][] lower = copy(after); // the first key of level 1 drops to level 0 alone
        long tall = after[0][head * levels + 1];
        assertThat(tall).isNotEqualTo(DsState.NIL);
        lower[0][head * levels + 1] = after[0][(int) tall * levels + 1];
        assertThat(recheck(b, run.result(), lower)).isNotEmpty();
      }
      default -> throw new IllegalStateException();
    }
  }

  private static int firstNonEmpty(long[] buckets) {
    for (int i = 0; i < buckets.length; i++) {
      if (buckets[i] != DsState.NIL) {
        return i;
      }
    }
    throw new AssertionError("all buckets empty");
  }

  @ParameterizedTest
  @EnumSource(DsKind.class)
  void anOutputTheReplayDoesNotGiveIsCaught(DsKind kind) {
    DsBatch b = DsBatch.of(DsConfig.fullContention(kind, 200, 1, 1, 3));
    DsRun run = DsRun.run(engines.jvm(), Algorithm.prStm(), b,
        RunOptions.defaults().withHistory(true));
    assertThat(run.problems()).isEmpty();
    int slot = b.programs().get(b.op()[0]).outputs().stream().map(o -> o.name()).toList()
        .indexOf("ok");
    run.result().outputs()[slot * b.txCount()] ^= 1;
    assertThat(DsVerifier.check(b, run.result(), run.after(),
        run.result().stats().history() == null ? null : serial(b.txCount()))).isNotEmpty();
  }

  /** On a grid of one thread, transactions commit in batch order. */
  private static int[] serial(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }

  @ParameterizedTest
  @EnumSource(value = DsKind.class, names = {"QUEUE", "HASHMAP"})
  void aPoolTooSmallEndsInsertsWithThePoolCode(DsKind kind) {
    DsConfig cfg = DsConfig.fullContention(kind, 400, 8, 2, 5);
    int least = kind == DsKind.QUEUE ? cfg.initialEntries() + 1 : cfg.initialEntries();
    DsRun run = DsRun.run(engines.jvm(), Algorithm.prStm(), DsBatch.of(cfg.withPool(least + 3)),
        RunOptions.defaults().withHistory(true));
    assertThat(run.problems()).isEmpty();
    assertThat(run.result().outcomeCounts()).containsKey(Outcome.USER_ABORT);
    for (int t = 0; t < 400; t++) {
      if (run.result().outcome(t) == Outcome.USER_ABORT) {
        assertThat(run.result().abortCode(t)).isEqualTo(DsPrograms.POOL_EXHAUSTED);
      }
    }
  }

  @Test
  void aTreePoolBelowTheKeyRangeRefusesTheKeysPastIt() {
    DsConfig cfg = DsConfig.builder().kind(DsKind.TREE).keyRange(64).initialEntries(0).pool(32)
        .transactions(300).insertFraction(0.7).deleteFraction(0).maxWork(0).levels(1).grid(8, 2)
        .seed(9).build();
    DsRun run = serialRun(cfg);
    assertThat(run.problems()).isEmpty();
    DsBatch b = DsBatch.of(cfg.withGrid(1, 1));
    for (int t = 0; t < b.txCount(); t++) {
      boolean past = b.op()[t] == 0 && b.key()[t] >= 32;
      assertThat(run.result().outcome(t)).isEqualTo(past ? Outcome.USER_ABORT
          : Outcome.COMMITTED);
    }
  }
}
