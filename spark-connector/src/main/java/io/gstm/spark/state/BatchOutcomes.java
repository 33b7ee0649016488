package io.gstm.spark.state;

import static io.gstm.spark.state.BatchRunner.RANGE_ROWS;
import static io.gstm.spark.state.BatchRunner.rowRanges;

import io.gstm.core.batch.Outcome;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A batch's result into its rows' outcomes ({@link OutcomeChunk}): every row's code, each output
 * column's rows and values, then the rows with more to say (an abort code, postponements, a key
 * a guarded program found missing). In passes, so that no loop over every transaction branches
 * on how one ended: the JIT compiles a branch that its profile never took as a trap, and the
 * first batch with an abort sent the outcome loop back to the interpreter (0.1-0.2 s on ten
 * million rows).
 */
final class BatchOutcomes {
  private static final byte USER_ABORT = (byte) Outcome.USER_ABORT.code();

  private BatchOutcomes() {}

  /**
   * The outcomes of {@code batch}'s transactions ({@code r}) into their rows of {@code out}:
   * transaction t's row is {@code rowOf[t]} ({@code rowOf} null: row t); {@code sorted}: those
   * rows ascend with t (not after a presort); {@code missing}: the batch's one cause for a key
   * a guarded program found missing.
   */
  static void into(ApplyPlan plan, ProgramBatch batch, ProgramResult r, int[] rowOf,
      boolean sorted, OutcomeChunk out, String missing) {
    int m = batch.txCount();
    rowRanges(m).forEach(range -> codes(r, rowOf, range * RANGE_ROWS,
        Math.min(m, (range + 1) * RANGE_ROWS), out));
    outputs(plan, batch, r, rowOf, sorted, out);
    int[] conflicts = r.stats().semanticConflictsCounted() ? r.stats().semanticConflicts() : null;
    int[] rare = rare(r.stats().outcomes(), conflicts, m);
    int[] rows = new int[rare.length];
    int[] counts = new int[rare.length];
    int[] abortCodes = r.aborts().get(rare);
    IntStream each = IntStream.range(0, rare.length);
    (rare.length > RANGE_ROWS ? each.parallel() : each).forEach(k -> {
      int t = rare[k];
      rows[k] = rowOf == null ? t : rowOf[t];
      int code = abortCodes[k];
      if (r.outcome(t) == Outcome.USER_ABORT && code == KeyExistence.MISSING
          && plan.guarded[batch.type(t)]) {
        out.missing(rows[k], missing); // a guarded program found a key missing
        abortCodes[k] = 0; // its outcome says it all
      } else {
        counts[k] = r.postponements(t);
      }
    });
    if (!sorted) {
      sortByRow(rows, counts, abortCodes);
    }
    out.rare(rows, counts, abortCodes);
  }

  /**
   * Transactions {@code [from, to)} of the batch into their rows' outcome codes, with no branch
   * on what they ended as. The rows with more to say are {@link #rare}'s.
   */
  private static void codes(ProgramResult r, int[] rowOf, int from, int to, OutcomeChunk out) {
    byte[] codes = r.stats().outcomes();
    if (rowOf == null) {
      System.arraycopy(codes, from, out.codes, from, to - from);
    } else {
      for (int t = from; t < to; t++) {
        out.codes[rowOf[t]] = codes[t];
      }
    }
  }

