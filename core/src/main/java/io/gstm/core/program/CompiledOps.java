package io.gstm.core.program;

import io.gstm.core.batch.Outcome;
import io.gstm.core.workload.TxContext;

/**
 * What a program compiled to a JVM class ({@link JvmCompiler}) calls for each instruction: tiny
 * static methods the JIT inlines, with the meaning of {@link Interpreter} and
 * {@link Semantics}. An attempt that ends early (an index out of range, a division by zero, an
 * overflow, a loop past its bound) tells the transaction and throws {@link #FAULT}, which the
 * caller catches: the generated code needs no exception table and no extra branches.
 */
final class CompiledOps {
  private CompiledOps() {}

  /** What one program's compiled body runs against: its binding and where results go. */
  static final class Env {
    final ProgramBinding.Bound bound;
    final long[] outputs;
    final int[] codes;
    final int n;

    Env(ProgramBinding.Bound bound, long[] outputs, int[] codes, int n) {
      this.bound = bound;
      this.outputs = outputs;
      this.codes = codes;
      this.n = n;
    }
  }

  /** Ends a compiled attempt early; the transaction has been told why. */
  static final class Fault extends RuntimeException {
    Fault() {
      super(null, null, false, false);
    }
  }

  static final Fault FAULT = new Fault();

  private static Fault end(TxContext tx, Outcome outcome) {
    tx.end(outcome);
    return FAULT;
  }

  // ---- data ---------------------------------------------------------------------------------

  static long ldp(Env e, int slot, int t) {
    int[] ints = e.bound.slotInts[slot];
    return ints != null ? ints[t] : e.bound.slotLongs[slot][t];
  }

  static long ldpa(Env e, TxContext tx, int param, long index, int t) {
    int i = (int) index;
    if (i < 0 || i >= e.bound.paramLength[param]) {
      throw end(tx, Outcome.OUT_OF_RANGE);
    }
    return ldp(e, e.bound.paramFirst[param] + i, t);
  }

  static long rd(Env e, TxContext tx, int region, long index) {
    int i = (int) index;
    if (i < 0 || i >= e.bound.regionLengths[region]) {
      throw end(tx, Outcome.OUT_OF_RANGE);
    }
    return tx.read(e.bound.regions[region], i);
  }

  static long rds(Env e, TxContext tx, int region, long index) {
    int i = (int) index;
    if (i < 0 || i >= e.bound.regionLengths[region]) {
      throw end(tx, Outcome.OUT_OF_RANGE);
    }
    return tx.readShared(e.bound.regions[region], i);
  }

  static void wr(Env e, TxContext tx, int region, long index, long value) {
    int i = (int) index;
    if (i < 0 || i >= e.bound.regionLengths[region]) {
      throw end(tx, Outcome.OUT_OF_RANGE);
    }
    tx.write(e.bound.regions[region], i, value);
  }

  static long sum(Env e, TxContext tx, int region, long firstWord, long countWords) {
    int first = (int) firstWord;
    int count = (int) countWords;
    int len = e.bound.regionLengths[region];
    if (first < 0 || first >= len || count < 0 || count > len) {
      throw end(tx, Outcome.OUT_OF_RANGE);
    }
    return tx.sumRange(e.bound.regions[region], first, count, len);
  }

  static long len(Env e, int region) {
    return e.bound.regionLengths[region];
  }

  static void loop(TxContext tx, long from, long to, int max) {
    if ((long) (int) to - (int) from > max) {
      throw end(tx, Outcome.LOOP_LIMIT);
    }
  }

  /** A jump taken past the step bound. */
  static void limit(TxContext tx) {
    throw end(tx, Outcome.LOOP_LIMIT);
  }

  static void abort(Env e, TxContext tx, int t, long code) {
    if (e.codes != null) {
      e.codes[t] = (int) code;
    }
    tx.end(Outcome.USER_ABORT);
  }

  static void retry(TxContext tx) {
    tx.semanticConflict();
  }

