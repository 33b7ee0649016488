package io.gstm.core.program;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import java.util.EnumMap;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * What a program batch did: the batch statistics ({@link #stats()}: outcomes, counters, timings,
 * history) plus, per transaction, its outputs and user abort code. Outputs and codes are 0 for a
 * transaction that did not commit, or did not abort, respectively.
 *
 * @param stats outcomes, counters, semantic conflicts per transaction, history, timings
 * @param batch the batch that ran
 * @param outputs raw output bits, {@code [slot * txCount + t]}; empty when the committed
 *     transactions' outputs alone were brought back ({@code committed})
 * @param aborts the USER_ABORT transactions that aborted with a code other than 0, and their codes
 * @param committed the committed transactions' outputs, when only they were brought back
 *     ({@link io.gstm.core.batch.RunOptions#allOutputs()} false), else null: see {@link
 *     #committedOutputs()}
 */
public record ProgramResult(BatchResult stats, ProgramBatch batch, long[] outputs,
    AbortCodes aborts, CommittedOutputs committed) {

  /** Rows per unit of the parallel passes below (and the size under which they stay on one core). */
  private static final int SLICE = 1 << 16;

  /**
   * Zeroes what a transaction that did not commit left in the outputs: a pass over the outcomes,
   * in slices on all cores (a batch of ten million took tens of ms on one).
   */
  public ProgramResult {
    java.util.Objects.requireNonNull(aborts, "aborts");
    if (committed != null && outputs.length > 0) {
      throw new IllegalArgumentException("outputs: both every transaction's and the committed "
          + "ones'");
    }
    // Nothing to zero when there are no outputs: a batch of millions skips it.
    int n = outputs.length == 0 ? 0 : batch.txCount();
    byte[] codes = stats.outcomes();
    byte ok = (byte) Outcome.COMMITTED.code();
    int slices = (n + SLICE - 1) / SLICE;
    IntStream each = IntStream.range(0, slices);
    // Masks, not branches: the JIT compiles a branch never taken as a trap, and the first
    // batch with an abort sent this loop back to the interpreter (0.3 s on a 10 M batch).
    (slices > 1 ? each.parallel() : each).forEach(k -> {
      for (int t = k * SLICE, to = Math.min(n, t + SLICE); t < to; t++) {
        long keepOutputs = (((codes[t] ^ ok) & 0xFF) - 1L) >> 63; // all ones if committed
        for (int s = 0; s * n < outputs.length; s++) {
          outputs[s * n + t] &= keepOutputs;
        }
      }
    });
  }

  /**
   * As the canonical constructor, from a code per transaction ({@code abortCodes}, or null when
   * no transaction aborted with a code); a code of a transaction that did not end USER_ABORT is
   * ignored.
   */
  public ProgramResult(BatchResult stats, ProgramBatch batch, long[] outputs, int[] abortCodes) {
    this(stats, batch, outputs, abortCodes == null ? AbortCodes.NONE
        : AbortCodes.of(userAborts(stats.outcomes()), abortCodes, true), null);
  }

  /** Every transaction's outputs ({@code outputs}) and these abort codes. */
  public ProgramResult(BatchResult stats, ProgramBatch batch, long[] outputs,
      AbortCodes aborts) {
    this(stats, batch, outputs, aborts, null);
  }

  /**
   * The committed transactions' outputs, per output slot: the committed transactions whose
   * program has the slot, ascending, and their raw bits.
   *
   * @param rows per slot, the transactions
   * @param values per slot, their outputs' raw bits
   */
  public record CommittedOutputs(int[][] rows, long[][] values) {
    public CommittedOutputs {
      if (rows.length != values.length) {
        throw new IllegalArgumentException("committed outputs: " + rows.length + " slots of "
            + "rows and " + values.length + " of values");
      }
      for (int s = 0; s < rows.length; s++) {
        if (rows[s].length != values[s].length) {
          throw new IllegalArgumentException("committed outputs, slot " + s + ": "
              + rows[s].length + " rows and " + values[s].length + " values");
        }
      }
    }

    /** Slot {@code slot} of transaction {@code t}: 0 when it has none, or did not commit. */
    public long get(int slot, int t) {
      int k = java.util.Arrays.binarySearch(rows[slot], t);
      return k >= 0 ? values[slot][k] : 0;
    }
  }

  /**
   * The committed transactions' outputs: as brought back ({@code committed}), or listed from
   * every transaction's ({@code outputs}).
   */
  public CommittedOutputs committedOutputs() {
    if (committed != null) {
      return committed;
    }
    int[][] rows = committedWithOutputs(stats.outcomes(), batch);
    int n = batch.txCount();
    long[][] values = new long[rows.length][];
    for (int s = 0; s < rows.length; s++) {
      values[s] = new long[rows[s].length];
      for (int k = 0; k < rows[s].length; k++) {
        values[s][k] = outputs[s * n + rows[s][k]];
      }
    }
    return new CommittedOutputs(rows, values);
  }

  /**
   * Per output slot of the batch's programs, the committed transactions whose program has it,
   * ascending: a row's mark is how many slots it fills (its program's outputs when it committed,
   * else 0), counted per slice on all cores as a histogram of marks, then listed.
   */
  public static int[][] committedWithOutputs(byte[] outcomes, ProgramBatch batch) {
    int slots = batch.programs().maxOutputs();
    int[] outputsOf = new int[batch.programs().size()];
    for (int p = 0; p < outputsOf.length; p++) {
      outputsOf[p] = batch.programs().get(p).outputs().size();
    }
    // One program for all: its outputs; else each row's program's, read from the types.
    int uniform = batch.uniformType();
    int[] types = uniform >= 0 ? null : batch.typesView();
    int uniformMark = uniform >= 0 ? outputsOf[uniform] : 0;
    byte committed = (byte) Outcome.COMMITTED.code();
    int n = outcomes.length;
    int pieces = (n + SLICE - 1) / SLICE;
    int[][] firsts = new int[slots][pieces + 1];
    IntStream each = IntStream.range(0, pieces);
    (pieces > 1 ? each.parallel() : each).forEach(k -> {
      int[] marks = new int[slots + 1];
      int to = Math.min(n, (k + 1) * SLICE);
      if (types == null) {
        int yes = 0;
        for (int t = k * SLICE; t < to; t++) {
          yes += (((outcomes[t] ^ committed) & 0xFF) - 1) >>> 31;
        }
        marks[uniformMark] = yes;
      } else if (slots == 1) {
        int yes = 0; // committed rows whose program has the output (no store a row)
        for (int t = k * SLICE; t < to; t++) {
          yes += ((((outcomes[t] ^ committed) & 0xFF) - 1) >>> 31) & outputsOf[types[t]];
        }
        marks[1] = yes;
      } else {
        for (int t = k * SLICE; t < to; t++) {
          int yes = (((outcomes[t] ^ committed) & 0xFF) - 1) >>> 31;
          marks[outputsOf[types[t]] & -yes]++;
        }
      }
      int filling = 0; // rows whose mark is above s fill slot s
      for (int s = slots - 1; s >= 0; s--) {
        filling += marks[s + 1];
        firsts[s][k + 1] = filling;
      }
    });
    int[][] rows = new int[slots][];
    for (int s = 0; s < slots; s++) {
      java.util.Arrays.parallelPrefix(firsts[s], Integer::sum);
      rows[s] = new int[firsts[s][pieces]];
    }
    IntStream listed = IntStream.range(0, pieces).filter(k -> slots > 0
        && firsts[0][k + 1] > firsts[0][k]); // slot 0 is filled by every row that fills any
    (pieces > 1 ? listed.parallel() : listed).forEach(k -> {
      int to = Math.min(n, (k + 1) * SLICE);
      if (slots == 1) {
        // Every row written at the next place, which only a taken row moves on (no branch a
        // row); done once the slice's last taken row is listed.
        int[] listing = rows[0];
        int end = firsts[0][k + 1];
        int at = firsts[0][k];
        for (int t = k * SLICE; t < to && at < end; t++) {
          int yes = (((outcomes[t] ^ committed) & 0xFF) - 1) >>> 31;
          listing[at] = t;
          at += yes & (types == null ? uniformMark : outputsOf[types[t]]);
        }
        return;
      }
      int[] at = new int[slots];
      for (int s = 0; s < slots; s++) {
        at[s] = firsts[s][k];
      }
      for (int t = k * SLICE; t < to; t++) {
        int yes = (((outcomes[t] ^ committed) & 0xFF) - 1) >>> 31;
        int mark = (types == null ? uniformMark : outputsOf[types[t]]) & -yes;
        for (int s = 0; s < mark; s++) {
          rows[s][at[s]++] = t;
        }
      }
    });
    return rows;
  }

  /**
   * The transactions with a user abort code, as rows (ascending) and codes: an epoch of ten
   * million transfers has a few hundred, and a code per transaction was 40 MB.
   *
   * @param rows the transactions, ascending
   * @param codes their codes, none of them 0
   */
  public record AbortCodes(int[] rows, int[] codes) implements java.io.Serializable {
    /** No transaction aborted with a code. */
    public static final AbortCodes NONE = new AbortCodes(new int[0], new int[0]);

    public AbortCodes {
      if (rows.length != codes.length) {
        throw new IllegalArgumentException("abort codes: " + rows.length + " rows and "
            + codes.length + " codes");
      }
    }

    /**
     * The codes of transactions {@code rows} (ascending), {@code values[k]} being row {@code k}'s
     * ({@code dense}: false) or transaction {@code rows[k]}'s ({@code dense}: true, a code per
     * transaction); the rows whose code is 0 are left out.
     */
    public static AbortCodes of(int[] rows, int[] values, boolean dense) {
      int kept = 0;
      for (int k = 0; k < rows.length; k++) {
        kept += (dense ? values[rows[k]] : values[k]) != 0 ? 1 : 0;
      }
      int[] r = new int[kept];
      int[] c = new int[kept];
      for (int k = 0, o = 0; k < rows.length; k++) {
        int v = dense ? values[rows[k]] : values[k];
        if (v != 0) {
          r[o] = rows[k];
          c[o++] = v;
        }
      }
      return kept == 0 ? NONE : new AbortCodes(r, c);
    }

    /** Transaction {@code t}'s code, 0 when it has none. */
    public int get(int t) {
      int k = java.util.Arrays.binarySearch(rows, t);
      return k >= 0 ? codes[k] : 0;
    }

    /**
     * The codes of transactions {@code ts} (ascending), 0 where one has none: both lists walked
     * together, a slice of {@code ts} per core, each slice's start found by one search (a search
     * per transaction took 15-30 ms of an epoch whose deletes leave a million transactions a
     * missing key).
     */
    public int[] get(int[] ts) {
      int[] out = new int[ts.length];
      if (rows.length == 0) {
        return out;
      }
      IntStream slices = IntStream.range(0, (ts.length + SLICE - 1) / SLICE);
      (ts.length > SLICE ? slices.parallel() : slices).forEach(sl -> {
        int from = sl * SLICE;
        int to = Math.min(ts.length, from + SLICE);
        int k = java.util.Arrays.binarySearch(rows, ts[from]);
        k = k >= 0 ? k : -k - 1;
        for (int i = from; i < to; i++) {
          int t = ts[i];
          while (k < rows.length && rows[k] < t) {
            k++;
          }
          out[i] = k < rows.length && rows[k] == t ? codes[k] : 0;
        }
      });
      return out;
    }
  }

  /**
   * The transactions that ended USER_ABORT, ascending: counted per slice on all cores, then
   * listed in the slices that have some (without a branch per transaction in the count, for
   * the reason above).
   */
  public static int[] userAborts(byte[] outcomes) {
    byte userAbort = (byte) Outcome.USER_ABORT.code();
    int n = outcomes.length;
    int slices = (n + SLICE - 1) / SLICE;
    int[] firsts = new int[slices + 1];
    IntStream each = IntStream.range(0, slices);
    (slices > 1 ? each.parallel() : each).forEach(k -> {
      int c = 0;
      for (int t = k * SLICE, to = Math.min(n, t + SLICE); t < to; t++) {
        c += (((outcomes[t] ^ userAbort) & 0xFF) - 1) >>> 31;
      }
      firsts[k + 1] = c;
    });
    java.util.Arrays.parallelPrefix(firsts, Integer::sum);
    int[] rows = new int[firsts[slices]];
    IntStream listed = IntStream.range(0, slices).filter(k -> firsts[k + 1] > firsts[k]);
    (slices > 1 ? listed.parallel() : listed).forEach(k -> {
      int at = firsts[k];
      for (int t = k * SLICE, to = Math.min(n, t + SLICE); t < to; t++) {
        if (outcomes[t] == userAbort) {
          rows[at++] = t;
        }
      }
    });
    return rows;
  }

  public Outcome outcome(int t) {
    return stats.outcome(t);
  }

  /** Semantic conflicts transaction {@code t} met (postponements, or in-place retries). */
  public int postponements(int t) {
    return stats.semanticConflicts(t);
  }

  /** Transaction {@code t}'s user abort code, 0 when it did not abort with one. */
  public int abortCode(int t) {
    return aborts.get(t);
  }

  /** The code of each USER_ABORT transaction, else 0: an array per transaction, made here. */
  public int[] abortCodes() {
    int[] all = new int[batch.txCount()];
    for (int k = 0; k < aborts.rows().length; k++) {
      all[aborts.rows()[k]] = aborts.codes()[k];
    }
    return all;
  }

  /** Raw bits of output {@code name} of transaction {@code t}'s program. */
  public long outputBits(int t, String name) {
    CompiledProgram p = batch.programs().get(batch.type(t));
    int o = p.outputIndex(name);
    if (o < 0) {
      throw new IllegalArgumentException("output '" + name + "': program '" + p.name()
          + "' has outputs " + p.outputs().stream().map(Program.Output::name).toList());
    }
    return committed != null ? committed.get(o, t) : outputs[o * batch.txCount() + t];
  }

  /**
   * Output {@code name} of transaction {@code t} as a long: an integer output's value, a float
   * output converted as Java's {@code (long)} does.
   */
  public long outputLong(int t, String name) {
    long bits = outputBits(t, name);
    return switch (outputType(t, name)) {
      case INT32 -> (int) bits;
      case INT64 -> bits;
      case FLOAT32 -> (long) Float.intBitsToFloat((int) bits);
      default -> (long) Double.longBitsToDouble(bits);
    };
  }

  /** Output {@code name} of transaction {@code t}, as a double (any numeric output). */
  public double outputDouble(int t, String name) {
    long bits = outputBits(t, name);
    ValueType type = outputType(t, name);
    return switch (type) {
      case FLOAT32 -> Float.intBitsToFloat((int) bits);
      case FLOAT64 -> Double.longBitsToDouble(bits);
      case INT32 -> (int) bits;
      default -> bits;
    };
  }

  private ValueType outputType(int t, String name) {
    CompiledProgram p = batch.programs().get(batch.type(t));
    return p.outputs().get(p.outputIndex(name)).type();
  }

  /** How many transactions ended each way. */
  public Map<Outcome, Integer> outcomeCounts() {
    Map<Outcome, Integer> m = new EnumMap<>(Outcome.class);
    for (int t = 0; t < batch.txCount(); t++) {
      m.merge(stats.outcome(t), 1, Integer::sum);
    }
    return m;
  }

  public long commits() {
    return stats.commits();
  }
}
