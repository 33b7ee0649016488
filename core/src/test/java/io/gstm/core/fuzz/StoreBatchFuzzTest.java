package io.gstm.core.fuzz;

import static io.gstm.core.program.StoreContents.int32Bits;
import static io.gstm.core.program.StoreContents.int32Values;
import static io.gstm.core.program.StoreContents.ofInt32;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.StoreContents;
import io.gstm.core.soak.SoakCases;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.Fuzz;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.Workloads;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.memcached.MemcachedConfig;
import io.gstm.core.workload.pc.ProducerConsumerConfig;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationVerifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded fuzzing of store and batch construction on the JVM engine: region specs and layouts
 * (names, types, lengths, lock coverage, too many regions), algorithms, region reads and writes
 * of the wrong type or length; transaction tables of every workload with a column value, a
 * parameter, a type code, the set capacity, the grid or the workload name changed; run options;
 * the built-in workload configs with random (often out-of-range, NaN or huge) parameters.
 * Every input ends in a result or an IllegalArgumentException with a message, before anything
 * runs: a rejected batch leaves the store as it was, and an accepted one passes the exact
 * verifier (where the input keeps it meaningful) and the history checker.
 */
class StoreBatchFuzzTest {
  private static final Fuzz.Budget BUDGET = new Fuzz.Budget("store-batch", 20);
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  static LongStream seeds() {
    return Fuzz.seeds("store-batch", 1500);
  }

  private static final int[] INTS = {-2147483648, -7, -1, 0, 1, 2, 3, 7, 8, 9, 16, 17, 31, 32,
      255, 256, 257, 1000, 65536, 1 << 20, 1 << 30, 2147483647};
  private static final double[] DOUBLES = {Double.NaN, Double.POSITIVE_INFINITY,
      Double.NEGATIVE_INFINITY, -0.0, 0, 1e-300, 0.25, 0.5, 1, 1.0000001, -0.1, 2, 1e308};

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void everyInputEndsInAResultOrAClearError(long seed) {
    BUDGET.check(seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    switch (rnd.nextInt(5)) {
      case 0 -> layoutsAndStores(rnd, seed);
      case 1, 2 -> mutatedBatch(rnd, seed);
      case 3 -> configs(rnd, seed);
      default -> optionsAndPresort(rnd, seed);
    }
  }

  private static int anInt(SplittableRandom rnd, int smallBound) {
    return rnd.nextInt(3) == 0 ? INTS[rnd.nextInt(INTS.length)] : rnd.nextInt(smallBound);
  }

  private static double aDouble(SplittableRandom rnd) {
    return rnd.nextBoolean() ? DOUBLES[rnd.nextInt(DOUBLES.length)] : rnd.nextDouble();
  }

  // ---- layouts and stores ------------------------------------------------------------------

  private static void layoutsAndStores(SplittableRandom rnd, long seed) {
    int n = rnd.nextInt(12) == 0 ? 9 + rnd.nextInt(3) : rnd.nextInt(5);
    List<RegionSpec> regions = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      String name = new String[] {"r" + r, "", " ", "\u00e9", "r0", null}[rnd.nextInt(6)];
      RegionType type = rnd.nextInt(20) == 0 ? null
          : RegionType.values()[rnd.nextInt(RegionType.values().length)];
      int length = anInt(rnd, 100);
      int coverage = anInt(rnd, 8);
      RegionSpec own = Fuzz.resultOrClearError("RegionSpec(" + name + ", " + type + ", "
          + length + ", " + coverage + ")", name == null || type == null,
          () -> new RegionSpec(name, type, length, coverage));
      RegionSpec spec = own;
      if (own != null && rnd.nextInt(4) == 0) {
        // The locks of another region: an earlier one, often of its shape, or none, or its own.
        RegionSpec earlier = regions.isEmpty() ? null : regions.get(rnd.nextInt(regions.size()));
        String owner = earlier != null && rnd.nextBoolean() ? earlier.name()
            : new String[] {"r" + r, "zz", null}[rnd.nextInt(3)];
        RegionSpec shaped = earlier != null && rnd.nextBoolean()
            ? new RegionSpec(own.name(), own.type(), earlier.length(), earlier.lockCoverage())
            : own;
        spec = Fuzz.resultOrClearError(shaped + ".withLocksOf(" + owner + ")", owner == null,
            () -> shaped.withLocksOf(owner));
      }
      if (spec != null) {
        regions.add(spec);
      }
    }
    if (rnd.nextInt(20) == 0) {
      regions.add(null);
    }
    String about = "seed " + seed + ", layout of " + regions;
    StoreLayout layout = Fuzz.resultOrClearError(about, regions.contains(null),
        () -> new StoreLayout(regions));
    if (layout == null || layout.wordCount() > 1 << 22) {
      return;
    }
    Algorithm alg = algorithm(rnd, about);
    if (alg == null || (long) layout.wordCount() * alg.versions() > 1 << 22) {
      return; // valid, but more memory than a test should take
    }
    TxStore store = Fuzz.resultOrClearError(about + ", " + alg.label(), false,
        () -> engines.jvm().createStore(layout, alg));
    if (store == null) {
      return;
    }
    try (store) {
      for (int i = 0; i < 6; i++) {
        int region = rnd.nextInt(4) == 0 ? anInt(rnd, 10) : rnd.nextInt(layout.regionCount());
        int len = rnd.nextInt(3) == 0 ? anInt(rnd, 100)
            : region >= 0 && region < layout.regionCount() ? layout.region(region).length() : 1;
        RegionType t = RegionType.values()[rnd.nextInt(RegionType.values().length)];
        String what = about + ": write " + t + " x " + len + " to region " + region;
        long[][] before = StoreContents.read(store);
        Object done = Fuzz.resultOrClearError(what, false, () -> {
          write(store, region, t, len, rnd.nextLong());
          return Boolean.TRUE;
        });
        if (done == null) {
          assertThat(StoreContents.firstDifference(layout, before, StoreContents.read(store)))
              .as("a rejected write changed the store: %s", what).isNull();
        } else {
          Object read = Fuzz.resultOrClearError(what + ", read back", false,
              () -> read(store, region, t));
          assertThat(read).as(what).isNotNull();
        }
      }
    }
  }

