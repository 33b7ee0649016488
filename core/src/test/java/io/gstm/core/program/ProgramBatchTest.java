package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import org.junit.jupiter.api.Test;

/**
 * What a program batch learns from its types in one pass (programs used, the one type when all
 * run the same), the columns it reads in place when asked, and the zero results a result holds
 * without storing them.
 */
class ProgramBatchTest {
  private static final ProgramSet SET = ProgramSet.parse("""
      program a(x: int32) regions r: int64 { r[x] = r[x] + 1; }
      program b(x: int32) regions r: int64 { r[x] = r[x] - 1; }
      program c(x: int32) regions r: int64 outputs v: int64 { v = r[x]; }
      """);

  private static ProgramBatch batch(int[] types) {
    return ProgramBatch.builder(SET).types(types).int32("x", new int[types.length]).build();
  }

  @Test
  void oneTypeForAllIsKnownAndSeveralAreNot() {
    assertThat(batch(new int[] {1, 1, 1}).uniformType()).isEqualTo(1);
    assertThat(batch(new int[] {1, 0, 1}).uniformType()).isEqualTo(-1);
    assertThat(batch(new int[] {1, 0, 1}).usedPrograms()).containsExactly(true, true, false);
    ProgramBatch all = ProgramBatch.builder(SET).all("c", 2_000_000)
        .int32("x", new int[2_000_000]).build();
    assertThat(all.uniformType()).isEqualTo(2);
    assertThat(all.usedPrograms()).containsExactly(false, false, true);
    assertThat(all.type(1_999_999)).isEqualTo(2);
    assertThatThrownBy(() -> all.type(2_000_000)).isInstanceOf(IndexOutOfBoundsException.class);
    // The array is made only when an engine asks for it (the JVM engine's interpreter does).
    assertThat(all.typesView()).hasSize(2_000_000).containsOnly(2);
    assertThat(all.typesView()).isSameAs(all.typesView());
    assertThatThrownBy(() -> ProgramBatch.builder(SET).all("c", 0).build())
        .hasMessage("types: a batch needs at least 1 transaction");
  }

