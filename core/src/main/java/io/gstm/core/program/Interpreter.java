package io.gstm.core.program;

import static io.gstm.core.program.Opcodes.ABORT;
import static io.gstm.core.program.Opcodes.CVT;
import static io.gstm.core.program.Opcodes.JMP;
import static io.gstm.core.program.Opcodes.JNZ;
import static io.gstm.core.program.Opcodes.JZ;
import static io.gstm.core.program.Opcodes.LDK;
import static io.gstm.core.program.Opcodes.LDP;
import static io.gstm.core.program.Opcodes.LDPA;
import static io.gstm.core.program.Opcodes.LEN;
import static io.gstm.core.program.Opcodes.LOOP;
import static io.gstm.core.program.Opcodes.MOV;
import static io.gstm.core.program.Opcodes.NOT;
import static io.gstm.core.program.Opcodes.RD;
import static io.gstm.core.program.Opcodes.RDS;
import static io.gstm.core.program.Opcodes.RET;
import static io.gstm.core.program.Opcodes.RETRY;
import static io.gstm.core.program.Opcodes.SUM;
import static io.gstm.core.program.Opcodes.WR;

import io.gstm.core.batch.Outcome;
import io.gstm.core.workload.TxContext;

/**
 * Runs program bytecode on the JVM against a transaction context: PR-STM's or CSMV's, or a
 * plain sequential one for replays. One instance per worker thread (it owns the registers).
 * The twin of {@code gstm/program.cuh}; both follow {@link Semantics}. Programs run compiled
 * to JVM classes where they can ({@link JvmCompiler}), with the same meaning; the dispatch loop
 * here runs the rest, and is the reference the compiled classes are tested against.
 *
 * <p>A body ends in one of four ways: it returns (the engine commits it), it declares a
 * semantic conflict ({@link TxContext#semanticConflict()}), or it ends the attempt with a user
 * abort or a fault ({@link TxContext#end(Outcome)}), having written the abort code into
 * {@code abortCodes[t]}. After a normal end the outputs are in {@code outputs[o * n + t]}.
 */
public final class Interpreter {
  private final long[] regs;
  private final long[] outputs;
  private final int[] abortCodes;
  private final int n;
  /** Per type: the binding, and its program's code and constants (no lookups per run). */
  private final ProgramBinding.Bound[] bounds;
  private final int[][] codes;
  private final long[][] constants;
  private final int[] types;
  /** Per type: the program compiled to a JVM class and what it runs against, or null. */
  private final JvmCompiler.CompiledBody[] bodies;
  private final CompiledOps.Env[] envs;

  /**
   * @param binding the batch bound to its store
   * @param outputs where the outputs of each finished attempt go, {@code [slot * n + t]}, or null
   * @param abortCodes where user abort codes go, or null
   */
  public Interpreter(ProgramBinding binding, long[] outputs, int[] abortCodes) {
    this(binding, outputs, abortCodes, true);
  }

  /**
   * @param compile whether programs run as JVM classes ({@link JvmCompiler}) where they can;
   *     false interprets every instruction (the tests compare the two)
   */
  Interpreter(ProgramBinding binding, long[] outputs, int[] abortCodes, boolean compile) {
    this.regs = new long[binding.batch().programs().maxRegisters()];
    this.outputs = outputs;
    this.abortCodes = abortCodes;
    this.n = binding.batch().txCount();
    int programs = binding.programCount();
    this.bounds = new ProgramBinding.Bound[programs];
    this.codes = new int[programs][];
    this.constants = new long[programs][];
    for (int p = 0; p < programs; p++) {
      bounds[p] = binding.bound(p);
      codes[p] = bounds[p].program.code();
      constants[p] = bounds[p].program.constants();
    }
    this.types = binding.batch().typesView();
    this.bodies = new JvmCompiler.CompiledBody[programs];
    this.envs = new CompiledOps.Env[programs];
    for (int p = 0; p < programs; p++) {
      bodies[p] = compile ? JvmCompiler.of(bounds[p].program) : null;
      envs[p] = new CompiledOps.Env(bounds[p], outputs, abortCodes, n);
    }
  }

  /** The program set's read-only flag for transaction {@code t}. */
  public boolean readOnly(int t) {
    return bounds[types[t]].program.analysis().readOnly();
  }

  /** Runs transaction {@code t}; returns its first output (0 when it has none). */
  public long run(TxContext tx, int t) {
    int type = types[t];
    JvmCompiler.CompiledBody body = bodies[type];
    if (body != null) {
      try {
        return body.run(envs[type], tx, t);
      } catch (CompiledOps.Fault ended) {
        return 0; // the transaction has been told how it ended
      }
    }
    // Registers start at 0 in every attempt, as in the compiled form and on the GPU.
    java.util.Arrays.fill(regs, 0L);
    try {
      return interpret(tx, t, bounds[type], codes[type], constants[type]);
    } catch (Semantics.Fault fault) {
      tx.end(fault.outcome); // a division by zero or an overflow
      return 0;
    }
  }

