package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The GPU's batch path for batches of millions against the JVM engine: columns and types cross
 * the bus through the pinned staging buffer in many pieces (or as one device fill when every
 * transaction runs one program), buffers are reused between batches of other sizes, and only
 * what a batch wrote comes back (outputs when its programs have some, abort codes when one
 * aborted). Every transaction touches accounts no other touches, so both engines must end with
 * identical outcomes, outputs, codes and state.
 */
@EnabledIfGpu
class CudaBatchPathTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(2);

  private static final ProgramSet PROGRAMS = ProgramSet.parse("""
      program move(src: int32, dst: int32, amount: int64)
          regions balance: int64
          outputs left: int64
      {
        let have = balance[src];
        if (have < amount) { abort(7); }
        balance[src] = have - amount;
        balance[dst] = balance[dst] + amount;
        left = have - amount;
      }
      program peek(src: int32, dst: int32, amount: int64)
          regions balance: int64
          outputs seen: int64
      {
        seen = balance[src] + balance[dst] + amount;
      }
      program plain(src: int32, dst: int32, amount: int64)
          regions balance: int64
      {
        balance[src] = balance[src] - amount;
        balance[dst] = balance[dst] + amount;
      }
      """);

  /** Transactions over disjoint pairs of accounts, drawn from {@code seed}. */
  private record Input(int[] types, int[] src, int[] dst, long[] amount, long[] opening) {}

  private static Input input(int n, int programs, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int accounts = 2 * n;
    int[] perm = new int[accounts];
    for (int i = 0; i < accounts; i++) {
      perm[i] = i;
    }
    for (int i = accounts - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int x = perm[i];
      perm[i] = perm[j];
      perm[j] = x;
    }
    int[] types = new int[n];
    int[] src = new int[n];
    int[] dst = new int[n];
    long[] amount = new long[n];
    for (int t = 0; t < n; t++) {
      types[t] = programs == 1 ? 2 : rnd.nextInt(programs);
      src[t] = perm[2 * t];
      dst[t] = perm[2 * t + 1];
      amount[t] = 1 + rnd.nextInt(100);
    }
    long[] opening = new long[accounts];
    for (int a = 0; a < accounts; a++) {
      opening[a] = rnd.nextInt(200); // about a quarter of the moves overdraw: abort(7)
    }
    return new Input(types, src, dst, amount, opening);
  }

  private record Run(ProgramResult result, long[] after) {}

  private static Run run(Engine engine, Input in, boolean wrap) {
    StoreLayout layout = new StoreLayout(List.of(
        new RegionSpec("balance", RegionType.INT64, in.opening().length, 1)));
    ProgramBatch.Builder b = ProgramBatch.builder(PROGRAMS);
    if (wrap) {
      b.wrapTypes(in.types()).wrapInt32("src", in.src()).wrapInt32("dst", in.dst())
          .wrapInt64("amount", in.amount());
    } else {
      b.types(in.types()).int32("src", in.src()).int32("dst", in.dst())
          .int64("amount", in.amount());
    }
    try (TxStore store = engine.createStore(layout)) {
      StoreContents.write(store, new long[][] {in.opening()});
      ProgramResult r = engine.run(store, b.build(), RunOptions.defaults());
      return new Run(r, StoreContents.read(store)[0]);
    }
  }

  /** Outcomes, codes, outputs and state identical; returns the outcome counts. */
  private static void assertSameRuns(Run gpu, Run jvm) {
    ProgramResult g = gpu.result();
    ProgramResult j = jvm.result();
    int n = g.batch().txCount();
    assertThat(Arrays.mismatch(g.stats().outcomes(), j.stats().outcomes()))
        .as("first transaction whose outcome differs").isEqualTo(-1);
    assertThat(Arrays.mismatch(g.abortCodes(), j.abortCodes()))
        .as("first transaction whose abort code differs").isEqualTo(-1);
    for (int t = 0; t < n; t++) {
      CompiledProgram p = g.batch().programs().get(g.batch().type(t));
      for (Program.Output o : p.outputs()) {
        long x = g.outputBits(t, o.name());
        long y = j.outputBits(t, o.name());
        if (x != y) {
          throw new AssertionError("output " + o.name() + " of " + t + ": " + x + " vs " + y);
        }
      }
    }
    assertThat(Arrays.mismatch(gpu.after(), jvm.after()))
        .as("first account that differs").isEqualTo(-1);
  }

  @Test
  void aMixedBatchOfMillionsEndsAsOnTheJvm() {
    Input in = input(3_000_000, 3, 11);
    Run gpu = run(engines.gpu(), in, true);
    Run jvm = run(engines.jvm(), in, false);
    assertSameRuns(gpu, jvm);
    var counts = gpu.result().outcomeCounts();
    assertThat(counts.get(Outcome.USER_ABORT)).isGreaterThan(100_000);
    assertThat(counts.get(Outcome.COMMITTED)).isGreaterThan(2_000_000);
    assertThat(gpu.result().abortCodes()).contains(7);
  }

  /**
   * A batch whose outputs and abort codes belong to few transactions (a tenth run the programs
   * with outputs), asked for the committed transactions' outputs alone: those outputs and the
   * aborts' codes, picked from the columns as they land, are the JVM's, every one of them.
   */
  @Test
  void fewCommittedOutputsAndAbortsComeBackAsOnTheJvm() {
    Input all = input(3_000_000, 3, 23);
    int[] types = all.types().clone();
    SplittableRandom rnd = new SplittableRandom(5);
    for (int t = 0; t < types.length; t++) {
      types[t] = rnd.nextInt(10) == 0 ? rnd.nextInt(2) : 2;
    }
    Input in = new Input(types, all.src(), all.dst(), all.amount(), all.opening());
    StoreLayout layout = new StoreLayout(List.of(
        new RegionSpec("balance", RegionType.INT64, in.opening().length, 1)));
    ProgramResult[] results = new ProgramResult[2];
    long[][] after = new long[2][];
    Engine[] both = {engines.gpu(), engines.jvm()};
    for (int e = 0; e < 2; e++) {
      ProgramBatch batch = ProgramBatch.builder(PROGRAMS).types(in.types()).int32("src", in.src())
          .int32("dst", in.dst()).int64("amount", in.amount()).build();
      try (TxStore store = both[e].createStore(layout)) {
        StoreContents.write(store, new long[][] {in.opening()});
        results[e] = both[e].run(store, batch, RunOptions.defaults().withCommittedOutputsOnly());
        after[e] = StoreContents.read(store)[0];
      }
    }
    ProgramResult.CommittedOutputs g = results[0].committedOutputs();
    ProgramResult.CommittedOutputs j = results[1].committedOutputs();
    assertThat(g.rows()[0].length).as("committed transactions with an output")
        .isBetween(100_000, 3_000_000 / 4);
    assertThat(g.rows()).isDeepEqualTo(j.rows());
    assertThat(g.values()).isDeepEqualTo(j.values());
    assertThat(Arrays.mismatch(results[0].abortCodes(), results[1].abortCodes()))
        .as("first transaction whose abort code differs").isEqualTo(-1);
    assertThat(results[0].outcomeCounts().get(Outcome.USER_ABORT)).isGreaterThan(10_000);
    assertThat(Arrays.mismatch(after[0], after[1])).as("first account that differs")
        .isEqualTo(-1);
  }

  @Test
  void oneProgramForAllAcrossBatchesOfOtherSizes() {
    for (int n : new int[] {2_500_000, 1_000, 3_000_000, 2_500_000}) {
      Input in = input(n, 1, n);
      Run gpu = run(engines.gpu(), in, n % 2 == 0);
      Run jvm = run(engines.jvm(), in, false);
      assertThat(gpu.result().batch().uniformType()).isEqualTo(2);
      assertSameRuns(gpu, jvm);
      assertThat(gpu.result().commits()).isEqualTo(n);
      assertThat(gpu.result().outputs()).isEmpty();
    }
  }
}
