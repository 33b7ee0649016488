package io.gstm.core.testing;

import static io.gstm.core.program.StoreContents.int32Bits;
import static io.gstm.core.program.StoreContents.int32Values;
import static io.gstm.core.program.StoreContents.ofInt32;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.kmeans.KMeansPrograms;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import io.gstm.core.workload.pc.ProducerConsumerConfig;
import io.gstm.core.workload.pc.ProducerConsumerPrograms;
import io.gstm.core.workload.pc.ProducerConsumerVerifier;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationPrograms;
import io.gstm.core.workload.vacation.VacationVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The built-in workloads as cases that run both ways on any engine: the hand-written batch and
 * the same transactions as programs (text or builder), with the workload's exact verifier.
 */
public final class ProgramCases {
  private ProgramCases() {}

  /** Checks a finished batch; returns null when it is right, else what is wrong. */
  public interface Verifier {
    String check(TxBatch batch, BatchResult stats, long[][] before, long[][] after);
  }

  /** Makes the program set for a hand-written batch. */
  public interface Programs {
    ProgramSet of(TxBatch batch, boolean builder);
  }

  /** Turns a hand-written batch into the same transactions as programs. */
  public interface Converter {
    ProgramBatch of(TxBatch batch, ProgramSet set);
  }

  /**
   * @param name shown in test names
   * @param layout the store
   * @param initial its contents before the batch (register bits)
   * @param batch the hand-written batch
   */
  public record Case(String name, StoreLayout layout, long[][] initial, TxBatch batch,
      Programs programs, Converter converter, Verifier verifier) {
    @Override
    public String toString() {
      return name;
    }

    public ProgramBatch programBatch(boolean builder) {
      return converter.of(batch, programs.of(batch, builder));
    }

    /** The hand-written batch on another grid. */
    public Case onGrid(int threadsPerBlock, int blocks) {
      TxBatch b = new TxBatch(batch.workload(), batch.types(), batch.columns(), batch.params(),
          threadsPerBlock, blocks, batch.capacity());
      return new Case(name, layout, initial, b, programs, converter, verifier);
    }
  }

  /** What one run left: its statistics and the store before and after. */
  public record Run(BatchResult stats, ProgramResult programResult, long[][] before,
      long[][] after) {}

  public static Run handWritten(Engine engine, Case c, RunOptions options) {
    try (TxStore store = engine.createStore(c.layout())) {
      StoreContents.write(store, c.initial());
      BatchResult r = engine.run(store, c.batch(), options);
      return new Run(r, null, c.initial(), StoreContents.read(store));
    }
  }

  public static Run program(Engine engine, Case c, boolean builder, RunOptions options) {
    return program(engine, c, builder, options, Algorithm.prStm());
  }

  /** The case as programs on a store of {@code algorithm}. */
  public static Run program(Engine engine, Case c, boolean builder, RunOptions options,
      Algorithm algorithm) {
    try (TxStore store = engine.createStore(c.layout(), algorithm)) {
      StoreContents.write(store, c.initial());
      ProgramResult r = engine.run(store, c.programBatch(builder), options);
      return new Run(r.stats(), r, c.initial(), StoreContents.read(store));
    }
  }

  /**
   * The case on a store of {@code algorithm} (checked to be the store's): as programs from text
   * where {@code how} is "program", else as its hand-written batch.
   */
  public static Run onStore(Engine engine, Case c, String how, RunOptions options,
      Algorithm algorithm) {
    try (TxStore store = engine.createStore(c.layout(), algorithm)) {
      assertThat(store.algorithm()).isEqualTo(algorithm);
      StoreContents.write(store, c.initial());
      if (how.equals("program")) {
        ProgramResult r = engine.run(store, c.programBatch(false), options);
        return new Run(r.stats(), r, c.initial(), StoreContents.read(store));
      }
      BatchResult r = engine.run(store, c.batch(), options);
      return new Run(r, null, c.initial(), StoreContents.read(store));
    }
  }

  /**
   * Everything a program run must satisfy: the workload's verifier on the same transactions,
   * and with a history, serializability and the exact serial replay. Null when it holds.
   */
  public static String verify(Case c, Run run) {
    String v = c.verifier().check(c.batch(), run.stats(), run.before(), run.after());
    if (v != null) {
      return "verifier: " + v;
    }
    if (run.stats().history() != null) {
      HistoryChecker.Verdict h = HistoryChecker.check(run.stats().history());
      if (!h.serializable()) {
        return "history: " + h.violations();
      }
      if (run.programResult() != null) {
        Verdict replay = ProgramReplay.verify(run.programResult(), c.layout(),
            run.before(), run.after(), h.serialOrder());
        if (!replay.ok()) {
          return "replay: " + replay.problems();
        }
      }
    }
    return null;
  }