  /** The dispatch loop; Semantics' faults leave it as exceptions. */
  private long interpret(TxContext tx, int t, ProgramBinding.Bound b, int[] code, long[] k) {
    long[] r = regs;
    // Only a backward jump can make the code run longer than its length: taken backward jumps
    // are counted against the program's step bound, so that no image, however made, runs for
    // ever (JvmCompiler and program.cuh count the same jumps).
    long budget = b.program.analysis().steps();
    int pc = 0;
    while (true) {
      int w = code[pc++];
      int op = w & 0xff;
      int a = w >>> 8 & 0xff;
      int bb = w >>> 16 & 0xff;
      int c = w >>> 24;
      switch (op) {
        case RET -> {
          return finish(b.program, t);
        }
        case RETRY -> {
          tx.semanticConflict();
          return 0;
        }
        case ABORT -> {
          if (abortCodes != null) {
            abortCodes[t] = (int) r[a];
          }
          tx.end(Outcome.USER_ABORT);
          return 0;
        }
        case JMP, JZ, JNZ -> {
          if (op == JMP || (r[a] == 0) == (op == JZ)) {
            int target = op == JMP ? w >>> 8 : bb | c << 8;
            if (target < pc && --budget < 0) { // backward: pc is already past the jump
              tx.end(Outcome.LOOP_LIMIT);
              return 0;
            }
            pc = target;
          }
        }
        case MOV -> r[a] = r[bb];
        case LDK -> r[a] = k[bb | c << 8];
        case LDP -> r[a] = column(b, bb | c << 8, t);
        case LDPA -> {
          int i = (int) r[c];
          if (i < 0 || i >= b.paramLength[bb]) {
            tx.end(Outcome.OUT_OF_RANGE);
            return 0;
          }
          r[a] = column(b, b.paramFirst[bb] + i, t);
        }
        case RD, RDS -> {
          int i = (int) r[c];
          if (i < 0 || i >= b.regionLengths[bb]) {
            tx.end(Outcome.OUT_OF_RANGE);
            return 0;
          }
          r[a] = op == RD ? tx.read(b.regions[bb], i) : tx.readShared(b.regions[bb], i);
        }
        case WR -> {
          int i = (int) r[bb];
          if (i < 0 || i >= b.regionLengths[a]) {
            tx.end(Outcome.OUT_OF_RANGE);
            return 0;
          }
          tx.write(b.regions[a], i, r[c]);
        }
        case SUM -> {
          int first = (int) r[c];
          int count = (int) r[code[pc++]];
          int len = b.regionLengths[bb];
          if (first < 0 || first >= len || count < 0 || count > len) {
            tx.end(Outcome.OUT_OF_RANGE);
            return 0;
          }
          r[a] = tx.sumRange(b.regions[bb], first, count, len);
        }
        case LEN -> r[a] = b.regionLengths[bb];
        case LOOP -> {
          long trips = (long) (int) r[bb] - (int) r[a];
          if (trips > code[pc++]) {
            tx.end(Outcome.LOOP_LIMIT);
            return 0;
          }
        }
        // The commonest operations inline (the rest through Semantics, the same definitions).
        // Semantics' faults (overflow, division by zero) end the attempt in run().
        case Opcodes.ADD -> r[a] = Semantics.add32(r[bb], r[c]);
        case Opcodes.ADD + 1 -> r[a] = Semantics.add64(r[bb], r[c]);
        case Opcodes.ADD + 3 -> r[a] = Double.doubleToRawLongBits(
            Double.longBitsToDouble(r[bb]) + Double.longBitsToDouble(r[c]));
        case Opcodes.SUB -> r[a] = Semantics.sub32(r[bb], r[c]);
        case Opcodes.SUB + 1 -> r[a] = Semantics.sub64(r[bb], r[c]);
        case Opcodes.MUL -> r[a] = Semantics.mul32(r[bb], r[c]);
        case Opcodes.MUL + 1 -> r[a] = Semantics.mul64(r[bb], r[c]);
        case Opcodes.WADD -> r[a] = (int) r[bb] + (int) r[c];
        case Opcodes.EQ -> r[a] = (int) r[bb] == (int) r[c] ? 1 : 0;
        case Opcodes.NE -> r[a] = (int) r[bb] != (int) r[c] ? 1 : 0;
        case Opcodes.LT -> r[a] = (int) r[bb] < (int) r[c] ? 1 : 0;
        case Opcodes.LE -> r[a] = (int) r[bb] <= (int) r[c] ? 1 : 0;
        case Opcodes.LT + 1 -> r[a] = r[bb] < r[c] ? 1 : 0;
        case NOT -> r[a] = r[bb] ^ 1;
        case CVT -> r[a] = Semantics.convert(r[bb], c >> 4, c & 15);
        default -> r[a] = Opcodes.isUnary(op) ? Semantics.unary(op, r[bb])
            : Semantics.binary(op, r[bb], r[c]);
      }
    }
  }

  private static long column(ProgramBinding.Bound b, int slot, int t) {
    int[] ints = b.slotInts[slot];
    return ints != null ? ints[t] : b.slotLongs[slot][t];
  }

  /** Copies the outputs of a finished attempt; returns the first. */
  private long finish(CompiledProgram p, int t) {
    int[] out = p.outputRegisters();
    if (outputs != null) {
      for (int o = 0; o < out.length; o++) {
        outputs[o * n + t] = regs[out[o]];
      }
    }
    return out.length == 0 ? 0 : regs[out[0]];
  }
}
