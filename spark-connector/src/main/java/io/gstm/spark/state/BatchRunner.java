package io.gstm.spark.state;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.Column;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.FreshArrays;
import io.gstm.spark.exec.RecycledArrays;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Runs routed transactions as one program batch on a store: key slots become the rows' local
 * indices (a key the store lacks ends its transaction MISSING_KEY), then outcomes, semantic
 * conflicts, abort codes, outputs and, when asked, a serial order go into the outcome chunk.
 */
final class BatchRunner {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(BatchRunner.class);
  /** Local index of a key, or -1. */
  interface KeyIndex {
    int local(long key);
  }

  /** Rows per unit of parallel work (and the size below which a batch stays on one thread). */
  static final int RANGE_ROWS = 1 << 16;

  private BatchRunner() {}

  /** The ranges of {@link #RANGE_ROWS} rows of {@code n}, in parallel when there are several. */
  static IntStream rowRanges(int n) {
    int ranges = (n + RANGE_ROWS - 1) / RANGE_ROWS;
    IntStream r = IntStream.range(0, ranges);
    return ranges > 1 ? r.parallel() : r;
  }

  /** Whether some of the first {@code n} rows already has its outcome (a scan on all cores). */
  private static boolean anyDecided(byte[] codes, int n) {
    return rowRanges(n).anyMatch(range -> {
      for (int i = range * RANGE_ROWS, to = Math.min(n, i + RANGE_ROWS); i < to; i++) {
        if (codes[i] != 0) {
          return true;
        }
      }
      return false;
    });
  }

  /**
   * The rows among the first {@code n} whose outcome is not yet decided, ascending: counted per
   * range, then written at each range's place, on all cores (a batch with inserts has a few
   * percent of its 10 M rows decided before it runs, every epoch).
   */
  private static int[] undecided(byte[] codes, int n) {
    int ranges = (n + RANGE_ROWS - 1) / RANGE_ROWS;
    int[] firsts = new int[ranges + 1];
    rowRanges(n).forEach(range -> {
      int c = 0;
      for (int i = range * RANGE_ROWS, to = Math.min(n, i + RANGE_ROWS); i < to; i++) {
        c += codes[i] == 0 ? 1 : 0;
      }
      firsts[range + 1] = c;
    });
    Arrays.parallelPrefix(firsts, Integer::sum);
    int[] rows = new int[firsts[ranges]];
    rowRanges(n).forEach(range -> {
      int at = firsts[range];
      for (int i = range * RANGE_ROWS, to = Math.min(n, i + RANGE_ROWS); i < to; i++) {
        if (codes[i] == 0) {
          rows[at++] = i;
        }
      }
    });
    return rows;
  }

  /** {@code from} at each of {@code kept}, on all cores. */
  private static int[] gather(int[] from, int[] kept) {
    int[] to = new int[kept.length];
    rowRanges(kept.length).forEach(range -> {
      for (int t = range * RANGE_ROWS, e = Math.min(kept.length, t + RANGE_ROWS); t < e; t++) {
        to[t] = from[kept[t]];
      }
    });
    return to;
  }

  /** As {@link #gather(int[], int[])}, for a raw column. */
  private static long[] gather(long[] from, int[] kept) {
    long[] to = new long[kept.length];
    rowRanges(kept.length).forEach(range -> {
      for (int t = range * RANGE_ROWS, e = Math.min(kept.length, t + RANGE_ROWS); t < e; t++) {
        to[t] = from[kept[t]];
      }
    });
    return to;
  }

  /**
   * Row {@code i}'s keys into position {@code i} of their columns as local indices; returns its
   * program. A key the store lacks sets the row's outcome (MISSING_KEY) instead.
   */
  private static int keysToColumns(ApplyPlan plan, TxChunk in, TxChunk.Slots slots, int i,
      KeyIndex index, int[][] locals, int[][] keyCols, OutcomeChunk out) {
    int type = in.types[i];
    for (int s : plan.keySlotsOf[type]) {
      int local = locals != null ? locals[s][i] : index.local(slots.get(s, i));
      if (local < 0) {
        missingKey(plan, slots, s, i, out);
        return type;
      }
      if (locals == null) {
        keyCols[s][i] = local; // with locals, the key columns are those rows already
      }
    }
    return type;
  }

  /** Row {@code i}'s outcome: its key in slot {@code s} names no row of the store. */
  private static void missingKey(ApplyPlan plan, TxChunk.Slots slots, int s, int i,
      OutcomeChunk out) {
    out.codes[i] = OutcomeChunk.MISSING_KEY;
    out.cause(i, "key " + slots.get(s, i) + " (column '" + plan.slots[s].name()
        + "') is not in state '" + plan.state.name() + "'");
  }

