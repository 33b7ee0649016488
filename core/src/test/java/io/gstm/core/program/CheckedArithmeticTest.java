package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import java.util.SplittableRandom;
import java.util.function.LongBinaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Semantics' checked integer operations (what both interpreters and the compiled classes run)
 * against Java's {@code Math.*Exact} on values at and near the limits and at random: the same
 * result where it fits, OVERFLOW where it does not; the wrapping opcodes wrap.
 */
class CheckedArithmeticTest {
  private static final long[] EDGES = {0, 1, -1, 2, -2, 3, Integer.MAX_VALUE, Integer.MIN_VALUE,
      Integer.MAX_VALUE - 1, Integer.MIN_VALUE + 1, 46340, 46341, -46341, 65536, 1L << 31,
      1L << 32, 3037000499L, 3037000500L, -3037000500L, Long.MAX_VALUE, Long.MIN_VALUE,
      Long.MAX_VALUE - 1, Long.MIN_VALUE + 1, 1L << 62, -(1L << 62)};

  /** The operation's result, or OVERFLOW's sentinel. */
  private static Object run(LongBinaryOperator op, long a, long b) {
    try {
      return op.applyAsLong(a, b);
    } catch (Semantics.Fault f) {
      return f.outcome;
    } catch (ArithmeticException e) {
      return Outcome.OVERFLOW;
    }
  }

  private static void agree(int op, LongBinaryOperator exact, long a, long b) {
    assertThat(run((x, y) -> Semantics.binary(op, x, y), a, b))
        .as("%s %d, %d", Bytecode.name(op), a, b).isEqualTo(run(exact, a, b));
  }

  private static void check(long a, long b) {
    int x = (int) a;
    int y = (int) b;
    agree(Opcodes.ADD, (p, q) -> Math.addExact(x, y), x, y);
    agree(Opcodes.SUB, (p, q) -> Math.subtractExact(x, y), x, y);
    agree(Opcodes.MUL, (p, q) -> Math.multiplyExact(x, y), x, y);
    agree(Opcodes.ADD + 1, Math::addExact, a, b);
    agree(Opcodes.SUB + 1, Math::subtractExact, a, b);
    agree(Opcodes.MUL + 1, Math::multiplyExact, a, b);
    agree(Opcodes.WADD, (p, q) -> x + y, x, y);
    agree(Opcodes.WSUB, (p, q) -> x - y, x, y);
    agree(Opcodes.WMUL, (p, q) -> x * y, x, y);
    agree(Opcodes.WADD + 1, (p, q) -> p + q, a, b);
    agree(Opcodes.WSUB + 1, (p, q) -> p - q, a, b);
    agree(Opcodes.WMUL + 1, (p, q) -> p * q, a, b);
    if (y != 0) {
      agree(Opcodes.DIV, (p, q) -> Math.toIntExact((long) x / y), x, y);
      agree(Opcodes.REM, (p, q) -> x % y, x, y);
    }
    if (b != 0) {
      agree(Opcodes.DIV + 1, (p, q) -> p == Long.MIN_VALUE && q == -1
          ? Math.negateExact(p) : p / q, a, b);
      agree(Opcodes.REM + 1, (p, q) -> p % q, a, b);
    }
    assertThat(run((p, q) -> Semantics.unary(Opcodes.NEG, p), x, 0))
        .isEqualTo(run((p, q) -> Math.negateExact(x), x, 0));
    assertThat(run((p, q) -> Semantics.unary(Opcodes.ABS, p), x, 0))
        .isEqualTo(run((p, q) -> Math.absExact(x), x, 0));
    assertThat(run((p, q) -> Semantics.unary(Opcodes.NEG + 1, p), a, 0))
        .isEqualTo(run((p, q) -> Math.negateExact(p), a, 0));
    assertThat(run((p, q) -> Semantics.unary(Opcodes.ABS + 1, p), a, 0))
        .isEqualTo(run((p, q) -> Math.absExact(p), a, 0));
  }

  @Test
  void checkedOperationsAreJavasExactOnes() {
    for (long a : EDGES) {
      for (long b : EDGES) {
        check(a, b);
        check(-a, b);
      }
    }
    SplittableRandom rnd = new SplittableRandom(31);
    for (int i = 0; i < 20_000; i++) {
      long a = rnd.nextLong() >> rnd.nextInt(64);
      long b = rnd.nextLong() >> rnd.nextInt(64);
      check(a, b);
    }
  }

  @Test
  void divisionByZeroIsNotOverflow() {
    assertThat(run((p, q) -> Semantics.binary(Opcodes.DIV, p, q), 1, 0))
        .isEqualTo(Outcome.DIVIDE_BY_ZERO);
    assertThat(run((p, q) -> Semantics.binary(Opcodes.REM + 1, p, q), 1, 0))
        .isEqualTo(Outcome.DIVIDE_BY_ZERO);
  }
}
