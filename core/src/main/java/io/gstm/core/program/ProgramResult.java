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
 * @param outputs raw output bits, {@code [slot * txCount + t]}
 * @param abortCodes the code of each USER_ABORT transaction, else 0; an engine passes null when no
 *     transaction aborted with a code (the accessor then returns zeros)
 */
public record ProgramResult(BatchResult stats, ProgramBatch batch, long[] outputs,
    int[] abortCodes) {

  /** Rows per unit of the parallel pass below (and the size under which it stays on one core). */
  private static final int SLICE = 1 << 16;

  /**
   * Zeroes what a transaction that did not commit (or abort) left behind: a pass over the
   * outcomes, in slices on all cores (a batch of ten million took tens of ms on one).
   */
  public ProgramResult {
    // Nothing to zero when there are neither outputs nor codes: a batch of millions skips it.
    int n = outputs.length == 0 && abortCodes == null ? 0 : batch.txCount();
    byte[] codes = stats.outcomes();
    byte committed = (byte) Outcome.COMMITTED.code();
    byte userAbort = (byte) Outcome.USER_ABORT.code();
    int slices = (n + SLICE - 1) / SLICE;
    IntStream each = IntStream.range(0, slices);
    // Masks, not branches: the JIT compiles a branch never taken as a trap, and the first
    // batch with an abort sent this loop back to the interpreter (0.3 s on a 10 M batch).
    (slices > 1 ? each.parallel() : each).forEach(k -> {
      for (int t = k * SLICE, to = Math.min(n, t + SLICE); t < to; t++) {
        byte o = codes[t];
        long keepOutputs = (((o ^ committed) & 0xFF) - 1L) >> 63; // all ones when committed
        for (int s = 0; s * n < outputs.length; s++) {
          outputs[s * n + t] &= keepOutputs;
        }
        if (abortCodes != null) {
          abortCodes[t] &= (((o ^ userAbort) & 0xFF) - 1) >> 31; // kept when USER_ABORT
        }
      }
    });
  }

  public Outcome outcome(int t) {
    return stats.outcome(t);
  }

  /** Semantic conflicts transaction {@code t} met (postponements, or in-place retries). */
  public int postponements(int t) {
    return stats.semanticConflicts(t);
  }

  public int abortCode(int t) {
    return abortCodes == null ? 0 : abortCodes[t];
  }

  /** The code of each USER_ABORT transaction, else 0. */
  @Override
  public int[] abortCodes() {
    return abortCodes == null ? new int[batch.txCount()] : abortCodes;
  }

  /** Raw bits of output {@code name} of transaction {@code t}'s program. */
  public long outputBits(int t, String name) {
    CompiledProgram p = batch.programs().get(batch.type(t));
    int o = p.outputIndex(name);
    if (o < 0) {
      throw new IllegalArgumentException("output '" + name + "': program '" + p.name()
          + "' has outputs " + p.outputs().stream().map(Program.Output::name).toList());
    }
    return outputs[o * batch.txCount() + t];
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