  /**
   * Each output column's rows and values: the committed transactions whose program has the
   * output ({@link ProgramResult#committedOutputs()}, per output slot), in pieces of a slot's
   * list counted per column, then listed in order on all cores; {@code sorted}: the rows of
   * transactions in batch order ascend (not after a presort). A column that several slots fill
   * (programs that put the output in different places) is sorted by row.
   */
  private static void outputs(ApplyPlan plan, ProgramBatch batch, ProgramResult r, int[] rowOf,
      boolean sorted, OutcomeChunk out) {
    int columns = out.outputColumns(); // the union of the programs' outputs
    if (columns == 0) {
      return;
    }
    ApplyPlan.Outputs[] of = plan.outputsOf;
    ProgramResult.CommittedOutputs committed = r.committedOutputs();
    int slots = committed.rows().length;
    int[] fedBy = new int[columns]; // per column, the slots that fill it, as bits
    for (ApplyPlan.Outputs own : of) {
      for (int sl = 0; sl < own.columns().length; sl++) {
        fedBy[own.columns()[sl]] |= 1 << Math.min(31, sl);
      }
    }
    // Pieces of RANGE_ROWS entries of each slot's list, in slot order.
    List<int[]> pieces = new ArrayList<>();
    for (int sl = 0; sl < slots; sl++) {
      for (int from = 0; from < committed.rows()[sl].length; from += RANGE_ROWS) {
        pieces.add(new int[] {sl, from, Math.min(committed.rows()[sl].length, from + RANGE_ROWS)});
      }
    }
    int[][] firsts = new int[columns][pieces.size() + 1];
    IntStream.range(0, pieces.size()).parallel().forEach(k -> {
      int[] piece = pieces.get(k);
      int[] rows = committed.rows()[piece[0]];
      int[] counts = new int[columns];
      for (int e = piece[1]; e < piece[2]; e++) {
        // Listed in slot sl: the program has output sl, hence its column.
        counts[of[batch.type(rows[e])].columns()[piece[0]]]++;
      }
      for (int c = 0; c < columns; c++) {
        firsts[c][k + 1] = counts[c];
      }
    });
    int[][] rows = new int[columns][];
    long[][] values = new long[columns][];
    for (int c = 0; c < columns; c++) {
      Arrays.parallelPrefix(firsts[c], Integer::sum);
      rows[c] = new int[firsts[c][pieces.size()]];
      values[c] = new long[rows[c].length];
    }
    IntStream.range(0, pieces.size()).parallel().forEach(k -> {
      int[] piece = pieces.get(k);
      int sl = piece[0];
      int[] ts = committed.rows()[sl];
      long[] bits = committed.values()[sl];
      int[] at = new int[columns];
      for (int c = 0; c < columns; c++) {
        at[c] = firsts[c][k];
      }
      for (int e = piece[1]; e < piece[2]; e++) {
        int t = ts[e];
        ApplyPlan.Outputs own = of[batch.type(t)];
        int c = own.columns()[sl];
        rows[c][at[c]] = rowOf == null ? t : rowOf[t];
        values[c][at[c]++] = OutcomeChunk.convert(own.types()[sl], plan.outputTypes[c], bits[e]);
      }
    });
    for (int c = 0; c < columns; c++) {
      if (!sorted || Integer.bitCount(fedBy[c]) > 1) {
        sortByRow(rows[c], values[c]);
      }
      out.outputs(c, rows[c], values[c]);
    }
  }

  /** {@code rows} ascending, {@code a} and {@code b} moved with them (a few rows: rare ones). */
  private static void sortByRow(int[] rows, int[] a, int[] b) {
    long[] keyed = new long[rows.length];
    for (int k = 0; k < rows.length; k++) {
      keyed[k] = (long) rows[k] << 32 | k;
    }
    Arrays.sort(keyed);
    int[] wasA = a.clone();
    int[] wasB = b.clone();
    for (int k = 0; k < keyed.length; k++) {
      rows[k] = (int) (keyed[k] >>> 32);
      a[k] = wasA[(int) keyed[k]];
      b[k] = wasB[(int) keyed[k]];
    }
  }

  /** {@code rows} ascending, {@code values} moved with them. */
  private static void sortByRow(int[] rows, long[] values) {
    long[] keyed = new long[rows.length];
    for (int k = 0; k < rows.length; k++) {
      keyed[k] = (long) rows[k] << 32 | k;
    }
    Arrays.parallelSort(keyed);
    long[] was = values.clone();
    for (int k = 0; k < keyed.length; k++) {
      rows[k] = (int) (keyed[k] >>> 32);
      values[k] = was[(int) keyed[k]];
    }
  }

  /**
   * The transactions that aborted with a code or met semantic conflicts ({@code conflicts}, or
   * null where none were counted: the USER_ABORTs, {@link ProgramResult#userAborts}), ascending:
   * counted per range without a branch on the data, then listed only in the ranges that have some
   * (an epoch of ten million transfers has a few hundred).
   */
  private static int[] rare(byte[] codes, int[] conflicts, int m) {
    if (conflicts == null) {
      return ProgramResult.userAborts(codes);
    }
    int ranges = (m + RANGE_ROWS - 1) / RANGE_ROWS;
    int[] firsts = new int[ranges + 1];
    rowRanges(m).forEach(range -> {
      int from = range * RANGE_ROWS;
      firsts[range + 1] = countRare(codes, conflicts, from, Math.min(m, from + RANGE_ROWS));
    });
    Arrays.parallelPrefix(firsts, Integer::sum);
    int[] rare = new int[firsts[ranges]];
    if (rare.length > 0) {
      rowRanges(m).forEach(range -> {
        if (firsts[range + 1] > firsts[range]) {
          int at = firsts[range];
          for (int t = range * RANGE_ROWS, to = Math.min(m, t + RANGE_ROWS); t < to; t++) {
            if (codes[t] == USER_ABORT || conflicts[t] != 0) {
              rare[at++] = t;
            }
          }
        }
      });
    }
    return rare;
  }

  /** The USER_ABORTs and the conflicted among {@code [from, to)}, without a branch. */
  private static int countRare(byte[] codes, int[] conflicts, int from, int to) {
    int c = 0;
    for (int t = from; t < to; t++) {
      int userAbort = (((codes[t] ^ USER_ABORT) & 0xFF) - 1) >>> 31;
      c += userAbort | (conflicts[t] | -conflicts[t]) >>> 31;
    }
    return c;
  }
}
