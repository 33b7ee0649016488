package io.gstm.core.workload.pc;

import static io.gstm.core.testing.Refusals.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.Refusals;
import io.gstm.core.testing.SharedEngines;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The producer-consumer test of the coursework paper (section 4.4) on the JVM engine: N producers
 * put k items each into one bounded buffer, M consumers take them all, the buffer (INT64) and its
 * counters (INT32) sharing one lock table. Every item is consumed exactly once, the history is
 * serializable, and replayed in its serial order the buffer hands every take the very item it
 * recorded (FIFO).
 */
class ProducerConsumerJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(4);

  /** One batch run on a fresh store, with the final regions and the verdicts. */
  record Run(ProducerConsumerConfig config, TxBatch batch, BatchResult result, long[] slots,
      int[] counters, long[] taken, ProducerConsumerVerifier.Verdict verdict,
      HistoryChecker.Verdict history, io.gstm.core.workload.Verdict replay) {

    static Run of(Engine engine, ProducerConsumerConfig cfg, TxBatch batch, RunOptions options) {
      try (TxStore store = engine.createStore(cfg.layout())) {
        cfg.initialise(store);
        BatchResult r = engine.run(store, batch, options);
        long[] slots = store.readInt64(ProducerConsumerConfig.SLOTS_REGION);
        int[] counters = store.readInt32(ProducerConsumerConfig.COUNTERS_REGION);
        long[] taken = store.readInt64(ProducerConsumerConfig.TAKEN_REGION);
        ProducerConsumerVerifier.Verdict v =
            ProducerConsumerVerifier.verify(cfg, batch, r, slots, counters, taken);
        HistoryChecker.Verdict h = r.history() == null ? null : HistoryChecker.check(r.history());
        io.gstm.core.workload.Verdict replay = h == null || !h.serializable() ? null
            : ProducerConsumerVerifier.replay(batch, taken, h.serialOrder());
        return new Run(cfg, batch, r, slots, counters, taken, v, h, replay);
      }
    }

    /** Verifier, history and replay all pass. */
    boolean correct() {
      return verdict.ok() && history != null && history.serializable() && replay.ok();
    }

    @Override
    public String toString() {
      return config + ": " + verdict + ", history "
          + (history == null ? "off" : history.serializable() ? "serializable"
              : history.violations()) + ", replay " + replay + ", counters "
          + Arrays.toString(result.counters());
    }
  }

  /** N=4, M=8, k=50 (400 transactions), and a few harder shapes; each thread <= 32 txs. */
  static Stream<Arguments> small() {
    List<Arguments> out = new ArrayList<>();
    long seed = 1;
    for (int capacity : new int[] {8, 64}) {
      for (int coverage : new int[] {1, 4}) {
        out.add(Arguments.of(ProducerConsumerConfig.builder().producers(4).consumers(8)
            .itemsPerProducer(50).bufferCapacity(capacity).lockCoverage(coverage).grid(64, 1)
            .seed(seed++).build()));
        out.add(Arguments.of(ProducerConsumerConfig.builder().producers(4).consumers(8)
            .itemsPerProducer(50).bufferCapacity(capacity).lockCoverage(coverage).grid(32, 4)
            .seed(seed++).build()));
      }
    }
    // A one-slot buffer: puts and takes must alternate.
    out.add(Arguments.of(ProducerConsumerConfig.builder().producers(3).consumers(2)
        .itemsPerProducer(20).bufferCapacity(1).lockCoverage(1).grid(64, 1).seed(seed++).build()));
    // More items than threads: 16,000 transactions, 32 per thread.
    out.add(Arguments.of(ProducerConsumerConfig.builder().producers(4).consumers(8)
        .itemsPerProducer(2_000).bufferCapacity(16).lockCoverage(1).grid(128, 4).seed(seed++)
        .build()));
    // 250 per thread: postponement moves over many chunks of 32.
    out.add(Arguments.of(ProducerConsumerConfig.builder().producers(4).consumers(8)
        .itemsPerProducer(2_000).bufferCapacity(16).lockCoverage(1).grid(32, 2).seed(seed++)
        .build()));
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("small")
  void postponeCommitsEverythingAndEveryItemIsConsumedOnce(ProducerConsumerConfig cfg) {
    Run run = Run.of(engines.jvm(), cfg, cfg.batch(), RunOptions.defaults().withHistory(true));

    assertThat(run.correct()).as("%s", run).isTrue();
    assertThat(run.verdict().allCommitted()).as("%s", run).isTrue();
    assertThat(run.verdict().everyItemConsumedOnce()).isTrue();
    assertThat(run.result().commits()).isEqualTo(cfg.txCount());
    assertThat(run.counters()).containsExactly(cfg.items(), cfg.items());
    assertThat(run.verdict().inBuffer()).isZero();
  }

  @ParameterizedTest
  @MethodSource("small")
  void retryInPlaceKeepsWhatCommittedConsistent(ProducerConsumerConfig cfg) {
    Run run = Run.of(engines.jvm(), cfg, cfg.batch(),
        RunOptions.defaults().withHistory(true).withPolicy(SemanticPolicy.RETRY_IN_PLACE));

    assertThat(run.correct()).as("%s", run).isTrue();
    BatchResult r = run.result();
    // Only semantic conflicts give up; nothing is left pending or abandoned for concurrency.
    assertThat(r.commits() + r.count(Counter.ABANDONED_SEMANTIC)).isEqualTo(cfg.txCount());
    assertThat(r.count(Counter.ABANDONED_SEMANTIC))
        .isEqualTo(IntStream.range(0, cfg.txCount())
            .filter(t -> r.outcome(t) == Outcome.ABANDONED_SEMANTIC).count());
  }

  @Test
  void presortedPutsRunFirstAndStillVerify() {
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(4).consumers(8)
        .itemsPerProducer(50).bufferCapacity(8).lockCoverage(1).grid(64, 2).seed(77).build();
    TxBatch sorted =
        TxBatches.presort(cfg.batch(), ProducerConsumerWorkload.INSTANCE.orderingTags());
    assertThat(IntStream.range(0, cfg.items()).map(t -> sorted.types()[t]))
        .containsOnly(ProducerConsumerWorkload.Type.PUT.code());
    Run run = Run.of(engines.jvm(), cfg, sorted, RunOptions.defaults().withHistory(true));
    assertThat(run.correct()).as("%s", run).isTrue();
    assertThat(run.verdict().everyItemConsumedOnce()).isTrue();
  }

  @Test
  void onlyTakesMeetAnEmptyBufferAndOnlyPutsAFullOne() {
    // Takes only: every one meets an empty buffer and is abandoned; nothing changes.
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(1).consumers(1)
        .itemsPerProducer(4).bufferCapacity(2).lockCoverage(1).grid(4, 1).seed(5).build();
    int[] types = {1, 1, 1, 1};
    int[][] cols = {{0, 0, 0, 0}, {0, 1, 2, 3}};
    TxBatch takes = new TxBatch(ProducerConsumerWorkload.NAME, types, cols,
        new int[] {0, 1, 2, 2}, 4, 1, 4);
    Run run = Run.of(engines.jvm(), cfg, takes, RunOptions.defaults().withSemanticLimit(5));
    assertThat(run.verdict().ok()).as("%s", run).isTrue();
    assertThat(IntStream.range(0, 4).mapToObj(run.result()::outcome))
        .containsOnly(Outcome.ABANDONED_SEMANTIC);
    assertThat(run.counters()).containsExactly(0, 0);
    assertThat(run.taken()).containsOnly(ProducerConsumerConfig.NOT_TAKEN);

    // Four puts into two slots, on one thread: two commit, two find the buffer full.
    int[][] putCols = {{0, 0, 0, 0}, {0, 1, 2, 3}};
    TxBatch puts = new TxBatch(ProducerConsumerWorkload.NAME, new int[4], putCols,
        new int[] {0, 1, 2, 2}, 1, 1, 4);
    run = Run.of(engines.jvm(), cfg, puts, RunOptions.defaults().withSemanticLimit(3));
    assertThat(run.verdict().ok()).as("%s", run).isTrue();
    assertThat(run.result().commits()).isEqualTo(2);
    assertThat(run.result().count(Counter.ABANDONED_SEMANTIC)).isEqualTo(2);
    assertThat(run.counters()).containsExactly(0, 2);
    assertThat(run.verdict().inBuffer()).isEqualTo(2);
    assertThat(run.slots()).containsExactly(ProducerConsumerWorkload.item(0, 0),
        ProducerConsumerWorkload.item(0, 1));
  }

  @Test
  void theVerifierCatchesLostDuplicatedAndInventedItems() {
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(2).consumers(3)
        .itemsPerProducer(10).bufferCapacity(4).lockCoverage(1).grid(16, 1).seed(3).build();
    Run run = Run.of(engines.jvm(), cfg, cfg.batch(), RunOptions.defaults().withHistory(true));
    assertThat(run.correct()).as("%s", run).isTrue();
    TxBatch b = run.batch();
    int[] takeWords = IntStream.range(0, b.txCount())
        .filter(t -> ProducerConsumerWorkload.Type.TAKE.is(b.types()[t]))
        .map(t -> b.columns()[1][t]).toArray();

    long[] dup = run.taken().clone();
    dup[takeWords[0]] = dup[takeWords[1]];
    assertThat(verify(run, run.slots(), run.counters(), dup).problems())
        .anyMatch(p -> p.contains("consumed twice")).anyMatch(p -> p.contains("lost"));
    assertThat(ProducerConsumerVerifier.replay(b, dup, run.history().serialOrder()).ok())
        .isFalse();

    long[] invented = run.taken().clone();
    invented[takeWords[2]] = ProducerConsumerWorkload.item(7, 0);
    assertThat(verify(run, run.slots(), run.counters(), invented).problems())
        .anyMatch(p -> p.contains("no committed put produced"));

    int[] counters = {cfg.items() - 1, cfg.items()};
    assertThat(verify(run, run.slots(), counters, run.taken()).problems())
        .anyMatch(p -> p.contains("head is " + (cfg.items() - 1)));

    // Swapping what two takes recorded keeps the multiset but breaks the FIFO replay.
    long[] swapped = run.taken().clone();
    int a = takeWords[0];
    int c = IntStream.of(takeWords).filter(w -> run.taken()[w] != run.taken()[a]).findFirst()
        .orElseThrow();
    swapped[a] = run.taken()[c];
    swapped[c] = run.taken()[a];
    assertThat(verify(run, run.slots(), run.counters(), swapped).ok()).isTrue();
    assertThat(ProducerConsumerVerifier.replay(b, swapped, run.history().serialOrder()).ok())
        .isFalse();
  }

  private static ProducerConsumerVerifier.Verdict verify(Run run, long[] slots, int[] counters,
      long[] taken) {
    return ProducerConsumerVerifier.verify(run.config(), run.batch(), run.result(), slots,
        counters, taken);
  }

  /** A valid one-producer, one-consumer, one-item configuration with {@code change} applied. */
  private static ThrowingCallable build(UnaryOperator<ProducerConsumerConfig.Builder> change) {
    return () -> change.apply(ProducerConsumerConfig.builder().producers(1).consumers(1)
        .itemsPerProducer(1).bufferCapacity(1).lockCoverage(1).grid(32, 1).seed(1)).build();
  }

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        refused(build(b -> b.producers(0)), "producers", "at least 1"),
        refused(build(b -> b.consumers(0)), "consumers must be in 1..1"),
        refused(build(b -> b.producers(2).consumers(7).itemsPerProducer(3)),
            "consumers must be in 1..6"),
        refused(build(b -> b.itemsPerProducer(0)), "itemsPerProducer"),
        refused(build(b -> b.producers(1 << 16).itemsPerProducer(1 << 16)), "items",
            String.valueOf(ProducerConsumerConfig.MAX_ITEMS)),
        refused(build(b -> b.bufferCapacity(0)), "bufferCapacity must be in 1.."),
        refused(build(b -> b.lockCoverage(0)), "lockCoverage"),
        refused(build(b -> b.grid(0, 1)), "threadsPerBlock must be in 1..256"),
        refused(build(b -> b.grid(512, 1)), "threadsPerBlock must be in 1..256"),
        refused(build(b -> b.grid(32, 0)), "blocks"),
        refused(build(b -> b.grid(256, 1 << 23)), "owner field"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void badConfigNamesTheParameterAndTheLimit(ThrowingCallable build, String[] message) {
    Refusals.assertRefused(build, message);
  }

  @Test
  void badBatchesAreRejectedBeforeAnythingRuns() {
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(2).consumers(2)
        .itemsPerProducer(4).bufferCapacity(4).lockCoverage(1).grid(8, 1).seed(11).build();
    TxBatch good = cfg.batch();
    int firstTake = IntStream.range(0, good.txCount())
        .filter(t -> ProducerConsumerWorkload.Type.TAKE.is(good.types()[t])).findFirst()
        .orElseThrow();
    int secondTake = IntStream.range(firstTake + 1, good.txCount())
        .filter(t -> ProducerConsumerWorkload.Type.TAKE.is(good.types()[t])).findFirst()
        .orElseThrow();
    assertRejected(cfg, b -> withParams(b, 0, 1, 2), "params");
    assertRejected(cfg, b -> withParams(b, 0, 1, 2, 0), "capacity must be in 1..4");
    assertRejected(cfg, b -> withParams(b, 0, 1, 2, 5), "capacity must be in 1..4");
    assertRejected(cfg, b -> withParams(b, 1, 0, 2, 4),
        "slotsRegion (the slots): region 1 ('counters') holds INT32, expected INT64");
    assertRejected(cfg, b -> withParams(b, 0, 2, 1, 4),
        "countersRegion (the counters): region 2 ('taken') holds INT64, expected INT32");
    assertRejected(cfg, b -> withParams(b, 0, 1, 0, 4), "must be distinct");
    assertRejected(cfg, b -> withParams(b, 0, 1, 3, 4), "region index 3 is out of range");
    assertRejected(cfg, b -> new TxBatch(b.workload(), b.types(), b.columns(), b.params(),
        b.threadsPerBlock(), b.blocks(), 2), "batch capacity must be at least 4");
    assertRejected(cfg, b -> {
      int[] types = b.types().clone();
      types[0] = 2;
      return new TxBatch(b.workload(), types, b.columns(), b.params(), b.threadsPerBlock(),
          b.blocks(), b.capacity());
    }, "types[0] = 2");
    assertRejected(cfg, b -> withColumn(b, 1, firstTake, cfg.items()), "is out of range");
    assertRejected(cfg, b -> withColumn(b, 1, secondTake, b.columns()[1][firstTake]),
        "used by another take");
    assertRejected(cfg, b -> new TxBatch(b.workload(), b.types(), new int[][] {b.columns()[0]},
        b.params(), b.threadsPerBlock(), b.blocks(), b.capacity()), "expects 2 columns");
    // The layout must hold the right types too.
    StoreLayout wrong = StoreLayout.of(new RegionSpec("slots", RegionType.INT64, 4, 1),
        new RegionSpec("counters", RegionType.INT64, 2, 1),
        new RegionSpec("taken", RegionType.INT64, cfg.items(), 1));
    try (TxStore store = engines.jvm().createStore(wrong)) {
      assertThatThrownBy(() -> engines.jvm().run(store, good, RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("countersRegion (the counters): region 1 ('counters') holds "
              + "INT64, expected INT32");
    }
  }

  private static void assertRejected(ProducerConsumerConfig cfg, Function<TxBatch, TxBatch> edit,
      String message) {
    try (TxStore store = engines.jvm().createStore(cfg.layout())) {
      cfg.initialise(store);
      TxBatch bad = edit.apply(cfg.batch());
      assertThatThrownBy(() -> engines.jvm().run(store, bad, RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
      assertThat(store.readInt32(ProducerConsumerConfig.COUNTERS_REGION)).containsExactly(0, 0);
      assertThat(store.readInt64(ProducerConsumerConfig.TAKEN_REGION))
          .containsOnly(ProducerConsumerConfig.NOT_TAKEN);
    }
  }

  private static TxBatch withParams(TxBatch b, int... params) {
    return new TxBatch(b.workload(), b.types(), b.columns(), params, b.threadsPerBlock(),
        b.blocks(), b.capacity());
  }

  private static TxBatch withColumn(TxBatch b, int column, int t, int value) {
    int[][] cols = {b.columns()[0].clone(), b.columns()[1].clone()};
    cols[column][t] = value;
    return new TxBatch(b.workload(), b.types(), cols, b.params(), b.threadsPerBlock(),
        b.blocks(), b.capacity());
  }

  /**
   * The paper's run: N = 10, M = 20, k = 100,000 (2,000,000 transactions) over 4 x 256 = 1,024
   * threads, so each thread owns about 1,953 and postpones over 62 chunks of 32.
   */
  @Test
  @Tag("slow")
  void thePapersRunConsumesEveryItemExactlyOnce() {
    ProducerConsumerConfig cfg =
        ProducerConsumerConfig.builder().producers(10).consumers(20).itemsPerProducer(100_000)
            .bufferCapacity(1_024).lockCoverage(1).grid(256, 4).seed(2024).build();
    Run run = Run.of(engines.jvm(), cfg, cfg.batch(), RunOptions.defaults());

    assertThat(run.verdict().ok()).as("%s", run).isTrue();
    assertThat(run.verdict().allCommitted()).as("%s", run).isTrue();
    assertThat(run.verdict().everyItemConsumedOnce()).isTrue();
    assertThat(run.counters()).containsExactly(1_000_000, 1_000_000);
  }

  @Test
  void aThreadWhoseFirstChunkOnlyTakesMovesOnToItsPuts() {
    // One thread: 40 TAKEs and then the 40 PUTs they wait for. The first chunk of 32 is all
    // TAKEs on an empty buffer; only moving to the next chunk lets anything commit.
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(1).consumers(1)
        .itemsPerProducer(40).bufferCapacity(64).lockCoverage(1).grid(1, 1).seed(5).build();
    Run run = Run.of(engines.jvm(), cfg, takesFirst(cfg), RunOptions.defaults().withHistory(true));

    assertThat(run.correct()).as("%s", run).isTrue();
    assertThat(run.verdict().allCommitted()).as("%s", run).isTrue();
    assertThat(run.result().count(Counter.SEMANTIC_CONFLICTS)).isPositive();
  }

  /** {@code cfg}'s transactions with every TAKE before every PUT, in item order. */
  static TxBatch takesFirst(ProducerConsumerConfig cfg) {
    TxBatch shuffled = cfg.batch();
    Integer[] order = IntStream.range(0, shuffled.txCount()).boxed().toArray(Integer[]::new);
    int[] types = shuffled.types();
    int[][] cols = shuffled.columns();
    Arrays.sort(order, Comparator
        .comparingInt((Integer t) -> ProducerConsumerWorkload.Type.TAKE.is(types[t]) ? 0 : 1)
        .thenComparingInt(t -> cols[0][t]).thenComparingInt(t -> cols[1][t]));
    int[] sortedTypes = new int[order.length];
    int[][] sortedCols = new int[cols.length][order.length];
    for (int i = 0; i < order.length; i++) {
      sortedTypes[i] = types[order[i]];
      for (int c = 0; c < cols.length; c++) {
        sortedCols[c][i] = cols[c][order[i]];
      }
    }
    return new TxBatch(shuffled.workload(), sortedTypes, sortedCols, shuffled.params(),
        shuffled.threadsPerBlock(), shuffled.blocks(), shuffled.capacity());
  }
}
