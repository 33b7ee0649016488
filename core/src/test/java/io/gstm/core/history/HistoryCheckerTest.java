package io.gstm.core.history;

import static io.gstm.core.history.TxRecord.entry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HistoryCheckerTest {

  private static TxRecord tx(int id, long[] reads, long... writes) {
    return new TxRecord(id, reads, writes);
  }

  private static long[] r(long... entries) {
    return entries;
  }

  private static HistoryChecker.Verdict check(int[] init, TxRecord... txs) {
    return HistoryChecker.check(new History(init, List.of(txs)));
  }

  /**
   * Executes random transactions one after another on a simulated lock table, so the result is
   * serializable by construction. Transaction ids differ from list positions on purpose, to catch
   * id/index mix-ups in the checker.
   */
  private static History randomSerial(long seed, int txCount, int lockCount, int maxReads,
      boolean shuffle) {
    Random rnd = new Random(seed);
    int[] init = new int[lockCount];
    for (int l = 0; l < lockCount; l++) {
      // Every third seed starts right below the 32-bit boundary so versions wrap.
      init[l] = seed % 3 == 0 ? -1 - rnd.nextInt(3) : rnd.nextInt();
    }
    int[] cur = init.clone();
    int[] stamp = new int[lockCount];
    List<TxRecord> txs = new ArrayList<>(txCount);
    for (int t = 0; t < txCount; t++) {
      int nr = rnd.nextInt(maxReads + 1);
      long[] reads = new long[nr];
      long[] writes = new long[nr + 1];
      int wn = 0;
      for (int k = 0; k < nr; k++) {
        int l;
        do {
          l = rnd.nextInt(lockCount);
        } while (stamp[l] == t + 1);
        stamp[l] = t + 1;
        reads[k] = entry(l, cur[l]);
        if (rnd.nextBoolean()) {
          writes[wn++] = entry(l, cur[l] + 1);
        }
      }
      if (rnd.nextInt(5) == 0) {
        // A blind write: the model does not require a read entry for every write.
        int l = rnd.nextInt(lockCount);
        if (stamp[l] != t + 1) {
          stamp[l] = t + 1;
          writes[wn++] = entry(l, cur[l] + 1);
        }
      }
      writes = Arrays.copyOf(writes, wn);
      for (long w : writes) {
        cur[TxRecord.lockOf(w)]++;
      }
      txs.add(new TxRecord(t * 7 + 3, reads, writes));
    }
    if (shuffle) {
      Collections.shuffle(txs, new Random(seed ^ 0x5DEECE66DL));
    }
    return new History(init, txs);
  }

  static LongStream seeds() {
    return LongStream.range(0, 40);
  }

  @Test
  void entryPacksAndUnpacks() {
    long e = entry(123_456, -7);
    assertThat(TxRecord.lockOf(e)).isEqualTo(123_456);
    assertThat(TxRecord.versionOf(e)).isEqualTo(-7);
    assertThat(TxRecord.lockOf(entry(Integer.MAX_VALUE, 0))).isEqualTo(Integer.MAX_VALUE);
    assertThat(TxRecord.lockOf(entry(-1, 5))).isEqualTo(-1);
    assertThat(TxRecord.versionOf(entry(-1, 5))).isEqualTo(5);
  }

  @Test
  void emptyHistoryPasses() {
    assertThat(HistoryChecker.check(new History(new int[0], List.of())).serializable()).isTrue();
    HistoryChecker.Verdict v = HistoryChecker.check(new History(new int[8], List.of()));
    assertThat(v.serializable()).isTrue();
    assertThat(v.violations()).isEmpty();
  }

  @Test
  void serialChainPasses() {
    HistoryChecker.Verdict v = check(new int[] {10, 20},
        tx(1, r(entry(0, 10)), entry(0, 11)),
        tx(2, r(entry(0, 11), entry(1, 20)), entry(0, 12), entry(1, 21)),
        tx(3, r(entry(0, 12)), entry(0, 13)),
        tx(4, r(entry(0, 13), entry(1, 21))));
    assertThat(v.violations()).isEmpty();
    assertThat(v.serializable()).isTrue();
  }

  @Test
  void versionsWrapAround() {
    int top = 0xffffffff;
    HistoryChecker.Verdict v = check(new int[] {top},
        tx(1, r(entry(0, top)), entry(0, 0)),
        tx(2, r(entry(0, 0)), entry(0, 1)));
    assertThat(v.violations()).isEmpty();
  }

  /** Each seed's history in its serial order, then shuffled. */
  static Stream<Arguments> seedsInOrderAndShuffled() {
    return Stream.of(false, true)
        .flatMap(shuffled -> seeds().mapToObj(seed -> Arguments.of(seed, shuffled)));
  }

  @ParameterizedTest(name = "seed {0}, shuffled {1}")
  @MethodSource("seedsInOrderAndShuffled")
  void randomSerialHistoriesPass(long seed, boolean shuffled) {
    HistoryChecker.Verdict v = HistoryChecker.check(randomSerial(seed, 400, 16, 4, shuffled));
    assertThat(v.violations()).isEmpty();
    assertThat(v.serializable()).isTrue();
  }

  @Test
  void lostUpdateFails() {
    HistoryChecker.Verdict v = check(new int[] {5},
        tx(1, r(entry(0, 5)), entry(0, 6)),
        tx(2, r(entry(0, 5)), entry(0, 6)));
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).anySatisfy(m -> assertThat(m).containsIgnoringCase("lost update")
        .contains("lock 0").contains("tx 1").contains("tx 2").contains("version 6"));
  }

  /** The history is not serializable, and its one violation names every part. */
  private static void assertOnlyViolation(HistoryChecker.Verdict v, String... parts) {
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).singleElement().satisfies(m -> assertThat(m).contains(parts));
  }

  /** The history is not serializable, and one of its violations names every part. */
  private static void assertSomeViolation(HistoryChecker.Verdict v, String... parts) {
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).anySatisfy(m -> assertThat(m).contains(parts));
  }

  @Test
  void writeSkewCycleFails() {
    int x = 0;
    int y = 1;
    HistoryChecker.Verdict v = check(new int[] {0, 0},
        tx(1, r(entry(x, 0)), entry(y, 1)),
        tx(2, r(entry(y, 0)), entry(x, 1)));
    // Each lock's chain is fine on its own; only the cycle is wrong.
    assertOnlyViolation(v, "cycle", "tx 1", "tx 2", "rw(lock 0", "rw(lock 1");
  }

  @Test
  void threeTransactionCycleIsReportedWithAllMembers() {
    // T1 -wr(lock 1)-> T2 -wr(lock 2)-> T3 -wr(lock 3)-> T1; T9 only reads lock 0 and is free.
    HistoryChecker.Verdict v = check(new int[4],
        tx(1, r(entry(3, 1)), entry(1, 1)),
        tx(2, r(entry(1, 1)), entry(2, 1)),
        tx(3, r(entry(2, 1)), entry(3, 1)),
        tx(9, r(entry(0, 0))));
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).singleElement().satisfies(m -> assertThat(m)
        .contains("cycle of 3 transactions").contains("(3 transactions cannot be ordered")
        .contains("tx 1").contains("tx 2").contains("tx 3").doesNotContain("tx 9"));
  }

  @Test
  void readOfNeverProducedVersionFails() {
    HistoryChecker.Verdict v = check(new int[] {0, 0},
        tx(1, r(entry(0, 0)), entry(0, 1)),
        tx(2, r(entry(1, 5))));
    assertOnlyViolation(v, "tx 2", "version 5", "lock 1", "no committed transaction produced");
  }

  @Test
  void gapFails() {
    HistoryChecker.Verdict v = check(new int[] {0},
        tx(1, r(entry(0, 0)), entry(0, 1)),
        tx(2, r(), entry(0, 3)));
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).singleElement().satisfies(m -> assertThat(m)
        .containsIgnoringCase("gap").contains("lock 0").contains("tx 2").contains("version 2"));
  }

  @Test
  void writeNotFollowingInitialVersionFails() {
    HistoryChecker.Verdict v = check(new int[] {7}, tx(1, r(), entry(0, 7)));
    assertOnlyViolation(v, "tx 1", "initial version 7");
  }

  @Test
  void writeMustFollowOwnRead() {
    HistoryChecker.Verdict v = check(new int[] {0},
        tx(1, r(entry(0, 0)), entry(0, 1)),
        tx(2, r(entry(0, 0)), entry(0, 2)));
    assertSomeViolation(v, "tx 2", "read version 0", "wrote version 2");
  }

  @Test
  void outOfRangeLockFails() {
    HistoryChecker.Verdict v = check(new int[4],
        tx(1, r(entry(7, 0))),
        tx(2, r(), entry(-1, 1)));
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).hasSize(2);
    assertSomeViolation(v, "tx 1", "lock 7", "outside");
    assertSomeViolation(v, "tx 2", "lock -1", "outside");
  }

  @Test
  void duplicateTxIdFails() {
    HistoryChecker.Verdict v = check(new int[2],
        tx(4, r(entry(0, 0))),
        tx(4, r(entry(1, 0))));
    assertOnlyViolation(v, "tx id 4", "2 times");
  }

  @Test
  void violationsAreCappedWithACount() {
    int locks = 100;
    List<TxRecord> txs = new ArrayList<>();
    for (int l = 0; l < locks; l++) {
      txs.add(tx(2 * l, r(entry(l, 0)), entry(l, 1)));
      txs.add(tx(2 * l + 1, r(entry(l, 0)), entry(l, 1)));
    }
    HistoryChecker.Verdict v = HistoryChecker.check(new History(new int[locks], txs));
    assertThat(v.serializable()).isFalse();
    assertThat(v.violations()).hasSize(21);
    assertThat(v.violations().get(20)).contains("80 more");
  }

  @Test
  void cycleIsReportedEvenPastTheCap() {
    List<TxRecord> txs = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      txs.add(tx(100 + i, r(entry(2, 9))));
    }
    txs.add(tx(1, r(entry(0, 0)), entry(1, 1)));
    txs.add(tx(2, r(entry(1, 0)), entry(0, 1)));
    HistoryChecker.Verdict v = HistoryChecker.check(new History(new int[3], txs));
    assertSomeViolation(v, "cycle");
    assertThat(v.violations()).last().asString().contains("10 more");
  }

  @Test
  void historyCopiesItsInputs() {
    int[] init = {0};
    long[] reads = {entry(0, 0)};
    long[] writes = {entry(0, 1)};
    List<TxRecord> list = new ArrayList<>(List.of(new TxRecord(1, reads, writes)));
    History h = new History(init, list);
    init[0] = 42;
    reads[0] = entry(0, 9);
    writes[0] = entry(0, 10);
    list.clear();
    assertThat(h.initialVersion(0)).isZero();
    assertThat(h.committed()).containsExactly(tx(1, r(entry(0, 0)), entry(0, 1)));
    h.committed().get(0).reads()[0] = entry(0, 99);
    assertThat(h.committed().get(0).reads()).containsExactly(entry(0, 0));
    assertThatThrownBy(() -> h.committed().clear())
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(HistoryChecker.check(h).serializable()).isTrue();
  }

  @Test
  void fromFlatRoundTrips() {
    History expected = randomSerial(7, 50, 8, 3, true);
    int n = expected.committed().size();
    int max = 4;
    int[] ids = new int[n];
    int[] readCounts = new int[n];
    int[] writeCounts = new int[n];
    long[] reads = new long[n * max];
    long[] writes = new long[n * max];
    // Unused slots hold garbage, as a kernel leaves them.
    Arrays.fill(reads, entry(9999, 12345));
    Arrays.fill(writes, entry(-5, 1));
    for (int i = 0; i < n; i++) {
      TxRecord t = expected.committed().get(i);
      ids[i] = t.txId();
      readCounts[i] = t.reads().length;
      writeCounts[i] = t.writes().length;
      System.arraycopy(t.reads(), 0, reads, i * max, readCounts[i]);
      System.arraycopy(t.writes(), 0, writes, i * max, writeCounts[i]);
    }
    int[] init = new int[expected.lockCount()];
    for (int l = 0; l < init.length; l++) {
      init[l] = expected.initialVersion(l);
    }
    History actual = History.fromFlat(init, ids, readCounts, reads, writeCounts, writes, max);
    assertThat(actual.lockCount()).isEqualTo(expected.lockCount());
    assertThat(actual.committed()).isEqualTo(expected.committed());
    assertThat(HistoryChecker.check(actual).violations()).isEmpty();
  }

  @Test
  void fromFlatRejectsInconsistentInput() {
    int[] init = new int[2];
    assertThatThrownBy(() -> History.fromFlat(init, new int[2], new int[1], new long[8],
        new int[2], new long[8], 4)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> History.fromFlat(init, new int[1], new int[] {5}, new long[8],
        new int[1], new long[8], 4)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> History.fromFlat(init, new int[2], new int[] {0, 3}, new long[6],
        new int[2], new long[8], 4)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void largeHistoryChecksQuickly() {
    History h = randomSerial(42, 200_000, 1 << 16, 6, true);
    long entries = 0;
    for (TxRecord t : h.committed()) {
      entries += t.reads().length + t.writes().length;
    }
    assertThat(entries).isGreaterThan(800_000L);
    long start = System.nanoTime();
    HistoryChecker.Verdict v = HistoryChecker.check(h);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(v.violations()).isEmpty();
    // Loose bound: the target is well under a second; cold JIT and shared CI hosts get slack.
    assertThat(millis).isLessThan(2_000L);
  }

  @Test
  void largeHistoryWithPlantedCycleIsCaught() {
    History base = randomSerial(43, 200_000, 1 << 16, 6, false);
    List<TxRecord> txs = new ArrayList<>(base.committed());
    int[] init = new int[base.lockCount() + 2];
    for (int l = 0; l < base.lockCount(); l++) {
      init[l] = base.initialVersion(l);
    }
    int x = base.lockCount();
    int y = x + 1;
    txs.add(100_000, tx(-1, r(entry(x, 0)), entry(y, 1)));
    txs.add(tx(-2, r(entry(y, 0)), entry(x, 1)));
    HistoryChecker.Verdict v = HistoryChecker.check(new History(init, txs));
    assertOnlyViolation(v, "cycle of 2 transactions", "tx -1", "tx -2");
  }
}
