package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.ProgramCases;
import io.gstm.core.testing.RandomProgramRuns;
import io.gstm.core.testing.SeedTest;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Programs on the GPU: the built-in workloads as programs pass their verifiers, the history
 * checker and the serial replay; random programs too; and on one thread the GPU ends in exactly
 * the JVM engine's state, with the same outcomes, conflicts, codes and outputs.
 */
@EnabledIfGpu
class CudaProgramTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(1);

  static Stream<Arguments> builtins() {
    return ProgramCases.allFromTextAndBuilder(64, 4, 21);
  }

  @ParameterizedTest(name = "{0}, builder={1}")
  @MethodSource("builtins")
  void builtinProgramsPassTheirVerifiersOnTheGpu(ProgramCases.Case c, boolean builder) {
    ProgramCases.Run run = ProgramCases.program(engines.gpu(), c, builder,
        RunOptions.defaults().withHistory(true));
    assertThat(ProgramCases.verify(c, run)).isNull();
  }

  @ParameterizedTest(name = "{0}, builder={1}")
  @MethodSource("builtins")
  void builtinProgramsOnOneThreadMatchTheJvmEngine(ProgramCases.Case c, boolean builder) {
    ProgramCases.Case single = c.onGrid(1, 1);
    RunOptions options = RunOptions.defaults().withSemanticLimit(64);
    ProgramCases.Run onGpu = ProgramCases.program(engines.gpu(), single, builder, options);
    ProgramCases.Run onJvm = ProgramCases.program(engines.jvm(), single, builder, options);
    ProgramCases.assertSame(onGpu.programResult(), onJvm.programResult());
    assertThat(StoreContents.firstDifference(c.layout(), onJvm.after(), onGpu.after())).isNull();
  }

  /**
   * Results left on the device ({@code withoutResults}, as TxState runs its batches): the same
   * outcomes, outputs and store as a run that brings them back, and every result reads 0.
   */
  @ParameterizedTest(name = "{0}, builder={1}")
  @MethodSource("builtins")
  void resultsLeftOnTheDeviceChangeNothingElse(ProgramCases.Case c, boolean builder) {
    ProgramCases.Case single = c.onGrid(1, 1);
    RunOptions options = RunOptions.defaults().withSemanticLimit(64);
    ProgramCases.Run kept = ProgramCases.program(engines.gpu(), single, builder, options);
    ProgramCases.Run left = ProgramCases.program(engines.gpu(), single, builder,
        options.withoutResults());
    ProgramCases.assertSame(left.programResult(), kept.programResult());
    assertThat(left.stats().results()).containsOnly(0L);
    assertThat(StoreContents.firstDifference(c.layout(), kept.after(), left.after())).isNull();
  }

  /**
   * Only the committed transactions' outputs brought back ({@code withCommittedOutputsOnly}, as
   * TxState runs its batches): the same outcomes and store, and the same committed outputs as
   * a run that brings every transaction's back.
   */
  @ParameterizedTest(name = "{0}, builder={1}")
  @MethodSource("builtins")
  void committedOutputsAloneAreThoseOfEveryOutputsRun(ProgramCases.Case c, boolean builder) {
    ProgramCases.Case single = c.onGrid(1, 1);
    RunOptions options = RunOptions.defaults().withSemanticLimit(64);
    ProgramCases.Run all = ProgramCases.program(engines.gpu(), single, builder, options);
    ProgramCases.Run committed = ProgramCases.program(engines.gpu(), single, builder,
        options.withCommittedOutputsOnly());
    ProgramResult a = all.programResult();
    ProgramResult b = committed.programResult();
    assertThat(b.stats().outcomes()).isEqualTo(a.stats().outcomes());
    assertThat(b.outputs()).isEmpty();
    assertThat(b.committedOutputs().rows()).isDeepEqualTo(a.committedOutputs().rows());
    assertThat(b.committedOutputs().values()).isDeepEqualTo(a.committedOutputs().values());
    assertThat(b.abortCodes()).isEqualTo(a.abortCodes());
    assertThat(StoreContents.firstDifference(c.layout(), all.after(), committed.after()))
        .isNull();
  }

  @SeedTest(seeds = 150)
  void randomProgramsOnOneThreadMatchTheJvmEngine(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 200, 1, 1, true);
    RunOptions options = RunOptions.defaults().withSemanticLimit(4);
    RandomProgramRuns.assertSameOnBoth(engines.gpu(), engines.jvm(), c, Algorithm.prStm(),
        options);
  }

  @SeedTest(seeds = 150)
  void randomProgramsOnManyThreadsAreSerializableOnTheGpu(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 2_000, 64, 4, false);
    RandomProgramRuns.assertSerializableAndReplays(engines.gpu(), c, Algorithm.prStm(),
        RunOptions.defaults().withSemanticLimit(4).withHistory(true));
  }

  @ParameterizedTest
  @EnumSource(CsmvVariant.class)
  void bankProgramsRunOnCsmvStores(CsmvVariant variant) {
    BankConfig cfg = BankConfig.builder().accounts(256).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 4).txPerThread(4).seed(5).build();
    var batch = cfg.batch();
    ProgramBatch programs = BankPrograms.batch(batch, BankPrograms.set(batch, false));
    for (Engine e : new Engine[] {engines.gpu(), engines.jvm()}) {
      try (TxStore store = e.createStore(cfg.layout(), Algorithm.csmv(4).withVariant(variant))) {
        store.writeInt32(0, cfg.initialBalances());
        ProgramResult r = e.run(store, programs, RunOptions.defaults());
        Verdict v = BankVerifier.verify(cfg.initialBalances(), batch, r.stats(),
            store.readInt32(0));
        assertThat(v.ok()).as("%s on %s: %s", variant, e.name(), v).isTrue();
        assertThat(r.commits()).isEqualTo(batch.txCount());
      }
    }
  }
}