  // ---- the cases --------------------------------------------------------------------------

  /** Every case at a size for CI, on a grid of {@code threadsPerBlock x blocks}. */
  public static List<Case> all(int threadsPerBlock, int blocks, long seed) {
    List<Case> cases = new ArrayList<>();
    int tx = 4;
    for (int k : new int[] {1, 2, 4}) {
      cases.add(bank("bank k=" + k, BankConfig.builder().accounts(64).k(k).readOnly(0.3)
          .lockCoverage(1).grid(threadsPerBlock, blocks).txPerThread(tx).seed(seed + k)
          .build(), false));
    }
    cases.add(bank("bank k=3 coverage 4", BankConfig.builder().accounts(64).k(3).readOnly(0.2)
        .lockCoverage(4).grid(threadsPerBlock, blocks).txPerThread(tx).seed(seed).build(), false));
    cases.add(bank("bank audits of every account", BankConfig.builder().accounts(48).k(2)
        .readOnly(0.3).lockCoverage(1).grid(threadsPerBlock, blocks).txPerThread(tx).seed(seed)
        .build(), true));
    cases.add(semanticBank("bank deposits, withdrawals, checked transfers",
        SemanticBankConfig.builder().accounts(64).k(2).semanticRatio(0.5).lockCoverage(1)
            .grid(threadsPerBlock, blocks).txPerThread(tx).seed(seed).build()));
    cases.add(vacation(VacationConfig.builder().customers(200).roomTypes(8).roomsPerType(40)
        .semanticRatio(0.5).lockCoverage(1).grid(threadsPerBlock, blocks).txPerThread(tx).seed(seed)
        .build()));
    cases.add(producerConsumer(ProducerConsumerConfig.builder().producers(3).consumers(2)
        .itemsPerProducer(Math.max(1, threadsPerBlock * blocks * 2 / 3)).bufferCapacity(7)
        .lockCoverage(1).grid(threadsPerBlock, blocks).seed(seed).build()));
    cases.add(kmeans(300, 3, 4, 37, threadsPerBlock, seed));
    return cases;
  }

  /**
   * {@link #all}'s cases as {@code (case, builder)} arguments: each once with its programs from
   * their text and once from the builder.
   */
  public static Stream<Arguments> allFromTextAndBuilder(int threadsPerBlock, int blocks,
      long seed) {
    return all(threadsPerBlock, blocks, seed).stream()
        .flatMap(c -> Stream.of(Arguments.of(c, false), Arguments.of(c, true)));
  }

  public static Case bank(String name, BankConfig cfg, boolean wholeBankAudits) {
    TxBatch batch = wholeBankAudits ? cfg.batchWithAuditSpan(cfg.accounts()) : cfg.batch();
    return new Case(name, cfg.layout(), ofInt32(cfg.initialBalances()), batch, BankPrograms::set,
        BankPrograms::batch, ProgramCases::bankVerdict);
  }

  public static Case semanticBank(String name, SemanticBankConfig cfg) {
    return new Case(name, cfg.layout(), ofInt32(cfg.initialBalances()), cfg.batch(),
        BankPrograms::set, BankPrograms::batch, ProgramCases::bankVerdict);
  }

  private static String bankVerdict(TxBatch batch, BatchResult r, long[][] before,
      long[][] after) {
    Verdict v =
        BankVerifier.verify(int32Values(before[0]), batch, r, int32Values(after[0]));
    return v.ok() ? null : v.toString();
  }

  public static Case vacation(VacationConfig cfg) {
    long[][] initial = {int32Bits(cfg.initialRooms()), int32Bits(cfg.initialCustomers())};
    return new Case("vacation", cfg.layout(), initial, cfg.batch(), VacationPrograms::set,
        VacationPrograms::batch, (batch, r, before, after) -> {
          Verdict v = VacationVerifier.verify(int32Values(before[0]),
              int32Values(before[1]), batch, r, int32Values(after[0]), int32Values(after[1]));
          return v.ok() ? null : v.toString();
        });
  }

