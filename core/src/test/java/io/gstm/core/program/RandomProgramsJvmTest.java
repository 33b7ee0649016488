package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.RandomProgramRuns;
import io.gstm.core.testing.SeedTest;
import io.gstm.core.testing.SharedEngines;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Random programs over random stores: every committed history is serializable and the serial
 * replay of it reproduces outputs and final state; encoding and decoding keep the bytecode.
 */
class RandomProgramsJvmTest {
  /** Semantic conflicts before a random transaction that keeps retrying is abandoned. */
  static final RunOptions OPTIONS = RunOptions.defaults().withSemanticLimit(4).withHistory(true);
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  @SeedTest(seeds = 120)
  void committedHistoriesAreSerializableAndReplayExactly(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 400, 32, 4, false);
    RandomProgramRuns.assertSerializableAndReplays(engines.jvm(), c, Algorithm.prStm(), OPTIONS);
    for (CompiledProgram p : c.programs().programs()) {
      CompiledProgram back = CompiledProgram.decode(p.encode());
      assertThat(back.code()).containsExactly(p.code());
      assertThat(back.constants()).containsExactly(p.constants());
      assertThat(back.analysis()).isEqualTo(p.analysis());
      assertThat(back.columnNames()).isEqualTo(p.columnNames());
    }
  }

  /**
   * Over regions that share one row of locks PR-STM's sets are sized by index, not by word
   * (Analysis#rowLockEntries): no transaction outgrows them (TOO_LARGE, checked with the
   * history), and the histories stay serializable and replay exactly.
   */
  @SeedTest(seeds = 60)
  void setsSizedByIndexHoldEveryTransactionOverSharedLocks(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 400, 32, 4, false, false, true);
    long byWord = c.programs().programs().stream()
        .mapToLong(p -> p.analysis().setEntries()).max().orElse(0);
    long byIndex = c.programs().programs().stream()
        .mapToLong(p -> p.analysis().rowSetEntries()).max().orElse(0);
    assertThat(byIndex).isLessThanOrEqualTo(byWord);
    assertThat(ProgramBinding.bind(c.batch(), c.layout(), Algorithm.prStm()).capacity())
        .isEqualTo(ProgramBinding.capacityFor(Math.max(1, byIndex)));
    RandomProgramRuns.assertSerializableAndReplays(engines.jvm(), c, Algorithm.prStm(), OPTIONS);
  }
}