  /**
   * Slot {@code s}'s column of the batch: its local indices (a key slot), else the routed raw
   * bits, read in place when every row runs.
   */
  private static Column column(ApplyPlan.Slot slot, int[] keys, long[] bits, int n) {
    if (slot.key()) {
      return Column.wrapInt32(slot.name(), keys);
    }
    return Column.wrapBits(slot.name(), slot.type(),
        bits.length == n ? bits : Arrays.copyOf(bits, n));
  }

  /** The batch's own key and type columns, to {@link RecycledArrays}: its batch has run. */
  private static void giveBack(int[][] fresh) {
    for (int[] a : fresh) {
      RecycledArrays.give(a);
    }
  }

  /**
   * Every row's keys as local indices, a key slot's column at a time (one program: every row
   * names the same key slots, so a row already decided is looked up too, harmlessly); a key the
   * store lacks decides its row's outcome, the first such slot naming the cause.
   */
  private static void keysOfOneProgram(ApplyPlan plan, TxChunk in, KeyIndex index,
      int[][] keyCols, OutcomeChunk out) {
    int n = in.n;
    int[] keySlots = plan.keySlotsOf[0];
    boolean[] missing = new boolean[(n + RANGE_ROWS - 1) / RANGE_ROWS];
    rowRanges(n).forEach(range -> {
      int from = range * RANGE_ROWS;
      int to = Math.min(n, from + RANGE_ROWS);
      for (int s : keySlots) {
        missing[range] |= in.localsInto(s, from, to, index, keyCols[s]);
      }
    });
    rowRanges(n).forEach(range -> {
      if (!missing[range]) {
        return;
      }
      TxChunk.Slots slots = in.slots();
      for (int i = range * RANGE_ROWS, to = Math.min(n, i + RANGE_ROWS); i < to; i++) {
        if (out.codes[i] != 0) {
          continue;
        }
        for (int s : keySlots) {
          if (keyCols[s][i] < 0) {
            missingKey(plan, slots, s, i, out);
            break;
          }
        }
      }
    });
  }

  /**
   * Row by row, each on its own (a large batch on the executor's idle cores): keys become
   * local indices, and a key the store lacks decides its row's outcome.
   */
  private static void keysRowByRow(ApplyPlan plan, TxChunk in, KeyIndex index,
      int[][] locals, int[][] keyCols, int[] types, OutcomeChunk out) {
    int n = in.n;
    rowRanges(n).forEach(range -> {
      TxChunk.Slots slots = in.slots();
      for (int i = range * RANGE_ROWS, to = Math.min(n, i + RANGE_ROWS); i < to; i++) {
        if (out.codes[i] == 0) {
          int type = keysToColumns(plan, in, slots, i, index, locals, keyCols, out);
          if (types != null) {
            types[i] = type;
          }
        }
      }
    });
  }

