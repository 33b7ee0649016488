package io.gstm.core.workload.vacation;

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
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.Refusals;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Vacation on the JVM engine: seeded batches under both semantic policies pass the exact
 * verifier, the history checker and the serial replay, and never overbook; a pre-sorted batch
 * does too; a one-thread batch behaves exactly as the semantics say; bad input is rejected before
 * anything runs and leaves the store as it was.
 */
class VacationJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(4);

  /** One batch run on a fresh store, with every verdict. */
  record Run(TxBatch batch, BatchResult result, int[] initialRooms, int[] initialCustomers,
      int[] rooms, int[] customers, Verdict verdict,
      HistoryChecker.Verdict history, Verdict replay) {

    static Run of(VacationConfig cfg, TxBatch batch, RunOptions options) {
      return of(cfg.layout(), cfg.initialRooms(), cfg.initialCustomers(), batch, options);
    }

    static Run of(StoreLayout layout, int[] initialRooms, int[] initialCustomers, TxBatch batch,
        RunOptions options) {
      try (TxStore store = engines.jvm().createStore(layout)) {
        store.writeInt32(0, initialRooms);
        store.writeInt32(1, initialCustomers);
        BatchResult r = engines.jvm().run(store, batch, options);
        int[] rooms = store.readInt32(0);
        int[] customers = store.readInt32(1);
        HistoryChecker.Verdict h = r.history() == null ? null : HistoryChecker.check(r.history());
        Verdict replay = h == null || !h.serializable() ? null
            : VacationVerifier.replay(initialRooms, initialCustomers, batch, r, h.serialOrder(),
                rooms, customers);
        return new Run(batch, r, initialRooms, initialCustomers, rooms, customers,
            VacationVerifier.verify(initialRooms, initialCustomers, batch, r, rooms, customers),
            h, replay);
      }
    }

    long outcomes(Outcome o) {
      long n = 0;
      for (int t = 0; t < batch.txCount(); t++) {
        n += result.outcome(t) == o ? 1 : 0;
      }
      return n;
    }

    void assertCorrect() {
      assertThat(verdict.ok()).as("verifier: %s", verdict).isTrue();
      assertThat(history).as("history recorded").isNotNull();
      assertThat(history.serializable()).as("history: %s", history.violations()).isTrue();
      assertThat(replay.ok()).as("replay: %s", replay).isTrue();
      int stride = VacationWorkload.stride(batch);
      for (int r = 0; r < VacationWorkload.roomTypes(batch); r++) {
        assertThat(rooms[r * stride]).as("free rooms of type %d", r).isNotNegative();
      }
      // Only semantic patience runs out: no concurrency abandonment, nothing too large.
      assertThat(outcomes(Outcome.PENDING) + outcomes(Outcome.ABANDONED)
          + outcomes(Outcome.TOO_LARGE)).isZero();
      assertThat(result.count(Counter.ABANDONED_SEMANTIC))
          .isEqualTo(outcomes(Outcome.ABANDONED_SEMANTIC));
      assertThat(result.commits()).isEqualTo(outcomes(Outcome.COMMITTED));
    }
  }

  private static final List<VacationConfig> CONFIGS = List.of(
      // Plenty of rooms: with postponement every transaction commits, unless the commit order
      // keeps more of one type's bookings than it has rooms (mostKeptBookings).
      VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(20).semanticRatio(0.5)
          .lockCoverage(1).grid(64, 1).txPerThread(16).seed(0).build(),
      VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(20).semanticRatio(1.0)
          .lockCoverage(4).grid(64, 2).txPerThread(8).seed(0).build(),
      VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(80).semanticRatio(0.5)
          .lockCoverage(4).grid(128, 2).txPerThread(16).seed(0).build(),
      // Scarce: 5 rooms a type, so cold types sell out and some bookings wait in vain.
      VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(5).semanticRatio(0.5)
          .lockCoverage(1).grid(64, 1).txPerThread(16).seed(0).build(),
      VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(5).semanticRatio(0.2)
          .lockCoverage(4).grid(128, 1).txPerThread(8).seed(0).build());

  static Stream<Arguments> matrix() {
    List<Arguments> args = new ArrayList<>();
    for (SemanticPolicy policy : SemanticPolicy.values()) {
      for (VacationConfig base : CONFIGS) {
        for (long seed = 1; seed <= 3; seed++) {
          args.add(Arguments.of(policy, withSeed(base, seed)));
        }
      }
    }
    return args.stream();
  }

  private static VacationConfig withSeed(VacationConfig c, long seed) {
    return VacationConfig.builder().customers(c.customers()).roomTypes(c.roomTypes())
        .roomsPerType(c.roomsPerType()).semanticRatio(c.semanticRatio())
        .lockCoverage(c.lockCoverage()).grid(c.threadsPerBlock(), c.blocks())
        .txPerThread(c.txPerThread()).seed(seed).build();
  }

  private static RunOptions options(SemanticPolicy policy) {
    return RunOptions.defaults().withHistory(true).withPolicy(policy);
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void seededBatchIsVerifiedSerializableAndNeverOverbooks(SemanticPolicy policy,
      VacationConfig cfg) {
    RunOptions options = options(policy);
    if (cfg.roomsPerType() < 20 && policy == SemanticPolicy.POSTPONE) {
      // Sold-out bookings wait in vain: a lower limit ends them sooner (10,000 takes seconds).
      options = options.withSemanticLimit(300);
    } else if (policy == SemanticPolicy.POSTPONE) {
      // Nothing waits in vain here, but a lane can spin through its limit while the worker that
      // runs what it waits for is not scheduled (a loaded machine): a limit no schedule reaches.
      options = options.withSemanticLimit(100_000_000);
    }
    Run run = Run.of(cfg, cfg.batch(), options);
    run.assertCorrect();
    assertThat(run.result().commits()).isPositive();
    assertThat(run.result().count(Counter.SEMANTIC_CONFLICTS)).as("cancels before bookings")
        .isPositive();
    if (policy == SemanticPolicy.POSTPONE && cfg.roomsPerType() >= 20) {
      int[] kept = mostKeptBookings(run.batch());
      for (int t = 0; t < cfg.txCount(); t++) {
        if (run.result().outcome(t) != Outcome.COMMITTED) {
          // Only a booking of a type that this commit order sold out for good waits in vain.
          int type = run.batch().columns()[1][t];
          assertThat(VacationWorkload.Type.BOOK.is(run.batch().types()[t])
              && kept[type] > cfg.roomsPerType()
              && run.rooms()[type * VacationWorkload.stride(run.batch())] == 0)
              .as("tx %d (%s) of a type with at most %d bookings kept, %d rooms: counters %s", t,
                  run.result().outcome(t), type < 0 ? 0 : kept[type], cfg.roomsPerType(),
                  Arrays.toString(run.result().counters()))
              .isTrue();
        }
      }
    }
  }

  /**
   * The most bookings of each room type that can stay uncancelled, over every commit order. A
   * lone customer who books twice keeps whichever booking commits first, so a type can sell out
   * for good in one order and not in another (seed 2 of the first configuration: type 1 keeps 18
   * to 23 of its 20 rooms). Where no type exceeds its rooms, postponement commits everything.
   */
  static int[] mostKeptBookings(TxBatch batch) {
    int[] kept = new int[VacationWorkload.roomTypes(batch)];
    Map<Integer, Set<Integer>> typesOf = new HashMap<>();
    Set<Integer> paired = new HashSet<>();
    for (int t = 0; t < batch.txCount(); t++) {
      int customer = batch.columns()[0][t];
      if (VacationWorkload.Type.CANCEL.is(batch.types()[t])) {
        paired.add(customer);
      } else {
        typesOf.computeIfAbsent(customer, c -> new HashSet<>()).add(batch.columns()[1][t]);
      }
    }
    typesOf.forEach((customer, types) -> {
      if (!paired.contains(customer)) {
        types.forEach(r -> kept[r]++);
      }
    });
    return kept;
  }

  @Test
  void mostKeptBookingsCountsEachOrderOfALoneCustomersBookings() {
    VacationConfig cfg = withSeed(CONFIGS.get(0), 2);
    int[] kept = mostKeptBookings(cfg.batch());
    assertThat(kept[1]).isGreaterThan(cfg.roomsPerType());
    assertThat(Arrays.stream(mostKeptBookings(withSeed(CONFIGS.get(0), 1).batch())).max()
        .getAsInt()).isLessThanOrEqualTo(cfg.roomsPerType());
  }

  @Test
  void soldOutBookingsWaitForCancellationsAndAllPairsComplete() {
    // At ratio 1 every booking is paired. Each of the 50 types has one room for its (about 10)
    // bookings, so they queue for each other's cancellations.
    VacationConfig cfg = VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(1)
        .semanticRatio(1.0).lockCoverage(1).grid(64, 2).txPerThread(8).seed(11).build();
    TxBatch batch = cfg.batch();
    Run run = Run.of(cfg.layout(), cfg.initialRooms(), cfg.initialCustomers(), batch,
        options(SemanticPolicy.POSTPONE));
    run.assertCorrect();
    long bookingWaits = 0;
    for (int t = 0; t < batch.txCount(); t++) {
      if (VacationWorkload.Type.BOOK.is(batch.types()[t])) {
        bookingWaits += run.result().semanticConflicts()[t];
      }
    }
    assertThat(bookingWaits).as("semantic conflicts of bookings").isPositive();
    // Rooms cycle through the pairs, so every pair completes.
    assertThat(run.result().commits()).isEqualTo(cfg.txCount());
    assertThat(run.rooms()).containsExactly(cfg.initialRooms());
    for (int t = 0; t < batch.txCount(); t++) {
      if (VacationWorkload.Type.CANCEL.is(batch.types()[t])) {
        assertThat(run.customers()[batch.columns()[0][t]]).as("paired customer").isZero();
      }
    }
  }

  @Test
  void presortedBatchAlsoVerifies() {
    for (SemanticPolicy policy : SemanticPolicy.values()) {
      for (long seed = 1; seed <= 3; seed++) {
        VacationConfig cfg = VacationConfig.builder().customers(2_000).roomTypes(50)
            .roomsPerType(60).semanticRatio(0.5).lockCoverage(4).grid(64, 2).txPerThread(16)
            .seed(seed).build();
        TxBatch sorted = TxBatches.presort(cfg.batch(), VacationWorkload.INSTANCE.orderingTags());
        for (int t = 1; t < sorted.txCount(); t++) {
          assertThat(sorted.types()[t]).isGreaterThanOrEqualTo(sorted.types()[t - 1]);
        }
        Run run = Run.of(cfg, sorted, options(policy));
        run.assertCorrect();
        if (policy == SemanticPolicy.POSTPONE) {
          assertThat(run.result().commits()).isEqualTo(cfg.txCount());
        }
      }
    }
  }

  /** One thread, so the order of attempts is fixed: the semantics, step by step. */
  private static TxBatch oneThread(int[] types, int[] customers, int[] roomTypes,
      int roomTypeCount) {
    return new TxBatch(VacationWorkload.NAME, types, new int[][] {customers, roomTypes},
        new int[] {0, 1, 1, roomTypeCount}, 1, 1, 2);
  }

  @Test
  void postponementServesACancelAfterItsBookingAndABookingAfterACancel() {
    // t0 CANCEL c0 (not booked yet), t1 BOOK c0 type 0 (the last room), t2 BOOK c1 type 0,
    // t3 BOOK c0 type 1 (c0 is booked by then: a read-only no-op).
    TxBatch batch = oneThread(new int[] {1, 0, 0, 0}, new int[] {0, 0, 1, 0},
        new int[] {-1, 0, 0, 1}, 2);
    StoreLayout layout = StoreLayout.of(new RegionSpec("rooms", RegionType.INT32, 2, 1),
        new RegionSpec("customers", RegionType.INT32, 2, 1));
    Run run = Run.of(layout, new int[] {1, 3}, new int[2], batch,
        options(SemanticPolicy.POSTPONE));
    run.assertCorrect();
    // Attempts: t0 postponed, t1 books, t2 sold out (postponed), t3 no-op (returns c0's
    // record 1), t0 cancels, t2 books the freed room.
    assertThat(run.result().outcomes()).containsOnly((byte) Outcome.COMMITTED.ordinal());
    assertThat(run.result().semanticConflicts()).containsExactly(1, 0, 1, 0);
    assertThat(run.result().results()[3]).isEqualTo(1);
    assertThat(run.customers()).containsExactly(0, 1);
    assertThat(run.rooms()).containsExactly(0, 3);
    assertThat(run.history().serialOrder()).containsExactly(1, 3, 0, 2);
  }

  @Test
  void retryInPlaceGivesUpOnWhatOnlyLaterTransactionsCouldUnblock() {
    TxBatch batch = oneThread(new int[] {1, 0, 0}, new int[] {0, 0, 1}, new int[] {-1, 0, 0}, 1);
    StoreLayout layout = StoreLayout.of(new RegionSpec("rooms", RegionType.INT32, 1, 1),
        new RegionSpec("customers", RegionType.INT32, 2, 1));
    Run run = Run.of(layout, new int[] {1}, new int[2], batch,
        options(SemanticPolicy.RETRY_IN_PLACE));
    run.assertCorrect();
    assertThat(run.result().outcome(0)).isEqualTo(Outcome.ABANDONED_SEMANTIC);
    assertThat(run.result().outcome(1)).isEqualTo(Outcome.COMMITTED);
    assertThat(run.result().outcome(2)).isEqualTo(Outcome.ABANDONED_SEMANTIC);
    // Each retried in place until found in vain (the batch's only thread waits on itself), long
    // before the limit; the thread's booking in between still runs and commits.
    int limit = SemanticPolicy.RETRY_IN_PLACE.defaultLimit();
    assertThat(run.result().semanticConflicts()[0]).isBetween(1, limit);
    assertThat(run.result().semanticConflicts()[1]).isZero();
    assertThat(run.result().semanticConflicts()[2]).isBetween(1, limit);
    assertThat(run.customers()).containsExactly(1, 0);
    assertThat(run.rooms()).containsExactly(0);
  }

  @Test
  void verifierCatchesOverbookingAndBadReplays() {
    VacationConfig cfg = VacationConfig.builder().customers(2_000).roomTypes(50).roomsPerType(20)
        .semanticRatio(0.5).lockCoverage(2).grid(64, 1).txPerThread(8).seed(3).build();
    Run run = Run.of(cfg, cfg.batch(), options(SemanticPolicy.POSTPONE));
    run.assertCorrect();
    int[] rooms = run.rooms().clone();
    rooms[0] -= 1;  // a room vanished: type 0 overbooked relative to its bookings
    assertThat(VacationVerifier.verify(run.initialRooms(), run.initialCustomers(), run.batch(),
        run.result(), rooms, run.customers()).ok()).isFalse();
    int[] padded = run.rooms().clone();
    padded[1] = 7;  // stride 2: word 1 is padding
    assertThat(VacationVerifier.verify(run.initialRooms(), run.initialCustomers(), run.batch(),
        run.result(), padded, run.customers()).problems()).anyMatch(p -> p.contains("padding"));
    int[] customers = run.customers().clone();
    int c = firstBooked(customers);
    customers[c] = 0;  // a booking vanished
    assertThat(VacationVerifier.verify(run.initialRooms(), run.initialCustomers(), run.batch(),
        run.result(), run.rooms(), customers).ok()).isFalse();
    int[] order = run.history().serialOrder();
    int[] reversed = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      reversed[i] = order[order.length - 1 - i];
    }
    // Reversed, every CANCEL that follows its BOOK now precedes it.
    assertThat(VacationVerifier.replay(run.initialRooms(), run.initialCustomers(), run.batch(),
        run.result(), reversed, run.rooms(), run.customers()).ok()).isFalse();
    int[] missing = Arrays.copyOf(order, order.length - 1);
    assertThat(VacationVerifier.replay(run.initialRooms(), run.initialCustomers(), run.batch(),
        run.result(), missing, run.rooms(), run.customers()).problems())
        .anyMatch(p -> p.contains("missing from the serial order"));
  }

  private static int firstBooked(int[] customers) {
    for (int c = 0; c < customers.length; c++) {
      if (customers[c] != 0) {
        return c;
      }
    }
    throw new AssertionError("no customer holds a booking");
  }

  @Test
  void generationFollowsTheDocumentedRecipe() {
    VacationConfig cfg = VacationConfig.builder().customers(2_000).roomTypes(300).roomsPerType(7)
        .semanticRatio(0.5).lockCoverage(4).grid(64, 2).txPerThread(16).seed(9).build();
    TxBatch b = cfg.batch();
    assertThat(b.txCount()).isEqualTo(2048);
    assertThat(b.capacity()).isEqualTo(2);
    assertThat(b.params()).containsExactly(0, 1, 4, 300);
    int cancels = 0;
    Set<Integer> cancelled = new HashSet<>();
    Set<Integer> booked = new HashSet<>();
    for (int t = 0; t < b.txCount(); t++) {
      int customer = b.columns()[0][t];
      if (VacationWorkload.Type.CANCEL.is(b.types()[t])) {
        cancels++;
        assertThat(b.columns()[1][t]).isEqualTo(-1);
        assertThat(cancelled.add(customer)).as("one cancel per customer").isTrue();
      } else {
        booked.add(customer);
        assertThat(b.columns()[1][t]).isBetween(0, 299);
      }
    }
    // Half the batch is in pairs: 512 book/cancel pairs.
    assertThat(cancels).isEqualTo(cfg.pairs()).isEqualTo(512);
    assertThat(booked).containsAll(cancelled);
    // Lone bookings (customers without a cancel) never touch a paired customer.
    Set<Integer> pairedBooks = new HashSet<>();
    for (int t = 0; t < b.txCount(); t++) {
      if (VacationWorkload.Type.BOOK.is(b.types()[t]) && cancelled.contains(b.columns()[0][t])) {
        assertThat(pairedBooks.add(b.columns()[0][t])).as("one booking per paired customer")
            .isTrue();
      }
    }
    assertThat(pairedBooks).isEqualTo(cancelled);
    int[] rooms = cfg.initialRooms();
    assertThat(rooms).hasSize(1200);
    for (int i = 0; i < rooms.length; i++) {
      assertThat(rooms[i]).isEqualTo(i % 4 == 0 ? 7 : 0);
    }
    assertThat(cfg.initialCustomers()).hasSize(2000).containsOnly(0);
    StoreLayout layout = cfg.layout();
    assertThat(layout.region(0).lockCoverage()).isEqualTo(4);
    assertThat(layout.region(1).lockCoverage()).isEqualTo(1);
    assertThat(layout.lockCount()).isEqualTo(300 + 2000);
    assertThat(VacationWorkload.INSTANCE.orderingTags()).containsExactly(1, 0);
    assertThat(cfg.batch().types()).containsExactly(b.types());  // seeded: reproducible
  }

  @Test
  void paperFactoryHasThePapersHotel() {
    VacationConfig p = VacationConfig.paper(256, 4, 2, 0.3, 1, 5);
    assertThat(p.customers()).isEqualTo(150_000);
    assertThat(p.roomTypes()).isEqualTo(1_000);
    assertThat(p.roomsPerType()).isEqualTo(150);
    assertThat(p.layout().region(0).length()).isEqualTo(1_000);
    Run run = Run.of(p, p.batch(), options(SemanticPolicy.POSTPONE));
    run.assertCorrect();
    assertThat(run.result().commits()).isEqualTo(p.txCount());
  }

  /** A valid five-customer, five-type, one-room configuration with {@code change} applied. */
  private static ThrowingCallable build(UnaryOperator<VacationConfig.Builder> change) {
    return () -> change.apply(VacationConfig.builder().customers(5).roomTypes(5).roomsPerType(1)
        .semanticRatio(0).lockCoverage(1).grid(32, 1).txPerThread(1).seed(0)).build();
  }

  static Stream<Arguments> badConfigs() {
    return Stream.of(
        refused(build(b -> b.customers(0)), "customers", "at least 1"),
        refused(build(b -> b.roomTypes(0)), "roomTypes"),
        refused(build(b -> b.roomsPerType(-1)), "roomsPerType"),
        refused(build(b -> b.semanticRatio(1.5)), "semanticRatio must be in 0..1"),
        refused(build(b -> b.lockCoverage(0)), "lockCoverage"),
        refused(build(b -> b.roomTypes(1 << 20).lockCoverage(1 << 12)),
            "roomTypes * lockCoverage"),
        refused(build(b -> b.grid(512, 1)), "threadsPerBlock must be in 1..256"),
        refused(build(b -> b.grid(32, 0)), "blocks"),
        refused(build(b -> b.txPerThread(0)), "txPerThread"),
        refused(build(b -> b.grid(256, 1 << 23)), "owner field"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void configNamesTheParameterAndTheLimit(ThrowingCallable build, String[] message) {
    Refusals.assertRefused(build, message);
  }

  // ---- bad input: rejected before running, store unchanged ----

  private static final VacationConfig SMALL = VacationConfig.builder().customers(20).roomTypes(4)
      .roomsPerType(3).semanticRatio(0.5).lockCoverage(2).grid(32, 1).txPerThread(2).seed(5)
      .build();

  private static void assertRejectedAndStoreUntouched(StoreLayout layout,
      UnaryOperator<TxBatch> edit, String... message) {
    try (TxStore store = engines.jvm().createStore(layout)) {
      List<int[]> before = new ArrayList<>();
      for (int r = 0; r < layout.regionCount(); r++) {
        if (layout.region(r).type() == RegionType.INT32) {
          int[] v = new int[layout.region(r).length()];
          for (int i = 0; i < v.length; i++) {
            v[i] = (r == 1 ? 0 : 2 + i % 3);
          }
          store.writeInt32(r, v);
          before.add(v);
        } else {
          before.add(null);
        }
      }
      int[] versions = store.lockVersions();
      TxBatch bad = edit.apply(SMALL.batch());
      var thrown = assertThatThrownBy(() -> engines.jvm().run(store, bad, RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class);
      for (String m : message) {
        thrown.hasMessageContaining(m);
      }
      for (int r = 0; r < layout.regionCount(); r++) {
        if (before.get(r) != null) {
          assertThat(store.readInt32(r)).containsExactly(before.get(r));
        }
      }
      assertThat(store.lockVersions()).containsExactly(versions);
    }
  }

  private static void assertRejected(UnaryOperator<TxBatch> edit, String... message) {
    assertRejectedAndStoreUntouched(SMALL.layout(), edit, message);
  }

  private static TxBatch with(TxBatch b, int[] types, int[][] cols, int[] params) {
    return new TxBatch(b.workload(), types, cols, params, b.threadsPerBlock(), b.blocks(),
        b.capacity());
  }

  private static TxBatch withParams(TxBatch b, int... params) {
    return with(b, b.types(), b.columns(), params);
  }

  private static int first(TxBatch b, VacationWorkload.Type type) {
    for (int t = 0; t < b.txCount(); t++) {
      if (type.is(b.types()[t])) {
        return t;
      }
    }
    throw new AssertionError("no transaction of type " + type);
  }

  private static TxBatch withCell(TxBatch b, int col, int t, int value) {
    int[][] cols = b.columns().clone();
    cols[col] = cols[col].clone();
    cols[col][t] = value;
    return with(b, b.types(), cols, b.params());
  }

  @Test
  void badParamsAreRejected() {
    assertRejected(b -> withParams(b, 0, 1, 2), "params", "4 values, got 3");
    assertRejected(b -> withParams(b, 2, 1, 2, 4), "roomsRegion", "region index 2",
        "valid indices 0..1");
    assertRejected(b -> withParams(b, 0, -1, 2, 4), "customersRegion", "region index -1");
    assertRejected(b -> withParams(b, 0, 0, 2, 4), "customersRegion", "must differ");
    assertRejected(b -> withParams(b, 0, 1, 0, 4), "stride must be at least 1");
    assertRejected(b -> withParams(b, 0, 1, 2, 0), "roomTypes must be at least 1");
    // 4 types with stride 2 fill 8 words; 5 types, or stride 3, do not fit.
    assertRejected(b -> withParams(b, 0, 1, 2, 5), "roomTypes", "at most 4 room types");
    assertRejected(b -> withParams(b, 0, 1, 3, 4), "roomTypes", "words 0..7");
  }

  @Test
  void nonInt32RegionIsRejected() {
    StoreLayout layout = StoreLayout.of(new RegionSpec("rooms", RegionType.INT32, 8, 2),
        new RegionSpec("customers", RegionType.INT64, 20, 1));
    assertRejectedAndStoreUntouched(layout, b -> b, "customersRegion", "holds INT64",
        "expected INT32");
  }

  @Test
  void badTransactionsAreRejected() {
    assertRejected(b -> with(b, b.types(), new int[][] {b.columns()[0]}, b.params()),
        "columns", "2 columns", "got 1");
    assertRejected(b -> {
      int[] types = b.types().clone();
      types[3] = 2;
      return with(b, types, b.columns(), b.params());
    }, "types[3] = 2", "0 book, 1 cancel");
    assertRejected(b -> withCell(b, 0, 1, 20), "customer 20", "customers 0..19");
    assertRejected(b -> withCell(b, 0, 0, -1), "customer -1");
    assertRejected(b -> withCell(b, 1, first(b, VacationWorkload.Type.BOOK), 4), "roomType 4",
        "room types 0..3");
    assertRejected(b -> withCell(b, 1, first(b, VacationWorkload.Type.BOOK), -1), "roomType -1");
  }

  @Test
  void cancelIgnoresItsRoomTypeColumn() {
    TxBatch b = SMALL.batch();
    TxBatch edited = withCell(b, 1, first(b, VacationWorkload.Type.CANCEL), 12345);
    Run run = Run.of(SMALL, edited, options(SemanticPolicy.POSTPONE));
    run.assertCorrect();
  }
}
