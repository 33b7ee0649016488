package io.gstm.core.program;

import static io.gstm.core.program.Opcodes.ABS;
import static io.gstm.core.program.Opcodes.ADD;
import static io.gstm.core.program.Opcodes.AND;
import static io.gstm.core.program.Opcodes.BNOT;
import static io.gstm.core.program.Opcodes.DIV;
import static io.gstm.core.program.Opcodes.EQ;
import static io.gstm.core.program.Opcodes.LE;
import static io.gstm.core.program.Opcodes.LT;
import static io.gstm.core.program.Opcodes.MAX;
import static io.gstm.core.program.Opcodes.MIN;
import static io.gstm.core.program.Opcodes.MUL;
import static io.gstm.core.program.Opcodes.NE;
import static io.gstm.core.program.Opcodes.NEG;
import static io.gstm.core.program.Opcodes.OR;
import static io.gstm.core.program.Opcodes.REM;
import static io.gstm.core.program.Opcodes.SHL;
import static io.gstm.core.program.Opcodes.SHR;
import static io.gstm.core.program.Opcodes.SQRT;
import static io.gstm.core.program.Opcodes.SUB;
import static io.gstm.core.program.Opcodes.USHR;
import static io.gstm.core.program.Opcodes.WADD;
import static io.gstm.core.program.Opcodes.WMUL;
import static io.gstm.core.program.Opcodes.WSUB;
import static io.gstm.core.program.Opcodes.XOR;

import io.gstm.core.batch.Outcome;

/**
 * What every operation computes, on register bits, as the JVM runs it (Java's arithmetic:
 * integer division truncating toward zero, IEEE floats without fused operations, Math.min/max/abs,
 * saturating float-to-integer conversion), except that integer {@code + - *}, negation, abs and
 * division fault on overflow ({@link #OVERFLOW}, as Java's {@code Math.addExact} and kin do)
 * where Java wraps; the {@code WADD}, {@code WSUB} and {@code WMUL} opcodes wrap. The GPU
 * interpreter implements the same definitions; the compiler folds constants with these methods,
 * so a folded constant equals what either engine would compute.
 */
final class Semantics {
  private Semantics() {}

  /**
   * Thrown by an integer operation without a result: it ends the transaction with
   * {@link #outcome}. Preallocated, without a stack trace: throwing one costs no allocation.
   */
  static final class Fault extends RuntimeException {
    final Outcome outcome;

    private Fault(Outcome outcome) {
      super(outcome.name(), null, false, false);
      this.outcome = outcome;
    }
  }

  /** An integer division or remainder by zero. */
  static final Fault DIVIDE_BY_ZERO = new Fault(Outcome.DIVIDE_BY_ZERO);
  /** An integer result beyond its type's range. */
  static final Fault OVERFLOW = new Fault(Outcome.OVERFLOW);

  static float f32(long bits) {
    return Float.intBitsToFloat((int) bits);
  }

  static double f64(long bits) {
    return Double.longBitsToDouble(bits);
  }

  static long bits(float v) {
    return Float.floatToRawIntBits(v) & 0xffffffffL;
  }

  static long bits(double v) {
    return Double.doubleToRawLongBits(v);
  }

  static long bool(boolean v) {
    return v ? 1 : 0;
  }

  // ---- checked integer arithmetic: the exact result, or OVERFLOW ------------------------------

  /** int32 results are computed exactly in 64 bits and must survive narrowing. */
  private static long int32(long exact) {
    if (exact != (int) exact) {
      throw OVERFLOW;
    }
    return exact;
  }

  static long add32(long a, long b) {
    return int32((long) (int) a + (int) b);
  }

  static long sub32(long a, long b) {
    return int32((long) (int) a - (int) b);
  }

  static long mul32(long a, long b) {
    return int32((long) (int) a * (int) b);
  }

  /** Overflow iff both operands have the sign the sum lacks. */
  static long add64(long a, long b) {
    long s = a + b;
    if (((a ^ s) & (b ^ s)) < 0) {
      throw OVERFLOW;
    }
    return s;
  }

  /** Overflow iff the operands' signs differ and the difference has the subtrahend's. */
  static long sub64(long a, long b) {
    long d = a - b;
    if (((a ^ b) & (a ^ d)) < 0) {
      throw OVERFLOW;
    }
    return d;
  }

  /** Overflow iff the high 64 bits of the 128-bit product are not the low half's sign. */
  static long mul64(long a, long b) {
    long p = a * b;
    if (Math.multiplyHigh(a, b) != p >> 63) {
      throw OVERFLOW;
    }
    return p;
  }