  static void output(Env e, int t, int slot, long value) {
    if (e.outputs != null) {
      e.outputs[slot * e.n + t] = value;
    }
  }

  // ---- arithmetic: the common operations inline, the rest through Semantics -----------------
  // Every binary helper takes (tx, a, b), so that the compiler pushes the same operands for all;
  // a helper that cannot fault leaves tx unused (free once inlined).

  /** The attempt ends with the fault's outcome (an overflow, a division by zero). */
  private static Fault fault(TxContext tx, Semantics.Fault f) {
    return end(tx, f.outcome);
  }

  static long add32(TxContext tx, long a, long b) {
    try {
      return Semantics.add32(a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long add64(TxContext tx, long a, long b) {
    try {
      return Semantics.add64(a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long sub32(TxContext tx, long a, long b) {
    try {
      return Semantics.sub32(a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long sub64(TxContext tx, long a, long b) {
    try {
      return Semantics.sub64(a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long mul32(TxContext tx, long a, long b) {
    try {
      return Semantics.mul32(a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long mul64(TxContext tx, long a, long b) {
    try {
      return Semantics.mul64(a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long wadd32(TxContext tx, long a, long b) {
    return (int) a + (int) b;
  }

  static long wadd64(TxContext tx, long a, long b) {
    return a + b;
  }

  static long wmul32(TxContext tx, long a, long b) {
    return (int) a * (int) b;
  }

  static long wmul64(TxContext tx, long a, long b) {
    return a * b;
  }

  static long addf64(TxContext tx, long a, long b) {
    return Double.doubleToRawLongBits(Double.longBitsToDouble(a) + Double.longBitsToDouble(b));
  }

  static long eq32(TxContext tx, long a, long b) {
    return (int) a == (int) b ? 1 : 0;
  }

  static long ne32(TxContext tx, long a, long b) {
    return (int) a != (int) b ? 1 : 0;
  }

  static long lt32(TxContext tx, long a, long b) {
    return (int) a < (int) b ? 1 : 0;
  }

  static long le32(TxContext tx, long a, long b) {
    return (int) a <= (int) b ? 1 : 0;
  }

  static long eq64(TxContext tx, long a, long b) {
    return a == b ? 1 : 0;
  }

  static long lt64(TxContext tx, long a, long b) {
    return a < b ? 1 : 0;
  }

  static long not(long a) {
    return a ^ 1;
  }

  /** Any other two-operand operation. */
  static long binary(TxContext tx, int op, long a, long b) {
    try {
      return Semantics.binary(op, a, b);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  /** A one-operand operation: integer negation and abs can overflow. */
  static long unary(TxContext tx, int op, long a) {
    try {
      return Semantics.unary(op, a);
    } catch (Semantics.Fault f) {
      throw fault(tx, f);
    }
  }

  static long convert(long a, int mode) {
    return Semantics.convert(a, mode >> 4, mode & 15);
  }

  /** The helper a binary opcode compiles to, {@code (tx, a, b)}, or null for {@link #binary}. */
  static String fastBinary(int op) {
    return switch (op) {
      case Opcodes.ADD -> "add32";
      case Opcodes.ADD + 1 -> "add64";
      case Opcodes.ADD + 3 -> "addf64";
      case Opcodes.SUB -> "sub32";
      case Opcodes.SUB + 1 -> "sub64";
      case Opcodes.MUL -> "mul32";
      case Opcodes.MUL + 1 -> "mul64";
      case Opcodes.WADD -> "wadd32";
      case Opcodes.WADD + 1 -> "wadd64";
      case Opcodes.WMUL -> "wmul32";
      case Opcodes.WMUL + 1 -> "wmul64";
      case Opcodes.EQ -> "eq32";
      case Opcodes.EQ + 1 -> "eq64";
      case Opcodes.NE -> "ne32";
      case Opcodes.LT -> "lt32";
      case Opcodes.LT + 1 -> "lt64";
      case Opcodes.LE -> "le32";
      default -> null;
    };
  }
}