  public static Case producerConsumer(ProducerConsumerConfig cfg) {
    long[] slots = new long[cfg.bufferCapacity()];
    java.util.Arrays.fill(slots, ProducerConsumerConfig.NOT_TAKEN);
    long[] taken = new long[cfg.items()];
    java.util.Arrays.fill(taken, ProducerConsumerConfig.NOT_TAKEN);
    long[][] initial = {slots, new long[2], taken};
    return new Case("producer-consumer", cfg.layout(), initial, cfg.batch(),
        ProducerConsumerPrograms::set, ProducerConsumerPrograms::batch,
        (batch, r, before, after) -> {
          ProducerConsumerVerifier.Verdict v = ProducerConsumerVerifier.verify(cfg, batch, r,
              after[0], int32Values(after[1]), after[2]);
          return v.ok() ? null : v.toString();
        });
  }

  /** The JPDC k-means update: points in blocks, one transaction per centroid and block slice. */
  public static Case kmeans(int n, int dims, int k, int pointsPerTx, int threadsPerBlock,
      long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] points = new double[n * dims];
    for (int i = 0; i < points.length; i++) {
      points[i] = rnd.nextDouble(-10, 10);
    }
    int[] assign = new int[n];
    for (int p = 0; p < n; p++) {
      assign[p] = rnd.nextInt(k);
    }
    int capacity = 2; // slices of 2 words: a record of dims + 1 words takes several
    TxBatch batch =
        KMeansWorkload.batch(assign, k, dims, pointsPerTx, capacity, threadsPerBlock);
    StoreLayout layout = KMeansWorkload.layout(n, dims, k);
    long[] pts = new long[points.length];
    for (int i = 0; i < pts.length; i++) {
      pts[i] = Double.doubleToRawLongBits(points[i]);
    }
    long[][] initial = {new long[k * (dims + 1)], pts, int32Bits(assign)};
    return new Case("kmeans", layout, initial, batch,
        (b, builder) -> KMeansPrograms.set(b, pointsPerTx, builder), KMeansPrograms::batch,
        (b, r, before, after) -> kmeansVerdict(points, assign, k, dims, r, after[0]));
  }

  /** Counts exact, sums within rounding of the sequential ones (addition order differs). */
  private static String kmeansVerdict(double[] points, int[] assign, int k, int dims,
      BatchResult r, long[] acc) {
    for (int t = 0; t < r.outcomes().length; t++) {
      if (r.outcome(t) != Outcome.COMMITTED) {
        return "transaction " + t + " ended " + r.outcome(t);
      }
    }
    double[] sums = new double[k * (dims + 1)];
    for (int p = 0; p < assign.length; p++) {
      int c = assign[p];
      sums[c * (dims + 1)] += 1;
      for (int d = 0; d < dims; d++) {
        sums[c * (dims + 1) + 1 + d] += points[p * dims + d];
      }
    }
    for (int i = 0; i < sums.length; i++) {
      double got = Double.longBitsToDouble(acc[i]);
      if (Math.abs(got - sums[i]) > 1e-9 * Math.max(1, Math.abs(sums[i]))) {
        return "accumulator word " + i + ": " + got + ", sequential " + sums[i];
      }
    }
    return null;
  }

  /**
   * Two runs of the same program batch agree: same outcomes, semantic conflicts (but where a
   * transaction waited in vain), abort codes and outputs (NaN payloads aside).
   */
  public static void assertSame(ProgramResult a, ProgramResult b) {
    int n = a.batch().txCount();
    for (int t = 0; t < n; t++) {
      assertThat(a.outcome(t)).as("outcome of %d", t).isEqualTo(b.outcome(t));
      if (a.outcome(t) != Outcome.ABANDONED_SEMANTIC) {
        assertThat(a.postponements(t)).as("conflicts of %d", t).isEqualTo(b.postponements(t));
      }
      assertThat(a.abortCode(t)).as("abort code of %d", t).isEqualTo(b.abortCode(t));
      CompiledProgram p = a.batch().programs().get(a.batch().type(t));
      for (int o = 0; o < p.outputs().size(); o++) {
        long x = a.outputs()[o * n + t];
        long y = b.outputs()[o * n + t];
        assertThat(StoreContents.same(p.outputs().get(o).type(), x, y))
            .as("output %s of %d: %s vs %s", p.outputs().get(o).name(), t, x, y).isTrue();
      }
    }
  }
}