  /** A two-operand operation ({@code op} includes its type). */
  static long binary(int op, long a, long b) {
    switch (op) {
      case ADD: return add32(a, b);
      case ADD + 1: return add64(a, b);
      case ADD + 2: return bits(f32(a) + f32(b));
      case ADD + 3: return bits(f64(a) + f64(b));
      case SUB: return sub32(a, b);
      case SUB + 1: return sub64(a, b);
      case SUB + 2: return bits(f32(a) - f32(b));
      case SUB + 3: return bits(f64(a) - f64(b));
      case MUL: return mul32(a, b);
      case MUL + 1: return mul64(a, b);
      case MUL + 2: return bits(f32(a) * f32(b));
      case MUL + 3: return bits(f64(a) * f64(b));
      case WADD: return (int) a + (int) b;
      case WADD + 1: return a + b;
      case WSUB: return (int) a - (int) b;
      case WSUB + 1: return a - b;
      case WMUL: return (int) a * (int) b;
      case WMUL + 1: return a * b;
      case DIV:
        if ((int) b == 0) {
          throw DIVIDE_BY_ZERO;
        }
        return int32((long) (int) a / (int) b); // MIN / -1 is MAX + 1
      case DIV + 1:
        if (b == 0) {
          throw DIVIDE_BY_ZERO;
        }
        if (a == Long.MIN_VALUE && b == -1) {
          throw OVERFLOW;
        }
        return a / b;
      case DIV + 2: return bits(f32(a) / f32(b));
      case DIV + 3: return bits(f64(a) / f64(b));
      case REM:
        if ((int) b == 0) {
          throw DIVIDE_BY_ZERO;
        }
        return (int) a % (int) b;
      case REM + 1:
        if (b == 0) {
          throw DIVIDE_BY_ZERO;
        }
        return a % b;
      case REM + 2: return bits(f32(a) % f32(b));
      case REM + 3: return bits(f64(a) % f64(b));
      case MIN: return Math.min((int) a, (int) b);
      case MIN + 1: return Math.min(a, b);
      case MIN + 2: return bits(Math.min(f32(a), f32(b)));
      case MIN + 3: return bits(Math.min(f64(a), f64(b)));
      case MAX: return Math.max((int) a, (int) b);
      case MAX + 1: return Math.max(a, b);
      case MAX + 2: return bits(Math.max(f32(a), f32(b)));
      case MAX + 3: return bits(Math.max(f64(a), f64(b)));
      case EQ: return bool((int) a == (int) b);
      case EQ + 1: return bool(a == b);
      case EQ + 2: return bool(f32(a) == f32(b));
      case EQ + 3: return bool(f64(a) == f64(b));
      case NE: return bool((int) a != (int) b);
      case NE + 1: return bool(a != b);
      case NE + 2: return bool(f32(a) != f32(b));
      case NE + 3: return bool(f64(a) != f64(b));
      case LT: return bool((int) a < (int) b);
      case LT + 1: return bool(a < b);
      case LT + 2: return bool(f32(a) < f32(b));
      case LT + 3: return bool(f64(a) < f64(b));
      case LE: return bool((int) a <= (int) b);
      case LE + 1: return bool(a <= b);
      case LE + 2: return bool(f32(a) <= f32(b));
      case LE + 3: return bool(f64(a) <= f64(b));
      case AND: return (int) a & (int) b;
      case AND + 1: return a & b;
      case OR: return (int) a | (int) b;
      case OR + 1: return a | b;
      case XOR: return (int) a ^ (int) b;
      case XOR + 1: return a ^ b;
      case SHL: return (int) a << (int) b;
      case SHL + 1: return a << (int) b;
      case SHR: return (int) a >> (int) b;
      case SHR + 1: return a >> (int) b;
      case USHR: return (int) a >>> (int) b;
      case USHR + 1: return a >>> (int) b;
      default: throw new IllegalStateException("not a binary opcode: " + op);
    }
  }

  /** A one-operand operation ({@code op} includes its type), not NOT or CVT. */
  static long unary(int op, long a) {
    switch (op) {
      case NEG: return int32(-(long) (int) a);
      case NEG + 1: return sub64(0, a);
      case NEG + 2: return bits(-f32(a));
      case NEG + 3: return bits(-f64(a));
      case ABS: return int32(Math.abs((long) (int) a));
      case ABS + 1:
        if (a == Long.MIN_VALUE) {
          throw OVERFLOW;
        }
        return Math.abs(a);
      case ABS + 2: return bits(Math.abs(f32(a)));
      case ABS + 3: return bits(Math.abs(f64(a)));
      case BNOT: return ~(int) a;
      case BNOT + 1: return ~a;
      case SQRT: return bits((float) Math.sqrt(f32(a)));
      case SQRT + 1: return bits(Math.sqrt(f64(a)));
      default: throw new IllegalStateException("not a unary opcode: " + op);
    }
  }

  /** Conversion between ValueType codes (bool converts to 0 or 1). */
  static long convert(long a, int from, int to) {
    if (from == to) {
      return a;
    }
    if (from == 0 || from == 1 || from == 4) { // int32, int64, bool: as the exact int64
      long v = from == 1 ? a : (int) a;
      return switch (to) {
        case 0 -> (int) v;
        case 1 -> v;
        case 2 -> bits((float) v);
        case 3 -> bits((double) v);
        default -> bool(v != 0);
      };
    }
    double v = from == 2 ? f32(a) : f64(a); // float32 widens exactly
    return switch (to) {
      case 0 -> (int) v;
      case 1 -> (long) v;
      case 2 -> bits((float) v);
      case 3 -> bits(v);
      default -> bool(v != 0);
    };
  }
}