  private static Algorithm algorithm(SplittableRandom rnd, String about) {
    if (rnd.nextBoolean()) {
      return Algorithm.prStm();
    }
    int versions = anInt(rnd, 12);
    CsmvVariant variant = rnd.nextInt(10) == 0 ? null
        : CsmvVariant.values()[rnd.nextInt(CsmvVariant.values().length)];
    int record = rnd.nextBoolean() ? Algorithm.DEFAULT_RECORD : anInt(rnd, 2048);
    return Fuzz.resultOrClearError(about + ", csmv(" + versions + ", " + variant + ", " + record
        + ")", false, () -> new Algorithm(Algorithm.Kind.CSMV, versions, variant, record));
  }

  private static void write(TxStore store, int region, RegionType t, int len, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int n = Math.max(0, Math.min(len, 1 << 20));
    switch (t) {
      case INT32 -> store.writeInt32(region, r.ints(n).toArray());
      case INT64 -> store.writeInt64(region, r.longs(n).toArray());
      case FLOAT32 -> {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
          v[i] = Float.intBitsToFloat(r.nextInt());
        }
        store.writeFloat32(region, v);
      }
      default -> store.writeFloat64(region, r.doubles(n).toArray());
    }
  }

  private static Object read(TxStore store, int region, RegionType t) {
    return switch (t) {
      case INT32 -> store.readInt32(region);
      case INT64 -> store.readInt64(region);
      case FLOAT32 -> store.readFloat32(region);
      default -> store.readFloat64(region);
    };
  }

  // ---- mutated transaction tables ----------------------------------------------------------

  /** A valid batch of some workload, its store and its initial contents. */
  private record Base(String family, StoreLayout layout, long[][] initial, TxBatch batch) {}

  private static Base base(SplittableRandom rnd) {
    int tpb = 1 + rnd.nextInt(64);
    int blocks = 1 + rnd.nextInt(3);
    int per = 1 + rnd.nextInt(4);
    switch (rnd.nextInt(5)) {
      case 0 -> {
        BankConfig c = BankConfig.builder().accounts(2 + rnd.nextInt(200)).k(1 + rnd.nextInt(2))
            .readOnly(0.3).lockCoverage(1).grid(tpb, blocks).txPerThread(per).seed(rnd.nextLong())
            .build();
        c = BankConfig.builder().accounts(c.accounts())
            .k(1 + rnd.nextInt(Math.min(16, c.accounts()))).readOnly(c.readOnlyFraction())
            .lockCoverage(1 + rnd.nextInt(4)).grid(tpb, blocks).txPerThread(per).seed(c.seed())
            .build();
        return new Base("bank", c.layout(), ofInt32(c.initialBalances()), rnd.nextBoolean()
            ? c.batch() : c.batchWithAuditSpan(1 + rnd.nextInt(c.accounts())));
      }
      case 1 -> {
        SemanticBankConfig c = SemanticBankConfig.builder().accounts(4 + rnd.nextInt(200))
            .k(1 + rnd.nextInt(2)).semanticRatio(rnd.nextDouble()).lockCoverage(1).grid(tpb, blocks)
            .txPerThread(per).seed(rnd.nextLong()).build();
        return new Base("semantic bank", c.layout(), ofInt32(c.initialBalances()), c.batch());
      }
      case 2 -> {
        VacationConfig c = VacationConfig.builder().customers(1 + rnd.nextInt(300))
            .roomTypes(1 + rnd.nextInt(20)).roomsPerType(rnd.nextInt(20))
            .semanticRatio(rnd.nextDouble()).lockCoverage(1 + rnd.nextInt(3)).grid(tpb, blocks)
            .txPerThread(per).seed(rnd.nextLong()).build();
        return new Base("vacation", c.layout(), new long[][] {int32Bits(c.initialRooms()),
            int32Bits(c.initialCustomers())}, c.batch());
      }
      case 3 -> {
        ProducerConsumerConfig c = ProducerConsumerConfig.builder().producers(1 + rnd.nextInt(3))
            .consumers(1).itemsPerProducer(1 + rnd.nextInt(40)).bufferCapacity(1 + rnd.nextInt(8))
            .lockCoverage(1).grid(tpb, blocks).seed(rnd.nextLong()).build();
        long[] slots = new long[c.bufferCapacity()];
        Arrays.fill(slots, ProducerConsumerConfig.NOT_TAKEN);
        long[] taken = new long[c.items()];
        Arrays.fill(taken, ProducerConsumerConfig.NOT_TAKEN);
        return new Base("producer-consumer", c.layout(), new long[][] {slots, new long[2],
            taken}, c.batch());
      }
      default -> {
        MemcachedConfig c = MemcachedConfig.builder().sets(1 + rnd.nextInt(16))
            .ways(1 << rnd.nextInt(4)).keys(1 + rnd.nextInt(100)).getFraction(0.8).zipfTheta(0.9)
            .grid(tpb, blocks).txPerThread(per).seed(rnd.nextLong()).build();
        int[][] init = c.initialState();
        long[][] initial = new long[init.length][];
        for (int r = 0; r < init.length; r++) {
          initial[r] = int32Bits(init[r]);
        }
        return new Base("memcached", c.layout(), initial, c.batch());
      }
    }
  }

  private static void mutatedBatch(SplittableRandom rnd, long seed) {
    Base base = base(rnd);
    TxBatch b = base.batch();
    int[] types = b.types().clone();
    int[][] cols = new int[b.columns().length][];
    for (int c = 0; c < cols.length; c++) {
      cols[c] = b.columns()[c].clone();
    }
    int[] params = b.params().clone();
    String workload = b.workload();
    int tpb = b.threadsPerBlock();
    int blocks = b.blocks();
    int capacity = b.capacity();
    List<String> changes = new ArrayList<>();
    boolean meaningKept = true;
    int m = 1 + rnd.nextInt(3);
    for (int i = 0; i < m; i++) {
      int t = rnd.nextInt(types.length);
      switch (rnd.nextInt(9)) {
        case 0 -> {
          int c = cols.length == 0 ? -1 : rnd.nextInt(cols.length);
          if (c >= 0 && t < cols[c].length) {
            cols[c][t] = anInt(rnd, 300);
            changes.add("columns[" + c + "][" + t + "] = " + cols[c][t]);
            meaningKept = false;
          }
        }
        case 1 -> {
          if (params.length > 0) {
            int p = rnd.nextInt(params.length);
            params[p] = anInt(rnd, 6);
            changes.add("params[" + p + "] = " + params[p]);
            meaningKept = false;
          }
        }
        case 2 -> {
          params = rnd.nextBoolean() ? Arrays.copyOf(params, params.length + 1)
              : Arrays.copyOf(params, Math.max(0, params.length - 1));
          changes.add("params = " + Arrays.toString(params));
          meaningKept = false;
        }
        case 3 -> {
          types[t] = anInt(rnd, 5);
          changes.add("types[" + t + "] = " + types[t]);
          meaningKept = false;
        }
        case 4 -> {
          capacity = rnd.nextInt(4) == 0 ? anInt(rnd, 20)
              : TxBatch.CAPACITIES[rnd.nextInt(TxBatch.CAPACITIES.length)];
          changes.add("capacity = " + capacity);
        }
        case 5 -> {
          tpb = rnd.nextBoolean() ? anInt(rnd, 300) : 1 + rnd.nextInt(256);
          blocks = rnd.nextBoolean() ? anInt(rnd, 10) : 1 + rnd.nextInt(10);
          changes.add("grid " + tpb + " x " + blocks);
        }
        case 6 -> {
          List<String> names = new ArrayList<>(Workloads.names());
          names.add("nope");
          workload = names.get(rnd.nextInt(names.size()));
          changes.add("workload = " + workload);
          meaningKept = false;
        }
        case 7 -> {
          if (cols.length > 0) {
            int c = rnd.nextInt(cols.length);
            cols[c] = Arrays.copyOf(cols[c], Math.max(0, cols[c].length - 1 - rnd.nextInt(2)));
            changes.add("columns[" + c + "] shortened");
          }
        }
        default -> {
          cols = Arrays.copyOf(cols, Math.max(0, cols.length + (rnd.nextBoolean() ? 1 : -1)));
          if (cols.length > 0 && cols[cols.length - 1] == null) {
            cols[cols.length - 1] = new int[types.length];
          }
          changes.add("columns: " + cols.length);
          meaningKept = false;
        }
      }
    }
    String about = "seed " + seed + ", " + base.family() + " batch with " + changes;
    String name = workload;
    int[][] c2 = cols;
    int[] p2 = params;
    int tpb2 = tpb;
    int blocks2 = blocks;
    int cap2 = capacity;
    TxBatch batch = Fuzz.resultOrClearError(about, false,
        () -> new TxBatch(name, types, c2, p2, tpb2, blocks2, cap2));
    if (batch == null) {
      return;
    }
    boolean csmv = base.family().equals("memcached")
        || base.family().equals("bank") && rnd.nextInt(3) == 0;
    Algorithm alg = csmv ? Algorithm.csmv(2 + rnd.nextInt(6)) : Algorithm.prStm();
    RunOptions options = RunOptions.defaults().withHistory(true).withSemanticLimit(50)
        .withMaxRetries(rnd.nextBoolean() ? RunOptions.DEFAULT_MAX_RETRIES : 1 + rnd.nextInt(5));
    try (TxStore store = engines.jvm().createStore(base.layout(), alg)) {
      StoreContents.write(store, base.initial());
      BatchResult r = Fuzz.resultOrClearError(about + " on " + alg.label(), false,
          () -> engines.jvm().run(store, batch, options));
      long[][] after = StoreContents.read(store);
      if (r == null) {
        assertThat(StoreContents.firstDifference(base.layout(), base.initial(), after))
            .as("a rejected batch changed the store: %s", about).isNull();
        return;
      }
      for (int t = 0; t < batch.txCount(); t++) {
        assertThat(r.outcome(t)).as("%s: transaction %d", about, t).isNotEqualTo(Outcome.PENDING);
      }
      if (r.history() != null) {
        HistoryChecker.Verdict h = HistoryChecker.check(r.history());
        assertThat(h.serializable()).as("%s: %s", about, h.violations()).isTrue();
      }
      if (batch.workload().equals("bank")) {
        Verdict v = BankVerifier.verify(int32Values(base.initial()[0]), batch, r,
            int32Values(after[0]));
        assertThat(v.ok()).as("%s: %s", about, v).isTrue();
      } else if (meaningKept && batch.workload().equals("vacation")) {
        Verdict v = VacationVerifier.verify(int32Values(base.initial()[0]),
            int32Values(base.initial()[1]), batch, r, int32Values(after[0]), int32Values(after[1]));
        assertThat(v.ok()).as("%s: %s", about, v).isTrue();
      }
    }
  }

  // ---- configs -----------------------------------------------------------------------------

  private static void configs(SplittableRandom rnd, long seed) {
    int tpb = anInt(rnd, 65);
    int blocks = anInt(rnd, 4);
    int per = anInt(rnd, 6);
    long cfgSeed = rnd.nextLong();
    SoakCases.How how = SoakCases.How.values()[rnd.nextInt(SoakCases.How.values().length)];
    RunOptions options = RunOptions.defaults().withHistory(true)
        .withPolicy(rnd.nextBoolean() ? SemanticPolicy.POSTPONE : SemanticPolicy.RETRY_IN_PLACE)
        .withSemanticLimit(1 + rnd.nextInt(200));
    boolean presort = rnd.nextBoolean();
    SoakCases.Case c;
    String about;
    switch (rnd.nextInt(5)) {
      case 0 -> {
        int accounts = anInt(rnd, 300);
        int k = anInt(rnd, 18);
        double ro = aDouble(rnd);
        int coverage = anInt(rnd, 5);
        about = "seed " + seed + ", BankConfig(" + accounts + ", " + k + ", " + ro + ", "
            + coverage + ", " + tpb + ", " + blocks + ", " + per + ")";
        BankConfig cfg = Fuzz.resultOrClearError(about, false, () -> BankConfig.builder()
            .accounts(accounts).k(k).readOnly(ro).lockCoverage(coverage).grid(tpb, blocks)
            .txPerThread(per).seed(cfgSeed).build());
        c = cfg == null || cfg.txCount() > 20_000 || cfg.accounts() > 1 << 20 ? null
            : SoakCases.bank(seed, cfg,
            rnd.nextBoolean() || k > 8 ? Algorithm.prStm() : Algorithm.csmv(4),
            rnd.nextBoolean(), how);
      }
      case 1 -> {
        int accounts = anInt(rnd, 300);
        int k = anInt(rnd, 18);
        double ratio = aDouble(rnd);
        int coverage = anInt(rnd, 5);
        about = "seed " + seed + ", SemanticBankConfig(" + accounts + ", " + k + ", " + ratio
            + ", " + coverage + ", " + tpb + ", " + blocks + ", " + per + ")";
        SemanticBankConfig cfg = Fuzz.resultOrClearError(about, false,
            () -> SemanticBankConfig.builder().accounts(accounts).k(k).semanticRatio(ratio)
                .lockCoverage(coverage).grid(tpb, blocks).txPerThread(per).seed(cfgSeed).build());
        c = cfg == null || cfg.txCount() > 20_000 || cfg.accounts() > 1 << 20 ? null
            : SoakCases.semanticBank(seed, cfg, options, presort, how);
      }
      case 2 -> {
        int customers = anInt(rnd, 300);
        int types = anInt(rnd, 30);
        int rooms = anInt(rnd, 30);
        double ratio = aDouble(rnd);
        int coverage = anInt(rnd, 4);
        about = "seed " + seed + ", VacationConfig(" + customers + ", " + types + ", " + rooms
            + ", " + ratio + ", " + coverage + ", " + tpb + ", " + blocks + ", " + per + ")";
        VacationConfig cfg = Fuzz.resultOrClearError(about, false,
            () -> VacationConfig.builder().customers(customers).roomTypes(types).roomsPerType(rooms)
                .semanticRatio(ratio).lockCoverage(coverage).grid(tpb, blocks).txPerThread(per)
                .seed(cfgSeed).build());
        c = cfg == null || cfg.txCount() > 20_000 || cfg.customers() > 100_000
            || (long) cfg.roomTypes() * cfg.lockCoverage() > 1 << 20 ? null
            : SoakCases.vacation(seed, cfg, options, presort, how);
      }
      case 3 -> {
        int producers = anInt(rnd, 5);
        int consumers = anInt(rnd, 5);
        int items = anInt(rnd, 60);
        int capacity = anInt(rnd, 10);
        int coverage = anInt(rnd, 3);
        about = "seed " + seed + ", ProducerConsumerConfig(" + producers + ", " + consumers
            + ", " + items + ", " + capacity + ", " + coverage + ", " + tpb + ", " + blocks + ")";
        ProducerConsumerConfig cfg = Fuzz.resultOrClearError(about, false,
            () -> ProducerConsumerConfig.builder().producers(producers).consumers(consumers)
                .itemsPerProducer(items).bufferCapacity(capacity).lockCoverage(coverage)
                .grid(tpb, blocks).seed(cfgSeed).build());
        c = cfg == null || cfg.txCount() > 20_000 || cfg.bufferCapacity() > 1 << 20 ? null
            : SoakCases.producerConsumer(seed, cfg, options, presort, how);
      }
      default -> {
        int sets = anInt(rnd, 40);
        int ways = anInt(rnd, 9);
        int keys = anInt(rnd, 500);
        double gets = aDouble(rnd);
        double theta = aDouble(rnd);
        about = "seed " + seed + ", MemcachedConfig(" + sets + ", " + ways + ", " + keys + ", "
            + gets + ", " + theta + ", " + tpb + ", " + blocks + ", " + per + ")";
        MemcachedConfig cfg = Fuzz.resultOrClearError(about, false,
            () -> MemcachedConfig.builder().sets(sets).ways(ways).keys(keys).getFraction(gets)
                .zipfTheta(theta).grid(tpb, blocks).txPerThread(per).seed(cfgSeed).build());
        c = cfg == null || cfg.txCount() > 20_000 || (long) cfg.sets() * cfg.ways() > 1 << 20
            || cfg.keys() > 1 << 20 ? null
            : SoakCases.memcached(seed, cfg, Algorithm.csmv(2 + rnd.nextInt(4)));
      }
    }
    if (c == null) {
      return;
    }
    SoakCases.Check check = c.run(engines.jvm());
    assertThat(check.violations()).as("%s: %s", about, c).isEmpty();
  }

  // ---- run options and pre-sorting ---------------------------------------------------------

  private static void optionsAndPresort(SplittableRandom rnd, long seed) {
    int retries = anInt(rnd, 10);
    int limit = anInt(rnd, 10);
    SemanticPolicy policy = rnd.nextInt(10) == 0 ? null
        : SemanticPolicy.values()[rnd.nextInt(2)];
    String about = "seed " + seed + ", RunOptions(" + retries + ", " + policy + ", " + limit
        + ")";
    RunOptions o = Fuzz.resultOrClearError(about, false,
        () -> new RunOptions(retries, rnd.nextBoolean(), policy, limit));
    String text = new String[] {"postpone", "retry-in-place", " Postpone ", "", "wait",
        "RETRY_IN_PLACE", null}[rnd.nextInt(7)];
    Fuzz.resultOrClearError(about + ", policy '" + text + "'", false,
        () -> SemanticPolicy.parse(text));
    String variant = new String[] {"csmv", "csmv-nocv", "NO_CV", "", "tl2", null}[rnd.nextInt(6)];
    Fuzz.resultOrClearError("variant '" + variant + "'", false, () -> CsmvVariant.parse(variant));
    Base base = base(rnd);
    int[] tags = new int[rnd.nextInt(5)];
    for (int i = 0; i < tags.length; i++) {
      tags[i] = anInt(rnd, 3);
    }
    TxBatch sorted = Fuzz.resultOrClearError(about + ", presort by " + Arrays.toString(tags),
        false, () -> TxBatches.presort(base.batch(), tags));
    if (sorted == null || o == null || o.maxRetries() < 1000) {
      return;
    }
    try (TxStore store = engines.jvm().createStore(base.layout())) {
      StoreContents.write(store, base.initial());
      RunOptions run = o.withHistory(true).withSemanticLimit(Math.min(o.semanticLimit(), 100));
      BatchResult r = engines.jvm().run(store, sorted, run);
      HistoryChecker.Verdict h = HistoryChecker.check(r.history());
      assertThat(h.serializable()).as("%s: %s", about, h.violations()).isTrue();
    }
  }
}
