package io.gstm.core.program;

/**
 * The bytecode both engines run. An instruction is one 32-bit word {@code op | a << 8 | b << 16 |
 * c << 24}; a few take a second word. Registers are 64-bit; 32-bit types use the low 32 bits.
 * Twin of {@code kernels/src/main/cuda/include/gstm/program.cuh}, whose {@code Op} enum must
 * list the same numbers (a test compares them).
 *
 * <p>Typed groups add the operand type to their base: 0 int32, 1 int64, 2 float32, 3 float64
 * (integer-only groups: 0 int32, 1 int64; float-only: 0 float32, 1 float64).
 */
public final class Opcodes {
  private Opcodes() {}

  /**
   * Version of the bytecode format; an image of another version is refused. 2: integer ADD,
   * SUB, MUL, NEG, ABS and DIV end the transaction OVERFLOW where version 1 wrapped; WADD, WSUB
   * and WMUL wrap. 3: the analysis also bounds the lock set under shared locks
   * ({@link Analysis#rowLockEntries}).
   */
  public static final int VERSION = 3;

  /** End of the body: the transaction commits. */
  public static final int RET = 0;
  /** Semantic conflict. */
  public static final int RETRY = 1;
  /** User abort with the int32 code in register a. */
  public static final int ABORT = 2;
  /** Jump to the 24-bit target {@code word >>> 8}. */
  public static final int JMP = 3;
  /** Jump to target {@code b | c << 8} if register a is 0. */
  public static final int JZ = 4;
  /** Jump to target {@code b | c << 8} if register a is not 0. */
  public static final int JNZ = 5;
  /** a = b. */
  public static final int MOV = 6;
  /** a = constant {@code b | c << 8}. */
  public static final int LDK = 7;
  /** a = column slot {@code b | c << 8} of this transaction. */
  public static final int LDP = 8;
  /** a = element (register c) of array parameter b; out of its length: OUT_OF_RANGE. */
  public static final int LDPA = 9;
  /** a = region b [register c], transactional read; out of range: OUT_OF_RANGE. */
  public static final int RD = 10;
  /** a = region b [register c], read outside the read set (a shared region). */
  public static final int RDS = 11;
  /** region a [register b] = register c, transactional write. */
  public static final int WR = 12;
  /** a = sum of region b from register c, count in the second word's register (int64). */
  public static final int SUM = 13;
  /** a = length of region b (int32). */
  public static final int LEN = 14;
  /** LOOP_LIMIT unless register b - register a (int32, as int64) is at most the second word. */
  public static final int LOOP = 15;
  /** a = !b (bool). */
  public static final int NOT = 16;
  /** a = b converted from type {@code c >> 4} to type {@code c & 15} (ValueType codes). */
  public static final int CVT = 17;

  /** Integer overflow ends the transaction OVERFLOW (also SUB, MUL, NEG, ABS and DIV). */
  public static final int ADD = 20;
  public static final int SUB = 24;
  public static final int MUL = 28;
  /** Integer division by zero ends the transaction DIVIDE_BY_ZERO; MIN / -1 OVERFLOW. */
  public static final int DIV = 32;
  public static final int REM = 36;
  public static final int MIN = 40;
  public static final int MAX = 44;
  /** a = -b. */
  public static final int NEG = 48;
  /** a = |b|. */
  public static final int ABS = 52;
  public static final int EQ = 56;
  public static final int NE = 60;
  public static final int LT = 64;
  public static final int LE = 68;
  public static final int AND = 72;
  public static final int OR = 74;
  public static final int XOR = 76;
  public static final int SHL = 78;
  public static final int SHR = 80;
  public static final int USHR = 82;
  /** a = ~b. */
  public static final int BNOT = 84;
  /** a = sqrt(b), float32 or float64. */
  public static final int SQRT = 86;
  /** Wrapping (two's-complement) integer b + c, b - c, b * c: never OVERFLOW. */
  public static final int WADD = 88;
  public static final int WSUB = 90;
  public static final int WMUL = 92;
  /** One past the last opcode. */
  public static final int COUNT = 94;

  /** How an opcode's operands read, for the bytecode verifier. */
  enum Format {
    /** No operands. */
    NONE,
    /** a: register. */
    A,
    /** 24-bit jump target. */
    JUMP,
    /** a: register, b|c: jump target. */
    BRANCH,
    /** a, b: registers. */
    AB,
    /** a, b, c: registers. */
    ABC,
    /** a: register, b|c: constant index. */
    CONST,
    /** a: register, b|c: column slot. */
    SLOT,
    /** a: register, b: array parameter, c: register. */
    ELEMENT,
    /** a: register, b: region, c: register. */
    REGION_READ,
    /** a: region, b, c: registers. */
    REGION_WRITE,
    /** a: register, b: region, c: register; second word: register. */
    REGION_SUM,
    /** a: register, b: region. */
    REGION_LEN,
    /** a, b: registers; second word: bound. */
    LOOP,
    /** a, b: registers; c: from and to type codes. */
    CONVERT,
    /** Not an opcode. */
    INVALID
  }

  /** The operand format of {@code op}; INVALID for a number that is no opcode. */
  static Format format(int op) {
    if (op < 0 || op >= COUNT) {
      return Format.INVALID;
    }
    return switch (op) {
      case RET, RETRY -> Format.NONE;
      case ABORT -> Format.A;
      case JMP -> Format.JUMP;
      case JZ, JNZ -> Format.BRANCH;
      case MOV, NOT -> Format.AB;
      case LDK -> Format.CONST;
      case LDP -> Format.SLOT;
      case LDPA -> Format.ELEMENT;
      case RD, RDS -> Format.REGION_READ;
      case WR -> Format.REGION_WRITE;
      case SUM -> Format.REGION_SUM;
      case LEN -> Format.REGION_LEN;
      case LOOP -> Format.LOOP;
      case CVT -> Format.CONVERT;
      // The typed groups: binary ones take a, b, c; unary ones (NEG, ABS, BNOT, SQRT) a, b.
      default -> isUnary(op) ? Format.AB
          : op >= ADD && op < NEG || op >= EQ && op < BNOT || op >= WADD ? Format.ABC
          : Format.INVALID;
    };
  }

  /** The typed one-operand operations: NEG, ABS, BNOT and SQRT (not NOT or CVT). */
  static boolean isUnary(int op) {
    return op >= NEG && op < EQ || op >= BNOT && op < WADD;
  }

  /** Words the instruction starting with {@code op} takes. */
  static int length(int op) {
    return op == SUM || op == LOOP ? 2 : 1;
  }

  static int encode(int op, int a, int b, int c) {
    return op | a << 8 | b << 16 | c << 24;
  }
}
