package io.gstm.core.cuda;

import static io.gstm.core.testing.AlgorithmArgs.named;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.program.StoreContents;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.Backoff;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.AlgorithmArgs;
import io.gstm.core.testing.DsCases;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.ProgramCases;
import io.gstm.core.testing.RandomProgramRuns;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsConfig;
import io.gstm.core.workload.ds.DsKind;
import io.gstm.core.workload.ds.DsRun;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * GPU-STM and Cederman's blocking and obstruction-free STMs on the GPU (their program kernels):
 * every data structure at full and low contention, the built-in workloads as programs, every
 * backoff, Cederman's grid of one thread per block and random programs pass every check
 * (verifier, history checker, model and program replays); and on one thread the GPU gives
 * exactly the JVM engine's outcomes, codes, outputs and final store, batch for batch.
 */
@EnabledIfGpu
class CudaLockTableTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(1);

  private static final Algorithm[] ALGORITHMS = {Algorithm.gpuStm(), Algorithm.blocking(),
      Algorithm.obstructionFree()};

  static Stream<Arguments> structures() {
    return DsCases.structuresOn(ALGORITHMS);
  }

  @ParameterizedTest(name = "{0}: {1} {2} contention, seed {3}")
  @MethodSource("structures")
  void dataStructuresPassEveryCheckOnTheGpu(Algorithm algorithm, DsKind kind, String contention,
      long seed) {
    DsBatch b = DsBatch.of(DsCases.gpuConfig(kind, contention, seed));
    DsRun run = DsCases.assertPassesEveryCheck(engines.gpu(), algorithm, b);
    assertThat(run.result().stats().history()).isNotNull();
  }

  @ParameterizedTest(name = "{0}: {1} {2} contention, seed {3}")
  @MethodSource("structures")
  void oneThreadOnTheGpuGivesTheJvmEnginesResultsExactly(Algorithm algorithm, DsKind kind,
      String contention, long seed) {
    DsBatch b = DsBatch.of(DsCases.gpuConfig(kind, contention, seed).withGrid(1, 1)
        .withTransactions(2_000));
    DsRun g = DsRun.run(engines.gpu(), algorithm, b, RunOptions.defaults());
    DsRun j = DsRun.run(engines.jvm(), algorithm, b, RunOptions.defaults());
    assertThat(g.problems()).isEmpty();
    ProgramCases.assertSame(g.result(), j.result());
    assertThat(StoreContents.firstDifference(b.layout(), j.after(), g.after())).isNull();
  }

  static Stream<Arguments> builtins() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : ALGORITHMS) {
      for (ProgramCases.Case c : ProgramCases.all(64, 4, 29)) {
        out.add(Arguments.of(named(a), c));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("builtins")
  void builtinWorkloadsAsProgramsPassTheirChecksOnTheGpu(Algorithm algorithm, ProgramCases.Case c) {
    for (SemanticPolicy policy : SemanticPolicy.values()) {
      RunOptions options = RunOptions.defaults().withHistory(true).withPolicy(policy);
      ProgramCases.Run run = ProgramCases.program(engines.gpu(), c, false, options,
          algorithm);
      assertThat(ProgramCases.verify(c, run)).as("%s", policy).isNull();
    }
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("builtins")
  void builtinWorkloadsOnOneThreadMatchTheJvmEngine(Algorithm algorithm, ProgramCases.Case c) {
    ProgramCases.Case single = c.onGrid(1, 1);
    RunOptions options = RunOptions.defaults().withSemanticLimit(64);
    ProgramCases.Run onGpu = ProgramCases.program(engines.gpu(), single, false, options,
        algorithm);
    ProgramCases.Run onJvm = ProgramCases.program(engines.jvm(), single, false, options,
        algorithm);
    ProgramCases.assertSame(onGpu.programResult(), onJvm.programResult());
    assertThat(StoreContents.firstDifference(c.layout(), onJvm.after(), onGpu.after())).isNull();
  }

  static Stream<Arguments> backoffs() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : new Algorithm[] {Algorithm.blocking(), Algorithm.obstructionFree()}) {
      for (Backoff b : new Backoff[] {Backoff.none(), Backoff.linear(50, 5_000),
          Backoff.exponential(20, 100_000)}) {
        for (DsKind kind : new DsKind[] {DsKind.QUEUE, DsKind.HASHMAP}) {
          out.add(Arguments.of(named(a.withBackoff(b)), kind));
        }
      }
    }
    return out.stream();
  }

  /** The queue is the paper's hottest structure, where backoff changed the aborts. */
  @ParameterizedTest(name = "{0}: {1} full contention")
  @MethodSource("backoffs")
  void everyBackoffPassesEveryCheckOnTheGpu(Algorithm algorithm, DsKind kind) {
    DsBatch b = DsBatch.of(DsCases.gpuConfig(kind, "full", 7));
    DsCases.assertPassesEveryCheck(engines.gpu(), algorithm, b);
  }

  /**
   * Cederman's grid: one transaction per thread block (60 blocks of one thread); every counter
   * arrives although a block has fewer threads than counters.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void oneThreadPerBlockAsInThePaper(Algorithm algorithm) {
    DsBatch b = DsBatch.of(DsConfig.fullContention(DsKind.QUEUE, 6_000, 1, 60, 3));
    DsRun run = DsRun.run(engines.gpu(), algorithm, b,
        RunOptions.defaults().withHistory(true));
    assertThat(run.problems()).isEmpty();
    assertThat(run.result().commits()).isEqualTo(b.txCount());
    assertThat(run.result().stats().count(Counter.COMMITS)).isEqualTo(b.txCount());
  }

  static Stream<Named<Algorithm>> algorithms() {
    return Stream.of(ALGORITHMS).map(AlgorithmArgs::named);
  }

  static Stream<Arguments> randomPrograms() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : ALGORITHMS) {
      for (long seed = 1; seed <= 50; seed++) {
        out.add(Arguments.of(named(a), seed));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("randomPrograms")
  void randomProgramsOnOneThreadMatchTheJvmEngine(Algorithm algorithm, long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 200, 1, 1, true);
    RunOptions options = RunOptions.defaults().withSemanticLimit(4);
    RandomProgramRuns.assertSameOnBoth(engines.gpu(), engines.jvm(), c, algorithm,
        options);
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("randomPrograms")
  void randomProgramsOnManyThreadsAreSerializableOnTheGpu(Algorithm algorithm, long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 2_000, 64, 4, false);
    RandomProgramRuns.assertSerializableAndReplays(engines.gpu(), c, algorithm,
        RunOptions.defaults().withSemanticLimit(4).withHistory(true));
  }

  @Test
  void handWrittenBatchesAreRefusedClearly() {
    BankConfig cfg = BankConfig.builder().accounts(64).k(2).readOnly(0.2).lockCoverage(1)
        .grid(32, 2).txPerThread(2).seed(1).build();
    for (Algorithm a : ALGORITHMS) {
      try (TxStore store = engines.gpu().createStore(cfg.layout(), a)) {
        assertThat(store.algorithm()).isEqualTo(a);
        assertThatThrownBy(() -> engines.gpu().run(store, cfg.batch(), RunOptions.defaults()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(a.label() + " runs transaction programs only");
      }
    }
  }
}
