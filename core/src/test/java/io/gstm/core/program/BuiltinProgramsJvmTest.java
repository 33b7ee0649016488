package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.testing.ProgramCases;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The built-in workloads written as programs (text and builder) give exactly the hand-written
 * workloads' results on the same seeded batches: on one thread the same outcomes, semantic
 * conflicts, results and final store; on many threads the workloads' verifiers, the history
 * checker and the serial replay.
 */
class BuiltinProgramsJvmTest {
  private static JvmEngine one;
  private static JvmEngine many;

  @BeforeAll
  static void open() {
    one = new JvmEngine(1);
    many = new JvmEngine(2);
  }

  @AfterAll
  static void close() {
    one.close();
    many.close();
  }

  static Stream<Arguments> cases() {
    return ProgramCases.allFromTextAndBuilder(32, 3, 11);
  }

  @ParameterizedTest(name = "{0}, builder={1}")
  @MethodSource("cases")
  void oneThreadGivesTheHandWrittenResultsExactly(ProgramCases.Case c, boolean builder) {
    ProgramCases.Case single = c.onGrid(1, 1);
    RunOptions options = RunOptions.defaults();
    ProgramCases.Run hand = ProgramCases.handWritten(one, single, options);
    ProgramCases.Run prog = ProgramCases.program(one, single, builder, options);
    assertThat(prog.stats().outcomes()).containsExactly(hand.stats().outcomes());
    // A transaction waiting in vain is abandoned after a time, not after a count of conflicts.
    for (int t = 0; t < c.batch().txCount(); t++) {
      if (hand.stats().outcome(t) != Outcome.ABANDONED_SEMANTIC) {
        assertThat(prog.stats().semanticConflicts()[t])
            .as("semantic conflicts of transaction %d", t)
            .isEqualTo(hand.stats().semanticConflicts()[t]);
      }
    }
    assertThat(prog.stats().results()).containsExactly(hand.stats().results());
    assertThat(StoreContents.firstDifference(c.layout(), hand.after(), prog.after())).isNull();
    assertThat(ProgramCases.verify(single, prog)).isNull();
  }

  @ParameterizedTest(name = "{0}, builder={1}")
  @MethodSource("cases")
  void manyThreadsPassTheVerifierHistoryAndReplay(ProgramCases.Case c, boolean builder) {
    RunOptions options = RunOptions.defaults().withHistory(true);
    ProgramCases.Run prog = ProgramCases.program(many, c, builder, options);
    assertThat(ProgramCases.verify(c, prog)).isNull();
    assertThat(prog.stats().history()).isNotNull();
    ProgramCases.Run hand = ProgramCases.handWritten(many, c, options);
    // Same committed work whatever the interleaving: equal commit counts where every
    // transaction must commit.
    if (countOf(hand, Outcome.COMMITTED) == c.batch().txCount()) {
      assertThat(countOf(prog, Outcome.COMMITTED)).isEqualTo(c.batch().txCount());
    }
  }

  private static long countOf(ProgramCases.Run run, Outcome o) {
    long n = 0;
    for (byte b : run.stats().outcomes()) {
      n += b == o.code() ? 1 : 0;
    }
    return n;
  }
}