  @Test
  void largeBatchesScanTheirTypesOnAllCoresAndNameTheFirstBadOne() {
    int n = 3_000_000;
    int[] types = new int[n];
    types[2_999_000] = 1;
    types[1_500_001] = 9;
    types[2_000_000] = -1;
    assertThatThrownBy(() -> batch(types)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("types[1500001] = 9 names no program: the set has type codes 0..2");
    types[1_500_001] = 0;
    types[2_000_000] = 0;
    ProgramBatch ok = batch(types);
    assertThat(ok.uniformType()).isEqualTo(-1);
    assertThat(ok.usedPrograms()).containsExactly(true, true, false);
  }

  @Test
  void wrappedColumnsAndTypesAreReadInPlaceOthersAreCopied() {
    int[] types = {0, 1};
    int[] x = {4, 5};
    long[] y = {6, 7};
    ProgramBatch wrapped = ProgramBatch.builder(SET).wrapTypes(types).wrapInt32("x", x)
        .wrapInt64("y", y).build();
    ProgramBatch copied = ProgramBatch.builder(SET).types(types).int32("x", x).int64("y", y)
        .build();
    x[0] = 40;
    y[1] = 70;
    types[1] = 0;
    assertThat(wrapped.column("x").bits(0)).isEqualTo(40);
    assertThat(wrapped.column("y").bits(1)).isEqualTo(70);
    assertThat(wrapped.type(1)).isZero();
    assertThat(copied.column("x").bits(0)).isEqualTo(4);
    assertThat(copied.column("y").bits(1)).isEqualTo(7);
    assertThat(copied.type(1)).isEqualTo(1);
  }

  @Test
  void resultsAndConflictsLeftUnsetReadAsZeros() {
    byte[] outcomes = {(byte) Outcome.COMMITTED.code(), (byte) Outcome.USER_ABORT.code()};
    BatchResult r = BatchResult.builder("test", outcomes).build();
    assertThat(r.results()).containsExactly(0, 0);
    assertThat(r.semanticConflicts()).containsExactly(0, 0);
    assertThat(r.results()).isSameAs(r.results());
    ProgramResult p = new ProgramResult(r, batch(new int[] {0, 1}), new long[0], (int[]) null);
    assertThat(p.abortCodes()).containsExactly(0, 0);
    assertThat(p.abortCode(1)).isZero();
  }

  /**
   * What a transaction that did not commit left in the outputs, and a code of one that did not
   * abort, read as zeros; over enough rows for the pass to run in slices on several threads.
   */
  @Test
  void outputsOfUncommittedAndCodesOfUnabortedAreZeroed() {
    int n = 300_000;
    Outcome[] kinds = Outcome.values();
    byte[] outcomes = new byte[n];
    long[] outputs = new long[2 * n];
    int[] codes = new int[n];
    for (int t = 0; t < n; t++) {
      outcomes[t] = (byte) kinds[(t * 7 + t / 1000) % kinds.length].code();
      outputs[t] = t + 1;
      outputs[n + t] = -(t + 1);
      codes[t] = t + 5;
    }
    ProgramResult p = new ProgramResult(BatchResult.builder("test", outcomes).build(),
        ProgramBatch.builder(SET).all("c", n).int32("x", new int[n]).build(), outputs, codes);
    for (int t = 0; t < n; t++) {
      boolean committed = outcomes[t] == Outcome.COMMITTED.code();
      assertThat(p.outputs()[t]).isEqualTo(committed ? t + 1 : 0);
      assertThat(p.outputs()[n + t]).isEqualTo(committed ? -(t + 1) : 0);
      assertThat(p.abortCode(t)).isEqualTo(outcomes[t] == Outcome.USER_ABORT.code() ? t + 5 : 0);
    }
  }

  /**
   * A batch's user abort codes kept as the aborted rows and their codes: the rows listed over
   * several slices equal a plain scan's, a code left in a row that did not abort is dropped, and
   * a code of 0 leaves its row out; picked codes (one per listed row) read the same.
   */
  @Test
  void abortCodesKeepTheAbortedRowsWithACode() {
    int n = 200_000;
    byte userAbort = (byte) Outcome.USER_ABORT.code();
    byte[] outcomes = new byte[n];
    int[] codes = new int[n];
    java.util.Random random = new java.util.Random(3);
    java.util.List<Integer> expected = new java.util.ArrayList<>();
    for (int t = 0; t < n; t++) {
      boolean aborted = random.nextInt(50) == 0 || t == n - 1;
      outcomes[t] = aborted ? userAbort : (byte) Outcome.COMMITTED.code();
      codes[t] = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(100); // stale where not aborted
      if (aborted) {
        expected.add(t);
      }
    }
    int[] rows = ProgramResult.userAborts(outcomes);
    assertThat(rows).containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
    ProgramResult.AbortCodes dense = ProgramResult.AbortCodes.of(rows, codes, true);
    int[] picked = new int[rows.length];
    for (int k = 0; k < rows.length; k++) {
      picked[k] = codes[rows[k]];
    }
    ProgramResult.AbortCodes sparse = ProgramResult.AbortCodes.of(rows, picked, false);
    assertThat(dense.codes()).doesNotContain(0);
    assertThat(sparse.rows()).containsExactly(dense.rows());
    assertThat(sparse.codes()).containsExactly(dense.codes());
    ProgramResult p = new ProgramResult(BatchResult.builder("test", outcomes).build(),
        ProgramBatch.builder(SET).all("c", n).int32("x", new int[n]).build(), new long[0], codes);
    int[] all = p.abortCodes();
    for (int t = 0; t < n; t++) {
      int want = outcomes[t] == userAbort ? codes[t] : 0;
      assertThat(dense.get(t)).isEqualTo(want);
      assertThat(p.abortCode(t)).isEqualTo(want);
      assertThat(all[t]).isEqualTo(want);
    }
  }

  /**
   * The committed transactions' outputs, listed per slot from every transaction's: the
   * committed transactions whose program has the slot, in order, over several slices, with
   * their values; programs with two, one and no outputs.
   */
  @Test
  void committedOutputsListTheCommittedTransactionsOfEachSlot() {
    ProgramSet set = ProgramSet.parse("""
        program two(x: int32) regions r: int64 outputs v: int64, w: int64 { v = r[x]; w = 1; }
        program one(x: int32) regions r: int64 outputs u: int64 { u = r[x]; }
        program none(x: int32) regions r: int64 { r[x] = 1; }
        """);
    int n = 200_000;
    java.util.Random random = new java.util.Random(5);
    int[] types = new int[n];
    byte[] outcomes = new byte[n];
    long[] outputs = new long[2 * n];
    for (int t = 0; t < n; t++) {
      types[t] = random.nextInt(3);
      outcomes[t] = (byte) (random.nextInt(4) == 0 ? Outcome.USER_ABORT : Outcome.COMMITTED)
          .code();
      outputs[t] = t + 1;
      outputs[n + t] = -(t + 1);
    }
    ProgramBatch batch = ProgramBatch.builder(set).types(types).int32("x", new int[n]).build();
    ProgramResult dense = new ProgramResult(BatchResult.builder("test", outcomes).build(), batch,
        outputs, (int[]) null);
    ProgramResult.CommittedOutputs listed = dense.committedOutputs();
    assertThat(listed.rows()).hasNumberOfRows(2);
    for (int s = 0; s < 2; s++) {
      java.util.List<Integer> want = new java.util.ArrayList<>();
      for (int t = 0; t < n; t++) {
        int has = types[t] == 0 ? 2 : types[t] == 1 ? 1 : 0;
        if (outcomes[t] == Outcome.COMMITTED.code() && has > s) {
          want.add(t);
        }
      }
      assertThat(listed.rows()[s]).as("slot %d", s)
          .containsExactly(want.stream().mapToInt(Integer::intValue).toArray());
      for (int k = 0; k < want.size(); k++) {
        int t = want.get(k);
        assertThat(listed.values()[s][k]).isEqualTo(s == 0 ? t + 1 : -(t + 1));
        assertThat(listed.get(s, t)).isEqualTo(listed.values()[s][k]);
      }
    }
    // The same outputs brought back committed-only read the same, transaction by transaction.
    ProgramResult sparse = new ProgramResult(dense.stats(), batch, new long[0],
        ProgramResult.AbortCodes.NONE, listed);
    for (int t = 0; t < n; t++) {
      if (types[t] == 0) {
        assertThat(sparse.outputBits(t, "w")).isEqualTo(dense.outputBits(t, "w"));
      } else if (types[t] == 1) {
        assertThat(sparse.outputBits(t, "u")).isEqualTo(dense.outputBits(t, "u"));
      }
    }
    assertThatThrownBy(() -> new ProgramResult(dense.stats(), batch, outputs,
        ProgramResult.AbortCodes.NONE, listed)).isInstanceOf(IllegalArgumentException.class);
  }
}
