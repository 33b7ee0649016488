package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.store.Algorithm;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hand-made interleavings that PR-STM and Cederman's blocking STM end alike: both validate the
 * versions they read when they commit.
 */
class LockTableInterleavingTest {
  /** An STM under test: its algorithm and its transactions on a store of it. */
  record Stm(String name, Algorithm algorithm, Function<JvmTxStore, JvmTx> tx) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Stm> stms() {
    return Stream.of(
        new Stm("PR-STM", Algorithm.prStm(), s -> new JvmPrStmTx(s, 2)),
        new Stm("blocking", Algorithm.blocking(), s -> new JvmBlockingTx(s, 4)));
  }

  /** Transactions {@code a} and {@code b} of threads 0 and 1, begun on a fresh two-word store. */
  private record Two(JvmTxStore s, JvmTx a, JvmTx b) {
    static Two begun(Stm stm) {
      JvmTxStore s = Interleavings.store(stm.algorithm(), 2, 1);
      return new Two(s, Interleavings.begun(stm.tx().apply(s), 0),
          Interleavings.begun(stm.tx().apply(s), 1));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stms")
  void theSecondWriterOfAVersionAborts(Stm stm) {
    Two t = Two.begun(stm);
    long va = t.a().read(0, 0);
    long vb = t.b().read(0, 0);
    t.a().write(0, 0, va + 10);
    t.b().write(0, 0, vb + 5);

    assertThat(t.a().commit()).isTrue();
    assertThat(t.b().commit()).isFalse();
    assertThat(t.b().abortCause()).isEqualTo(Counter.ABORT_VALIDATION);
    assertThat(t.s().readInt32(0)).containsExactly(10, 0);
    assertThat(t.s().lockVersions()).containsExactly(1, 0);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("stms")
  void writeSkewIsPrevented(Stm stm) {
    Two t = Two.begun(stm);
    Interleavings.crossWrites(t.a(), t.b());
    assertThat(t.a().commit()).isTrue();
    assertThat(t.b().commit()).as("b read word 1, which a overwrote").isFalse();
  }
}
