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
import io.gstm.core.workload.bank.BankConfig;
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

  /**
   * A set whose programs never retry retries in place until a batch of it aborts half its
   * attempts (every transfer between the same two accounts), then tries the semantic loop (and
   * keeps the faster), and goes back in place after a batch that hardly aborts (the same
   * programs over many accounts); every batch passes the bank's verifier, history and replay.
   */
  @Test
  void aSetWhoseBatchesContendTriesTheSemanticLoopAndGoesBackInPlaceWhenTheyCalm() {
    ProgramCases.Case hot = ProgramCases.bank("transfers between two accounts",
        BankConfig.builder().accounts(2).k(2).readOnly(0).lockCoverage(1).grid(256, 8)
            .txPerThread(4).seed(11).build(), false);
    ProgramCases.Case calm = ProgramCases.bank("transfers over many accounts",
        BankConfig.builder().accounts(1 << 16).k(2).readOnly(0).lockCoverage(1).grid(32, 1)
            .txPerThread(2).seed(12).build(), false);
    RunOptions options = RunOptions.defaults().withHistory(true);
    // Another case of the class may have left this set in either loop: a calm batch first.
    ProgramCases.Run settle = ProgramCases.program(cuda(), calm, false, options);
    assertThat(ProgramCases.verify(calm, settle)).isNull();
    assertThat(settle.stats().abortRate()).as("the calm batch hardly aborts").isLessThan(0.25);
    ProgramCases.Run first = ProgramCases.program(cuda(), hot, false, options);
    assertThat(cuda().lastProgramPath()).startsWith("compiled").endsWith("retried in place)");
    assertThat(ProgramCases.verify(hot, first)).isNull();
    assertThat(first.stats().abortRate()).as("the hot batch contends").isGreaterThan(0.5);
    ProgramCases.Run second = ProgramCases.program(cuda(), hot, false, options);
    assertThat(cuda().lastProgramPath()).startsWith("compiled").endsWith("semantic loop)");
    assertThat(ProgramCases.verify(hot, second)).isNull();
    ProgramCases.Run third = ProgramCases.program(cuda(), hot, false, options);
    assertThat(ProgramCases.verify(hot, third)).as(cuda().lastProgramPath()).isNull();
    ProgramCases.Run quiet = ProgramCases.program(cuda(), calm, false, options);
    assertThat(ProgramCases.verify(calm, quiet)).isNull();
    ProgramCases.Run again = ProgramCases.program(cuda(), calm, false, options);
    assertThat(cuda().lastProgramPath()).endsWith("retried in place)");
    assertThat(ProgramCases.verify(calm, again)).isNull();
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

  /**
   * Shared reads (no set entry) of 32-bit and 64-bit regions, in range and out of it (negative,
   * at the region's length, past it; the compiled code reads the length from the store's view),
   * the same as the interpreter's and the JVM engine's: outcomes, outputs and states.
   */
  @Test
  void sharedReadsOfBothWordSizesAgreeWithTheInterpreterAndTheJvm() {
    ProgramSet set = ProgramSet.parse("""
        program wide(i: int32, k: int32) regions out: int64, shared b: int64
            outputs seen: int64 {
          out[k] = out[k] + b[i] + 1;
          seen = b[i];
        }
        program narrow(i: int32, k: int32) regions small: int32, shared a: int32
            outputs seen: int32 {
          small[k] = small[k] + a[i] - 2;
          seen = a[i];
        }
        """);
    int n = 20_000;
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(17);
    int[] types = new int[n];
    int[] i = new int[n];
    int[] k = new int[n];
    for (int t = 0; t < n; t++) {
      types[t] = rnd.nextInt(2);
      int len = types[t] == 0 ? 5_000 : 3_000;
      i[t] = rnd.nextInt(50) == 0 ? len + rnd.nextInt(3) - (rnd.nextBoolean() ? len + 1 : 0)
          : rnd.nextInt(len);
      k[t] = rnd.nextInt(64);
    }
    ProgramBatch batch = ProgramBatch.builder(set).types(types)
        .column(Column.ofInt32("i", i)).column(Column.ofInt32("k", k)).build();
    io.gstm.core.store.StoreLayout layout = io.gstm.core.store.StoreLayout.of(
        new io.gstm.core.store.RegionSpec("out", io.gstm.core.store.RegionType.INT64, 64, 1),
        new io.gstm.core.store.RegionSpec("b", io.gstm.core.store.RegionType.INT64, 5_000, 1),
        new io.gstm.core.store.RegionSpec("small", io.gstm.core.store.RegionType.INT32, 64, 1),
        new io.gstm.core.store.RegionSpec("a", io.gstm.core.store.RegionType.INT32, 3_000, 1));
    // Small values: the sums commute and never overflow, whatever order the threads take.
    long[][] start = {new long[64], rnd.longs(5_000, 0, 1_000).toArray(), new long[64],
        rnd.ints(3_000, -1_000, 1_000).asLongStream().toArray()};
    java.util.function.Function<io.gstm.core.engine.Engine, Object[]> run = engine -> {
      try (io.gstm.core.store.TxStore store = engine.createStore(layout)) {
        StoreContents.write(store, start);
        ProgramResult r = engine.run(store, batch, RunOptions.defaults());
        return new Object[] {r, StoreContents.read(store)};
      }
    };
    Object[] compiled = run.apply(cuda());
    assertThat(cuda().lastProgramPath()).startsWith("compiled");
    Object[] interp = interpreted(() -> run.apply(cuda()));
    Object[] jvm = run.apply(engines.jvm());
    ProgramCases.assertSame((ProgramResult) compiled[0], (ProgramResult) interp[0]);
    ProgramCases.assertSame((ProgramResult) compiled[0], (ProgramResult) jvm[0]);
    assertThat(StoreContents.firstDifference(layout, (long[][]) interp[1], (long[][]) compiled[1]))
        .isNull();
    assertThat(StoreContents.firstDifference(layout, (long[][]) jvm[1], (long[][]) compiled[1]))
        .isNull();
    long outOfRange = java.util.stream.IntStream.range(0, n)
        .filter(t -> ((ProgramResult) compiled[0]).outcome(t)
            == io.gstm.core.batch.Outcome.OUT_OF_RANGE).count();
    assertThat(outOfRange).as("transactions out of range").isGreaterThan(50);
  }

  /**
   * Indices that name one word or one lock (a == b; a / 4 == b / 4 under a lock of four words;
   * x[i] and y[i] under row locks) take a transaction from the compiled program's fixed slots
   * to its general code: the store ends as the JVM engine's and as the sums say, every
   * transaction committed.
   */
  @Test
  void indicesThatShareAWordOrALockTakeTheGeneralCodeWithTheJvmsResult() {
    ProgramSet set = ProgramSet.parse("""
        program twice(a: int32, b: int32) regions x: int64, y: int64 {
          x[a] = x[a] + 1;
          x[b] = x[b] + 10;
          y[b] = y[b] + 100;
          y[a] = y[a] + 1000;
        }
        """);
    int n = 20_000;
    int words = 64;
    java.util.SplittableRandom rnd = new java.util.SplittableRandom(29);
    int[] a = new int[n];
    int[] b = new int[n];
    long[] x = new long[words];
    long[] y = new long[words];
    for (int t = 0; t < n; t++) {
      a[t] = rnd.nextInt(words);
      int kind = rnd.nextInt(3);
      b[t] = kind == 0 ? a[t] : kind == 1 ? a[t] ^ 1 : rnd.nextInt(words);
      x[a[t]] += 1;
      x[b[t]] += 10;
      y[b[t]] += 100;
      y[a[t]] += 1000;
    }
    ProgramBatch batch = ProgramBatch.builder(set).all("twice", n)
        .column(Column.ofInt32("a", a)).column(Column.ofInt32("b", b)).build();
    io.gstm.core.store.RegionType int64 = io.gstm.core.store.RegionType.INT64;
    java.util.List<io.gstm.core.store.StoreLayout> layouts = java.util.List.of(
        io.gstm.core.store.StoreLayout.of(new io.gstm.core.store.RegionSpec("x", int64, words, 1),
            new io.gstm.core.store.RegionSpec("y", int64, words, 1)),
        io.gstm.core.store.StoreLayout.of(new io.gstm.core.store.RegionSpec("x", int64, words, 4),
            new io.gstm.core.store.RegionSpec("y", int64, words, 1)),
        io.gstm.core.store.StoreLayout.of(new io.gstm.core.store.RegionSpec("x", int64, words, 1),
            new io.gstm.core.store.RegionSpec("y", int64, words, 1).withLocksOf("x")));
    for (io.gstm.core.store.StoreLayout layout : layouts) {
      java.util.function.Function<io.gstm.core.engine.Engine, Object[]> run = engine -> {
        try (io.gstm.core.store.TxStore store = engine.createStore(layout)) {
          ProgramResult r = engine.run(store, batch, RunOptions.defaults());
          return new Object[] {r, StoreContents.read(store)};
        }
      };
      Object[] compiled = run.apply(cuda());
      assertThat(cuda().lastProgramPath()).as(layout.toString()).startsWith("compiled");
      Object[] jvm = run.apply(engines.jvm());
      long[][] after = (long[][]) compiled[1];
      assertThat(after[0]).as(layout.toString()).isEqualTo(x);
      assertThat(after[1]).as(layout.toString()).isEqualTo(y);
      assertThat(StoreContents.firstDifference(layout, (long[][]) jvm[1], after)).isNull();
      ProgramResult r = (ProgramResult) compiled[0];
      assertThat(java.util.stream.IntStream.range(0, n).filter(t -> r.outcome(t)
          != io.gstm.core.batch.Outcome.COMMITTED).count()).as(layout.toString()).isZero();
    }
  }
}