  /**
   * Returns the transactions run and the engine's kernel time. {@code locals}, when not null,
   * holds each key slot's rows, per row, already looked up.
   */
  static long[] run(Engine engine, TxStore store, ApplyPlan plan, GstmSettings settings,
      TxChunk in, KeyIndex index, int[][] locals, OutcomeChunk out, long serialBase) {
    long t0 = System.nanoTime();
    int n = in.n;
    int slotCount = plan.slots.length;
    // Only the keys are new columns (local indices, int32); the other slots go in as routed.
    boolean oneProgram = plan.programCount() == 1;
    int keys = 0;
    for (ApplyPlan.Slot slot : plan.slots) {
      keys += slot.key() ? 1 : 0;
    }
    // Rows already looked up (a state with inserts): the key columns are those rows.
    // Recycled (each row that runs is written below; the others are packed away before the
    // batch runs), given back once the batch ran.
    int[][] fresh = new int[(locals != null ? 0 : keys) + (oneProgram ? 0 : 1)][];
    Runnable[] take = new Runnable[fresh.length];
    for (int k = 0; k < fresh.length; k++) {
      int at = k;
      take[k] = () -> fresh[at] = RecycledArrays.ints(n);
    }
    FreshArrays.together(n, take);
    int[][] keyCols = new int[slotCount][];
    for (int s = 0, k = 0; s < slotCount; s++) {
      if (plan.slots[s].key()) {
        keyCols[s] = locals != null ? locals[s] : fresh[k++];
      }
    }
    int[] types = oneProgram ? null : fresh[fresh.length - 1];
    if (oneProgram && locals == null) {
      keysOfOneProgram(plan, in, index, keyCols, out);
    } else {
      keysRowByRow(plan, in, index, locals, keyCols, types, out);
    }
    // The rows to run, in order: usually every row (rows stays null: row t is transaction t),
    // else the others packed to the front (into copies: the routed slots are the chunk's).
    int[] rows = null;
    int m = n;
    long[][] bits = new long[slotCount][];
    for (int s = 0; s < slotCount; s++) {
      bits[s] = plan.slots[s].key() ? null : in.slots[s];
    }
    int[] runTypes = types;
    if (anyDecided(out.codes, n)) {
      rows = undecided(out.codes, n);
      m = rows.length;
      int[] kept = rows;
      for (int s = 0; s < slotCount; s++) {
        if (keyCols[s] != null) {
          keyCols[s] = gather(keyCols[s], kept);
        } else {
          bits[s] = gather(bits[s], kept);
        }
      }
      if (types != null) {
        runTypes = gather(types, kept);
      }
    }
    if (m == 0) {
      giveBack(fresh);
      return new long[] {0, 0};
    }
    // The arrays are this batch's own or the chunk's, unchanged until it ran: read in place.
    ProgramBatch.Builder b = ProgramBatch.builder(plan.programs());
    if (oneProgram) {
      b.all(plan.programs().get(0).name(), m);
    } else {
      b.wrapTypes(runTypes);
    }
    for (int s = 0; s < slotCount; s++) {
      b.column(column(plan.slots[s], keyCols[s], bits[s], m));
    }
    int tpb = settings.transactions().threadsPerBlock();
    long perBlock = (long) tpb * ProgramBatch.DEFAULT_TX_PER_THREAD;
    b.grid(tpb, (int) Math.max(1, (m + perBlock - 1) / perBlock));
    ProgramBatch batch = b.build();
    int[] order = null;
    if (plan.presort) {
      ProgramBatch.Sorted sorted = batch.presort();
      batch = sorted.batch();
      order = sorted.order();
    }
    // The outcomes read the programs' outputs, never the per-transaction results.
    RunOptions options = RunOptions.defaults().withMaxRetries(settings.transactions().retryLimit())
        .withPolicy(plan.policy).withHistory(plan.recordOrder).withoutResults()
        .withCommittedOutputsOnly();
    if (plan.semanticLimit > 0) {
      options = options.withSemanticLimit(plan.semanticLimit);
    }
    long t1 = System.nanoTime();
    ProgramResult r = engine.run(store, batch, options);
    long t2 = System.nanoTime();
    // The row of transaction t (null: row t).
    int[] rowOf = rows == null && order == null ? null : new int[m];
    if (rowOf != null) {
      int[] packed = rows;
      int[] sorted = order;
      rowRanges(m).forEach(range -> {
        for (int t = range * RANGE_ROWS, to = Math.min(rowOf.length, t + RANGE_ROWS); t < to;
            t++) {
          int k = sorted == null ? t : sorted[t];
          rowOf[t] = packed == null ? k : packed[k];
        }
      });
    }
    // One cause for every row a missing key ended (a few percent of an epoch with deletes).
    String missing = "a key of the transaction names no row of state '" + plan.state.name()
        + "' (never inserted, or deleted)";
    BatchOutcomes.into(plan, batch, r, rowOf, order == null, out, missing);
    if (plan.recordOrder) {
      HistoryChecker.Verdict h = HistoryChecker.check(r.stats().history());
      if (!h.serializable()) {
        throw new IllegalStateException("gstm state '" + plan.state.name() + "': the batch's "
            + "history is not serializable: " + h.violations());
      }
      out.serial = new long[out.n];
      int[] serial = h.serialOrder();
      for (int pos = 0; pos < serial.length; pos++) {
        out.serial[rowOf == null ? serial[pos] : rowOf[serial[pos]]] = serialBase + pos;
      }
    }
    giveBack(fresh);
    LOG.debug("batch of {}: build {} ms, Engine.run {} ms (upload {} ms, kernel {} ms, "
            + "download {} ms), outcomes {} ms", m, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000,
        r.stats().uploadNanos() / 1_000_000, r.stats().kernelNanos() / 1_000_000,
        r.stats().downloadNanos() / 1_000_000, (System.nanoTime() - t2) / 1_000_000);
    return new long[] {m, r.stats().kernelNanos()};
  }
}
