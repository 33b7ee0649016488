package io.gstm.core.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import io.gstm.core.program.ValueType;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.Fuzz;
import io.gstm.core.testing.Mutations;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.kmeans.KMeansPrograms;
import io.gstm.core.workload.pc.ProducerConsumerPrograms;
import io.gstm.core.workload.vacation.VacationPrograms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded fuzzing of transaction programs: {@link ProgramSet#parse} on mutated text (random
 * programs, the examples and the built-in workloads' programs, with characters, tokens, spans
 * and nests inserted, deleted or cut) and {@link CompiledProgram#decode} on mutated images
 * (bits flipped, words replaced, inserted or dropped, cut short). Every input ends in a
 * program or a ProgramException (an IllegalArgumentException naming the program and the place);
 * every accepted program runs, on a store it binds to and with random (sometimes out-of-range)
 * parameters, to outcomes the history checker finds serializable and the serial replay
 * reproduces exactly.
 */
class ProgramFuzzTest {
  private static final Fuzz.Budget BUDGET = new Fuzz.Budget("programs", 20);
  /** Programs that may take more steps than this per attempt are checked but not run. */
  private static final long MAX_STEPS_RUN = 20_000;
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);
  private static List<String> examples;
  /** Inputs accepted, rejected with a clear error, and run, for the summary. */
  private static final long[] COUNTS = new long[3];

  @BeforeAll
  static void open() throws IOException {
    examples = new ArrayList<>();
    for (String f : List.of("bank/bank.gstm", "vacation/vacation.gstm",
        "producer-consumer/producer-consumer.gstm", "kmeans/kmeans.gstm",
        "warehouse/warehouse.gstm")) {
      examples.add(Files.readString(Path.of("..", "examples", f)));
    }
    examples.add(BankPrograms.text(3, true, 0));
    examples.add(BankPrograms.text(2, false, 16));
    examples.add(VacationPrograms.text(2, 50));
    examples.add(ProducerConsumerPrograms.text(8));
    examples.add(KMeansPrograms.text(3, 2, 64));
  }

  @AfterAll
  static void close() {
    System.out.printf("fuzz programs: %d inputs accepted, %d rejected with a clear error, %d "
        + "batches run and checked%n", COUNTS[0], COUNTS[1], COUNTS[2]);
  }

  private static <T> T count(T value) {
    COUNTS[value == null ? 1 : 0]++;
    return value;
  }

  static LongStream seeds() {
    return Fuzz.seeds("programs", 3000);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyProgramEndsCheckedOrRejected(long seed) {
    BUDGET.check(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    String text = rnd.nextInt(3) == 0 ? examples.get(rnd.nextInt(examples.size()))
        : RandomPrograms.generate(rnd.nextLong(), 1, 1, 1, rnd.nextBoolean()).text();
    int kind = rnd.nextInt(4);
    if (kind == 0) {
      // The text as it is, on a store and with parameters drawn for it.
      ProgramSet set = ProgramSet.parse(text);
      runChecked(rnd, set, "seed " + seed + ":\n" + text);
      return;
    }
    if (kind < 3) {
      // Mutated text.
      String mutated = Mutations.program(rnd, text, false);
      ProgramSet set = count(Fuzz.resultOrClearError("seed " + seed + ", parse:\n" + mutated,
          false, () -> ProgramSet.parse(mutated)));
      if (set != null) {
        runChecked(rnd, set, "seed " + seed + ":\n" + mutated);
      }
      return;
    }
    // A mutated image of a program that compiled.
    ProgramSet original = ProgramSet.parse(text);
    CompiledProgram p = original.get(rnd.nextInt(original.size()));
    int[] image = Mutations.image(rnd, p.encode());
    String about = "seed " + seed + ", decode a mutated image of:\n" + p.disassemble();
    CompiledProgram back = count(Fuzz.resultOrClearError(about, false,
        () -> CompiledProgram.decode(image)));
    if (back != null) {
      ProgramSet set = Fuzz.resultOrClearError(about, false, () -> ProgramSet.of(back));
      if (set != null) {
        runChecked(rnd, set, about + "\ndecoded as:\n" + back.disassemble());
      }
    }
  }

  /**
   * Runs {@code set} on a store made for it, with random parameters, under PR-STM or CSMV: a
   * binding error is a clear error; a run passes the history checker and the serial replay.
   */
  private static void runChecked(SplittableRandom rnd, ProgramSet set, String about) {
    Map<String, ValueType> regions = new LinkedHashMap<>();
    for (CompiledProgram p : set.programs()) {
      if (p.analysis().steps() > MAX_STEPS_RUN) {
        return;
      }
      for (Program.RegionDecl r : p.regions()) {
        if (regions.putIfAbsent(r.name(), r.type()) != null && regions.get(r.name()) != r.type()) {
          return; // two programs disagree on a region's type: no store binds both
        }
      }
    }
    if (regions.isEmpty() || regions.size() > StoreLayout.MAX_REGIONS) {
      return;
    }
    List<RegionSpec> specs = new ArrayList<>();
    long[][] initial = new long[regions.size()][];
    int r = 0;
    for (Map.Entry<String, ValueType> e : regions.entrySet()) {
      int length = 1 + rnd.nextInt(40);
      specs.add(new RegionSpec(e.getKey(), e.getValue().regionType(), length,
          1 + rnd.nextInt(3)));
      initial[r] = new long[length];
      for (int i = 0; i < length; i++) {
        initial[r][i] = bits(rnd, e.getValue());
      }
      r++;
    }
    StoreLayout layout = new StoreLayout(specs);
    int n = 1 + rnd.nextInt(200);
    int[] types = new int[n];
    for (int t = 0; t < n; t++) {
      types[t] = rnd.nextInt(set.size());
    }
    ProgramBatch.Builder b = ProgramBatch.builder(set).types(types)
        .grid(1 + rnd.nextInt(32), 1 + rnd.nextInt(3));
    Map<String, ValueType> columns = new LinkedHashMap<>();
    for (CompiledProgram p : set.programs()) {
      for (int c = 0; c < p.columnNames().size(); c++) {
        columns.putIfAbsent(p.columnNames().get(c), p.columnTypes().get(c));
      }
    }
    for (Map.Entry<String, ValueType> c : columns.entrySet()) {
      long[] v = new long[n];
      for (int t = 0; t < n; t++) {
        v[t] = bits(rnd, c.getValue());
      }
      b.column(Column.ofBits(c.getKey(), c.getValue(), v));
    }
    ProgramBatch batch = Fuzz.resultOrClearError(about, false, b::build);
    if (batch == null) {
      return;
    }
    Algorithm alg = rnd.nextInt(4) == 0 ? Algorithm.csmv(2 + rnd.nextInt(6)) : Algorithm.prStm();
    RunOptions options = RunOptions.defaults().withSemanticLimit(4).withHistory(true);
    TxStore created = Fuzz.resultOrClearError(about + "\na " + alg.label() + " store of "
        + layout, false, () -> engines.jvm().createStore(layout, alg));
    if (created == null) {
      return; // e.g. a CSMV store of 8-byte words
    }
    try (TxStore store = created) {
      StoreContents.write(store, initial);
      ProgramResult result = Fuzz.resultOrClearError(about + "\non " + alg.label(), false,
          () -> engines.jvm().run(store, batch, options));
      long[][] after = StoreContents.read(store);
      if (result == null) {
        assertThat(StoreContents.firstDifference(layout, initial, after))
            .as("a rejected batch changed the store: %s", about).isNull();
        return;
      }
      COUNTS[2]++;
      for (int t = 0; t < n; t++) {
        assertThat(result.outcome(t)).as("%s: transaction %d", about, t)
            .isNotEqualTo(Outcome.PENDING);
      }
      HistoryChecker.Verdict h = HistoryChecker.check(result.stats().history());
      assertThat(h.serializable()).as("%s\n%s", about, h.violations()).isTrue();
      boolean sums = set.programs().stream().anyMatch(p -> p.analysis().sums() > 0);
      if (!sums || alg.isCsmv()) {
        // A sum() is one range read that the PR-STM history does not record: no replay order.
        Verdict replay = ProgramReplay.verify(result, layout, initial, after,
            h.serialOrder());
        assertThat(replay.ok()).as("%s\n%s", about, replay).isTrue();
      }
    }
  }

  private static long bits(SplittableRandom rnd, ValueType t) {
    int v = rnd.nextInt(8) == 0 ? new int[] {Integer.MIN_VALUE, -1, Integer.MAX_VALUE, 0,
        1 << 20}[rnd.nextInt(5)] : rnd.nextInt(-50, 50);
    return switch (t) {
      case INT32, INT64, BOOL -> v;
      case FLOAT32 -> Float.floatToRawIntBits(v / 4.0f);
      case FLOAT64 -> Double.doubleToRawLongBits(v / 4.0);
    };
  }
}
