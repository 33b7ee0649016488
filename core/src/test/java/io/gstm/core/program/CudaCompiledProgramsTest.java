package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.ProgramCases;
import io.gstm.core.testing.RandomProgramRuns;
import io.gstm.core.testing.SeedTest;
import io.gstm.core.testing.SharedEngines;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Programs compiled for the device against the interpreter and the JVM engine: on one thread
 * the three end in identical states with identical results; on many threads the compiled
 * programs' histories are serializable and replay exactly; the built-in workloads pass their
 * verifiers compiled. Each case checks that it did run compiled where its sets allow.
 */
@EnabledIfGpu
class CudaCompiledProgramsTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(1);

  private CudaEngine cuda() {
    return (CudaEngine) engines.gpu();
  }

  @org.junit.jupiter.api.BeforeEach
  void compileBeforeRunning() {
    cuda().setCompileInBackground(false); // each case checks that it ran compiled
  }

  @AfterEach
  void compiledAgain() {
    cuda().setCompiledPrograms(true);
    cuda().setCompileInBackground(true);
  }

  private <T> T interpreted(Supplier<T> run) {
    cuda().setCompiledPrograms(false);
    try {
      return run.get();
    } finally {
      cuda().setCompiledPrograms(true);
    }
  }

  private boolean compilable(RandomPrograms.Case c) {
    return ProgramBinding.bind(c.batch(), c.layout(), Algorithm.prStm()).capacity()
        <= cuda().maxCompiledCapacity();
  }

  // Every seed is a program set of its own, so a compilation (a few hundred ms of the driver's
  // JIT): fewer seeds than the interpreter's tests.
  @SeedTest(seeds = 40)
  void onOneThreadCompiledInterpretedAndJvmAgree(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 200, 1, 1, true);
    RunOptions options = RunOptions.defaults().withSemanticLimit(4);
    RandomProgramRuns.Run compiled = RandomProgramRuns.run(cuda(), c, Algorithm.prStm(), options);
    assertThat(cuda().lastProgramPath()).startsWith(compilable(c) ? "compiled" : "interpreted");
    RandomProgramRuns.Run interp = interpreted(
        () -> RandomProgramRuns.run(cuda(), c, Algorithm.prStm(), options));
    RandomProgramRuns.Run jvm = RandomProgramRuns.run(engines.jvm(), c, Algorithm.prStm(),
        options);
    ProgramCases.assertSame(compiled.result(), interp.result());
    ProgramCases.assertSame(compiled.result(), jvm.result());
    assertThat(StoreContents.firstDifference(c.layout(), interp.after(), compiled.after()))
        .as(c.text()).isNull();
    assertThat(StoreContents.firstDifference(c.layout(), jvm.after(), compiled.after()))
        .as(c.text()).isNull();
  }

  @SeedTest(seeds = 30)
  void onManyThreadsCompiledProgramsAreSerializable(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 2_000, 64, 4, false);
    RandomProgramRuns.assertSerializableAndReplays(cuda(), c, Algorithm.prStm(),
        RunOptions.defaults().withSemanticLimit(4).withHistory(true));
    assertThat(cuda().lastProgramPath()).startsWith(compilable(c) ? "compiled" : "interpreted");
  }

  @Test
  void builtinWorkloadsPassTheirVerifiersCompiled() {
    for (ProgramCases.Case c : ProgramCases.all(64, 4, 21)) {
      ProgramCases.Run run = ProgramCases.program(cuda(), c, false,
          RunOptions.defaults().withHistory(true));
      assertThat(ProgramCases.verify(c, run)).as(c.name()).isNull();
    }
  }

  @Test
  void aNewSetRunsInterpretedWhileItCompilesInTheBackgroundThenCompiled() throws Exception {
    cuda().setCompileInBackground(true);
    // A set no other case compiles (its seed), sets of 2 so that it compiles.
    RandomPrograms.Case c = null;
    for (long seed = 90_001; c == null || !compilable(c); seed++) {
      c = RandomPrograms.generate(seed, 200, 1, 1, true);
    }
    RandomPrograms.Case set = c;
    RunOptions options = RunOptions.defaults().withSemanticLimit(4);
    RandomProgramRuns.Run first = RandomProgramRuns.run(cuda(), set, Algorithm.prStm(), options);
    assertThat(cuda().lastProgramPath()).isEqualTo("interpreted (compiling in the background)");
    RandomProgramRuns.Run later = first;
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!cuda().lastProgramPath().startsWith("compiled") && System.nanoTime() < deadline) {
      Thread.sleep(50);
      later = RandomProgramRuns.run(cuda(), set, Algorithm.prStm(), options);
    }
    assertThat(cuda().lastProgramPath()).startsWith("compiled");
    ProgramCases.assertSame(later.result(), first.result());
    assertThat(StoreContents.firstDifference(set.layout(), first.after(), later.after())).isNull();
  }
}
