package io.gstm.core.soak;

import static io.gstm.core.program.StoreContents.int32Bits;
import static io.gstm.core.program.StoreContents.int32Values;
import static io.gstm.core.program.StoreContents.ofInt32;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.kmeans.KMeansOptions;
import io.gstm.core.kmeans.KMeansPartial;
import io.gstm.core.kmeans.KMeansUpdater;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramReplay;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.Backoff;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.kmeans.KMeansPrograms;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import io.gstm.core.workload.memcached.MemcachedConfig;
import io.gstm.core.workload.memcached.MemcachedVerifier;
import io.gstm.core.workload.pc.ProducerConsumerConfig;
import io.gstm.core.workload.pc.ProducerConsumerPrograms;
import io.gstm.core.workload.pc.ProducerConsumerVerifier;
import io.gstm.core.workload.pc.ProducerConsumerWorkload;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationPrograms;
import io.gstm.core.workload.vacation.VacationVerifier;
import io.gstm.core.workload.vacation.VacationWorkload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * The soak's randomized batches: a seed draws one batch (a workload, its size and contention, an
 * algorithm, a semantic policy, hand-written or as transaction programs) and how to check it:
 * the workload's exact verifier, the history checker (every batch records its history, except on
 * the CUDA CSMV kernel, which records none) and the serial replay of the committed transactions
 * in the checker's order. The same seed always
 * draws the same batch, so a violation is reproduced from its seed alone.
 */
public final class SoakCases {
  private SoakCases() {}

  /** The workload families a batch is drawn from. */
  public enum Family {
    BANK("bank"),
    SEMANTIC_BANK("semantic-bank"),
    VACATION("vacation"),
    PRODUCER_CONSUMER("producer-consumer"),
    KMEANS("kmeans"),
    MEMCACHED("memcached"),
    RANDOM_PROGRAMS("random-programs"),
    DATA_STRUCTURES("data-structures");

    private final String label;

    Family(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  /** Most transactions a drawn batch holds: small enough for the history checker. */
  public static final int MAX_TRANSACTIONS = 16_384;

  /**
   * One drawn batch.
   *
   * @param seed the seed that drew it
   * @param family its workload family
   * @param label what it is, in words (sizes, algorithm, policy, how it is written)
   * @param transactions transactions in the batch (for the updater path of k-means: points)
   * @param body runs it on an engine and checks it
   */
  public record Case(long seed, Family family, String label, int transactions,
      Function<Engine, Check> body) {
    /** Runs the batch on {@code engine} and checks it; an exception is a violation. */
    public Check run(Engine engine) {
      try {
        return body.apply(engine);
      } catch (RuntimeException | StackOverflowError e) {
        return new Check(transactions, 0, 0, 0, List.of("threw " + e));
      }
    }

    @Override
    public String toString() {
      return family.label() + " (seed " + seed + "): " + label;
    }
  }

  /**
   * What checking one batch found.
   *
   * @param transactions transactions checked
   * @param committed of them, committed
   * @param abandoned of them, abandoned at the concurrency retry limit: not a violation, but
   *     counted (a transaction that keeps losing to others)
   * @param abandonedSemantic of them, abandoned at the semantic limit (waiting for a state that
   *     did not come in time, e.g. a booking of a sold-out room)
   * @param violations what failed, in words; empty when every check passed
   */
  public record Check(long transactions, long committed, long abandoned,
      long abandonedSemantic, List<String> violations) {
    public boolean ok() {
      return violations.isEmpty();
    }
  }

  /** Draws the batch of {@code seed}. */
  public static Case draw(long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Family f = Family.values()[rnd.nextInt(Family.values().length)];
    try {
      return switch (f) {
        case BANK -> bank(seed, rnd);
        case SEMANTIC_BANK -> semanticBank(seed, rnd);
        case VACATION -> vacation(seed, rnd);
        case PRODUCER_CONSUMER -> producerConsumer(seed, rnd);
        case KMEANS -> kmeans(seed, rnd);
        case MEMCACHED -> memcached(seed, rnd);
        case RANDOM_PROGRAMS -> randomPrograms(seed, rnd);
        case DATA_STRUCTURES -> DsSoak.draw(seed, rnd);
      };
    } catch (RuntimeException | StackOverflowError e) {
      // A configuration the builders should take but do not: a violation of its own.
      String problem = "drawing the batch threw " + e;
      return new Case(seed, f, "(not drawn)", 0,
          engine -> new Check(0, 0, 0, 0, List.of(problem)));
    }
  }

  // ---- drawing ----------------------------------------------------------------------------

  /** A grid of at most {@code maxTx} transactions: threads per block, blocks, tx per thread. */
  private static int[] grid(SplittableRandom rnd, int maxTx) {
    return grid(rnd, maxTx, false);
  }

  /** As {@link #grid(SplittableRandom, int)}; CSMV blocks are whole warps (the GPU's rule). */
  static int[] grid(SplittableRandom rnd, int maxTx, boolean csmv) {
    int[] tpbs = csmv ? new int[] {32, 64, 128, 256} : new int[] {1, 8, 32, 64, 128, 256};
    int tpb = tpbs[rnd.nextInt(tpbs.length)];
    int blocks = 1 + rnd.nextInt(8);
    int perThread = 1 + rnd.nextInt(rnd.nextBoolean() ? 4 : 40);
    while ((long) tpb * blocks * perThread > maxTx) {
      if (perThread > 1) {
        perThread = (perThread + 1) / 2;
      } else if (blocks > 1) {
        blocks = (blocks + 1) / 2;
      } else {
        tpb = Math.max(csmv ? 32 : 1, tpb / 2);
      }
    }
    return new int[] {tpb, blocks, perThread};
  }

  /** Log-uniform in {@code lo..hi}: as many small (hot) sizes as large ones. */
  private static int logUniform(SplittableRandom rnd, int lo, int hi) {
    double v = Math.exp(rnd.nextDouble(Math.log(lo), Math.log(hi + 1.0)));
    return Math.max(lo, Math.min(hi, (int) v));
  }

  static Algorithm csmv(SplittableRandom rnd) {
    CsmvVariant[] variants = CsmvVariant.values();
    return Algorithm.csmv(Algorithm.MIN_VERSIONS + rnd.nextInt(7))
        .withVariant(variants[rnd.nextInt(variants.length)])
        .withRecordEntries(rnd.nextBoolean() ? Algorithm.DEFAULT_RECORD
            : Algorithm.MIN_RECORD << rnd.nextInt(5));
  }

  /** GPU-STM, or a Cederman STM with a backoff drawn from the three kinds. */
  static Algorithm lockTable(SplittableRandom rnd) {
    return switch (rnd.nextInt(3)) {
      case 0 -> Algorithm.gpuStm();
      case 1 -> Algorithm.blocking().withBackoff(backoff(rnd));
      default -> Algorithm.obstructionFree().withBackoff(backoff(rnd));
    };
  }

  private static Backoff backoff(SplittableRandom rnd) {
    return switch (rnd.nextInt(3)) {
      case 0 -> Backoff.none();
      case 1 -> Backoff.linear(1 + rnd.nextInt(200), 10_000);
      default -> Backoff.defaults();
    };
  }

  private static SemanticPolicy policy(SplittableRandom rnd) {
    return rnd.nextInt(3) == 0 ? SemanticPolicy.RETRY_IN_PLACE : SemanticPolicy.POSTPONE;
  }

  /**
   * History on; the policy's limit, or a lower one (a transaction that waits in vain, e.g. a
   * booking of a sold-out room, ends sooner).
   */
  private static RunOptions options(SplittableRandom rnd, SemanticPolicy policy) {
    RunOptions o = RunOptions.defaults().withHistory(true).withPolicy(policy);
    return policy == SemanticPolicy.POSTPONE && rnd.nextBoolean()
        ? o.withSemanticLimit(100 + rnd.nextInt(900)) : o;
  }

  private static String describe(RunOptions o) {
    return o.policy().cliName() + " (limit " + o.semanticLimit() + ")";
  }

  static String gridText(int[] g) {
    return gridText(g[0], g[1], g[2]);
  }

  private static String gridText(int threadsPerBlock, int blocks, int txPerThread) {
    return threadsPerBlock + "x" + blocks + " threads x " + txPerThread + " tx";
  }

  /** How a drawn batch is written. */
  public enum How {
    HAND_WRITTEN(""),
    PROGRAM_TEXT(", as programs (text)"),
    PROGRAM_BUILDER(", as programs (builder)");

    private final String label;

    How(String label) {
      this.label = label;
    }

    boolean programs() {
      return this != HAND_WRITTEN;
    }

    boolean builder() {
      return this == PROGRAM_BUILDER;
    }
  }

  private static How how(SplittableRandom rnd) {
    return rnd.nextInt(3) != 0 ? How.HAND_WRITTEN
        : rnd.nextBoolean() ? How.PROGRAM_TEXT : How.PROGRAM_BUILDER;
  }

  /** Plain bank (PR-STM or CSMV): transfers and audits, audits of k accounts or all. */
  private static Case bank(long seed, SplittableRandom rnd) {
    boolean csmv = rnd.nextInt(3) == 0;
    Algorithm alg = csmv ? csmv(rnd) : Algorithm.prStm();
    int accounts = logUniform(rnd, 2, 1 << 16);
    int k = 1 + rnd.nextInt(Math.min(accounts, csmv ? 8 : 16));
    double[] ro = {0, 0.2, 0.5, 0.9, rnd.nextDouble()};
    double readOnly = ro[rnd.nextInt(ro.length)];
    int coverage = csmv ? 1 : new int[] {1, 1, 2, 4, 16}[rnd.nextInt(5)];
    int[] g = grid(rnd, MAX_TRANSACTIONS, csmv);
    BankConfig cfg = BankConfig.builder().accounts(accounts).k(k).readOnly(readOnly)
        .lockCoverage(coverage).grid(g[0], g[1]).txPerThread(g[2]).seed(rnd.nextLong()).build();
    boolean wholeBank = rnd.nextInt(3) == 0;
    return bank(seed, cfg, alg, wholeBank, how(rnd));
  }

  /**
   * {@code cfg}'s batch on a store of {@code alg}, with whole-bank audits or not: the exact
   * verifier, the audit totals (whole-bank audits see the invariant total), the history checker
   * and the serial replay.
   */
  public static Case bank(long seed, BankConfig cfg, Algorithm alg, boolean wholeBank,
      How how) {
    TxBatch batch = wholeBank ? cfg.batchWithAuditSpan(cfg.accounts()) : cfg.batch();
    RunOptions options = RunOptions.defaults().withHistory(true);
    String label = cfg.accounts() + " accounts, k=" + cfg.k() + ", "
        + Math.round(cfg.readOnlyFraction() * 100) + "% audits"
        + (wholeBank ? " of the whole bank" : "") + ", coverage " + cfg.lockCoverage() + ", "
        + gridText(cfg.threadsPerBlock(), cfg.blocks(), cfg.txPerThread()) + ", "
        + alg.label() + how.label;
    return new Case(seed, Family.BANK, label, batch.txCount(), engine -> {
      int[] initial = cfg.initialBalances();
      Run run = run(engine, cfg.layout(), alg, ofInt32(initial), batch, how,
          b -> BankPrograms.batch(b, BankPrograms.set(b, how.builder())), options);
      Checks checks = new Checks(run);
      int[] after = int32Values(run.after()[0]);
      Verdict v = BankVerifier.verify(initial, batch, run.stats(), after);
      checks.verdict("verifier", v.ok(), v);
      if (wholeBank) {
        long total = (long) cfg.accounts() * BankConfig.INITIAL_BALANCE;
        for (int t = 0; t < batch.txCount(); t++) {
          if (BankWorkload.Type.AUDIT.is(batch.types()[t])
              && run.stats().outcome(t) == Outcome.COMMITTED
              && run.stats().results()[t] != total) {
            checks.add("audit " + t + " saw a total of " + run.stats().results()[t]
                + ", the bank holds " + total);
            break;
          }
        }
      }
      return checks.doneAfterReplay("serial replay",
          order -> BankVerifier.replay(initial, batch, order));
    });
  }

  /** Deposits, withdrawals and checked transfers under the semantic contention manager. */
  private static Case semanticBank(long seed, SplittableRandom rnd) {
    int k = 1 + rnd.nextInt(8);
    int accounts = Math.max(2 * k, logUniform(rnd, 2, 1 << 14));
    double ratio = new double[] {0, 0.25, 0.5, 1, rnd.nextDouble()}[rnd.nextInt(5)];
    int coverage = new int[] {1, 1, 2, 8}[rnd.nextInt(4)];
    int[] g = grid(rnd, MAX_TRANSACTIONS);
    SemanticBankConfig cfg = SemanticBankConfig.builder().accounts(accounts).k(k)
        .semanticRatio(ratio).lockCoverage(coverage).grid(g[0], g[1]).txPerThread(g[2])
        .seed(rnd.nextLong()).build();
    RunOptions options = options(rnd, policy(rnd));
    return semanticBank(seed, cfg, options, rnd.nextInt(4) == 0, how(rnd));
  }

  /**
   * {@code cfg}'s batch (pre-sorted or not) on a PR-STM store: the exact verifier, the history
   * checker and the serial replay (every committed withdrawal saw enough). {@code options}
   * should record the history.
   */
  public static Case semanticBank(long seed, SemanticBankConfig cfg, RunOptions options,
      boolean presort, How how) {
    TxBatch batch = presort ? TxBatches.presort(cfg.batch(), BankWorkload.INSTANCE.orderingTags())
        : cfg.batch();
    String label = cfg.accounts() + " accounts, k=" + cfg.k() + ", "
        + Math.round(cfg.semanticRatio() * 100) + "% deposit/withdrawal pairs, coverage "
        + cfg.lockCoverage() + ", "
        + gridText(cfg.threadsPerBlock(), cfg.blocks(), cfg.txPerThread()) + ", "
        + describe(options) + (presort ? ", pre-sorted" : "") + how.label;
    return new Case(seed, Family.SEMANTIC_BANK, label, batch.txCount(), engine -> {
      int[] initial = cfg.initialBalances();
      Run run = run(engine, cfg.layout(), Algorithm.prStm(), ofInt32(initial), batch, how,
          b -> BankPrograms.batch(b, BankPrograms.set(b, how.builder())), options);
      Checks checks = new Checks(run);
      Verdict v = BankVerifier.verify(initial, batch, run.stats(),
          int32Values(run.after()[0]));
      checks.verdict("verifier", v.ok(), v);
      return checks.doneAfterReplay("serial replay (every withdrawal saw enough)",
          order -> BankVerifier.replay(initial, batch, order));
    });
  }

  /** The hotel: bookings and cancellations, rooms plentiful or scarce. */
  private static Case vacation(long seed, SplittableRandom rnd) {
    int customers = logUniform(rnd, 1, 5_000);
    int roomTypes = logUniform(rnd, 1, 300);
    int rooms = rnd.nextBoolean() ? rnd.nextInt(6) : logUniform(rnd, 1, 200);
    double ratio = new double[] {0, 0.5, 1, rnd.nextDouble()}[rnd.nextInt(4)];
    int coverage = 1 + rnd.nextInt(4);
    int[] g = grid(rnd, MAX_TRANSACTIONS / 2);
    VacationConfig cfg = VacationConfig.builder().customers(customers).roomTypes(roomTypes)
        .roomsPerType(rooms).semanticRatio(ratio).lockCoverage(coverage).grid(g[0], g[1])
        .txPerThread(g[2]).seed(rnd.nextLong()).build();
    SemanticPolicy policy = policy(rnd);
    RunOptions drawn = options(rnd, policy);
    // Bookings of sold-out types may wait in vain: a lower limit ends them sooner.
    RunOptions options = rooms < 20 && policy == SemanticPolicy.POSTPONE
        ? drawn.withSemanticLimit(Math.min(drawn.semanticLimit(), 300)) : drawn;
    return vacation(seed, cfg, options, rnd.nextInt(4) == 0, how(rnd));
  }

  /**
   * {@code cfg}'s batch (pre-sorted or not) on a PR-STM store: the exact verifier (no room
   * overbooked or lost), the history checker and the serial replay.
   */
  public static Case vacation(long seed, VacationConfig cfg, RunOptions options, boolean presort,
      How how) {
    TxBatch batch = presort
        ? TxBatches.presort(cfg.batch(), VacationWorkload.INSTANCE.orderingTags()) : cfg.batch();
    String label = cfg.customers() + " customers, " + cfg.roomTypes() + " room types x "
        + cfg.roomsPerType() + " rooms, " + Math.round(cfg.semanticRatio() * 100)
        + "% book/cancel pairs, coverage " + cfg.lockCoverage() + ", "
        + gridText(cfg.threadsPerBlock(), cfg.blocks(), cfg.txPerThread()) + ", "
        + describe(options) + (presort ? ", pre-sorted" : "") + how.label;
    return new Case(seed, Family.VACATION, label, batch.txCount(), engine -> {
      int[] rooms0 = cfg.initialRooms();
      int[] customers0 = cfg.initialCustomers();
      Run run = run(engine, cfg.layout(), Algorithm.prStm(),
          new long[][] {int32Bits(rooms0), int32Bits(customers0)}, batch, how,
          b -> VacationPrograms.batch(b, VacationPrograms.set(b, how.builder())), options);
      Checks checks = new Checks(run);
      int[] rooms1 = int32Values(run.after()[0]);
      int[] customers1 = int32Values(run.after()[1]);
      Verdict v = VacationVerifier.verify(rooms0, customers0, batch, run.stats(),
          rooms1, customers1);
      checks.verdict("verifier", v.ok(), v);
      return checks.doneAfterReplay("serial replay", order -> VacationVerifier.replay(rooms0,
          customers0, batch, run.stats(), order, rooms1, customers1));
    });
  }

  /** Producers and consumers over one bounded buffer. */
  private static Case producerConsumer(long seed, SplittableRandom rnd) {
    int producers = 1 + rnd.nextInt(8);
    int perProducer = logUniform(rnd, 1, 600);
    int items = producers * perProducer;
    int consumers = 1 + rnd.nextInt(Math.min(16, items));
    int capacity = logUniform(rnd, 1, 128);
    int coverage = 1 + rnd.nextInt(4);
    int[] g = grid(rnd, 4096);
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(producers)
        .consumers(consumers).itemsPerProducer(perProducer).bufferCapacity(capacity)
        .lockCoverage(coverage).grid(g[0], g[1]).seed(rnd.nextLong()).build();
    RunOptions options = options(rnd, policy(rnd));
    return producerConsumer(seed, cfg, options, rnd.nextInt(4) == 0, how(rnd));
  }

  /**
   * {@code cfg}'s batch (pre-sorted or not) on a PR-STM store: the verifier (no item lost,
   * duplicated or invented), the history checker and the FIFO serial replay.
   */
  public static Case producerConsumer(long seed, ProducerConsumerConfig cfg, RunOptions options,
      boolean presort, How how) {
    TxBatch batch = presort
        ? TxBatches.presort(cfg.batch(), ProducerConsumerWorkload.INSTANCE.orderingTags())
        : cfg.batch();
    String label = cfg.producers() + " producers x " + cfg.itemsPerProducer() + " items, "
        + cfg.consumers() + " consumers, buffer " + cfg.bufferCapacity() + ", coverage "
        + cfg.lockCoverage() + ", " + cfg.threadsPerBlock() + "x" + cfg.blocks() + " threads, "
        + describe(options) + (presort ? ", pre-sorted" : "") + how.label;
    return new Case(seed, Family.PRODUCER_CONSUMER, label, batch.txCount(), engine -> {
      long[] slots = new long[cfg.bufferCapacity()];
      Arrays.fill(slots, ProducerConsumerConfig.NOT_TAKEN);
      long[] taken = new long[cfg.items()];
      Arrays.fill(taken, ProducerConsumerConfig.NOT_TAKEN);
      Run run = run(engine, cfg.layout(), Algorithm.prStm(), new long[][] {slots, new long[2],
          taken}, batch, how,
          b -> ProducerConsumerPrograms.batch(b, ProducerConsumerPrograms.set(b, how.builder())),
          options);
      Checks checks = new Checks(run);
      long[] taken1 = run.after()[ProducerConsumerConfig.TAKEN_REGION];
      ProducerConsumerVerifier.Verdict v = ProducerConsumerVerifier.verify(cfg, batch,
          run.stats(), run.after()[ProducerConsumerConfig.SLOTS_REGION],
          int32Values(run.after()[ProducerConsumerConfig.COUNTERS_REGION]), taken1);
      checks.verdict("verifier", v.ok(), v);
      return checks.doneAfterReplay("serial replay (FIFO)",
          order -> ProducerConsumerVerifier.replay(batch, taken1, order));
    });
  }

  /**
   * The k-means centroid update: either the updater as Spark calls it (assignment and
   * transactions) against the sequential reference, or the workload's batch over a given
   * assignment (hand-written or as programs) with its history.
   */
  private static Case kmeans(long seed, SplittableRandom rnd) {
    int dims = 1 + rnd.nextInt(rnd.nextBoolean() ? 3 : 20);
    int k = 1 + rnd.nextInt(16);
    int ppt = logUniform(rnd, 1, 512);
    int capacity = TxBatch.CAPACITIES[rnd.nextInt(TxBatch.CAPACITIES.length)];
    int tpb = new int[] {1, 32, 64, 256}[rnd.nextInt(4)];
    boolean updater = rnd.nextBoolean();
    int n = logUniform(rnd, 1, 20_000);
    // The batch has a transaction per block of points, centroid present and record slice.
    long slices = (dims + capacity) / capacity;
    while (n > 1 && (long) ((n + ppt - 1) / ppt) * Math.min(k, ppt) * slices > MAX_TRANSACTIONS) {
      n /= 2;
    }
    double[] points = new double[n * dims];
    for (int i = 0; i < points.length; i++) {
      points[i] = rnd.nextDouble(-100, 100);
    }
    double[] centroids = new double[k * dims];
    for (int i = 0; i < centroids.length; i++) {
      centroids[i] = rnd.nextDouble(-100, 100);
    }
    if (updater) {
      String label = "updater: " + n + " points x " + dims + " dims, k=" + k + ", " + ppt
          + " points per transaction, " + tpb + " threads per block";
      return new Case(seed, Family.KMEANS, label, n, engine -> {
        KMeansPartial got;
        try (KMeansUpdater u = new KMeansUpdater(engine, k, dims, KMeansOptions.defaults()
            .withPointsPerTransaction(ppt).withThreadsPerBlock(tpb))) {
          got = u.update(points, centroids);
        }
        KMeansPartial want = KMeansUpdater.sequential(points, dims, centroids);
        List<String> problems = new ArrayList<>();
        compareSums(want.sums(), want.counts(), got, dims, problems);
        if (got.commits() != got.transactions()) {
          problems.add(got.transactions() + " transactions but " + got.commits() + " commits");
        }
        return new Check(got.transactions(), got.commits(), 0, 0, problems);
      });
    }
    int[] assign = new int[n];
    for (int p = 0; p < n; p++) {
      assign[p] = rnd.nextInt(k);
    }
    TxBatch batch = KMeansWorkload.batch(assign, k, dims, ppt, capacity, tpb);
    How how = how(rnd);
    StoreLayout layout = KMeansWorkload.layout(n, dims, k);
    String label = "batch: " + n + " points x " + dims + " dims, k=" + k + ", " + ppt
        + " points per transaction, slices of " + capacity + ", " + tpb + " threads per block"
        + how.label;
    return new Case(seed, Family.KMEANS, label, batch.txCount(), engine -> {
      long[] pts = new long[points.length];
      for (int i = 0; i < pts.length; i++) {
        pts[i] = Double.doubleToRawLongBits(points[i]);
      }
      Run run = run(engine, layout, Algorithm.prStm(),
          new long[][] {new long[k * (dims + 1)], pts, int32Bits(assign)}, batch, how,
          b -> KMeansPrograms.batch(b, KMeansPrograms.set(b, ppt, how.builder())),
          RunOptions.defaults().withHistory(true));
      Checks checks = new Checks(run);
      for (int t = 0; t < batch.txCount(); t++) {
        if (run.stats().outcome(t) != Outcome.COMMITTED) {
          checks.add("transaction " + t + " ended " + run.stats().outcome(t));
          break;
        }
      }
      double[] sums = new double[k * dims];
      long[] counts = new long[k];
      for (int p = 0; p < assign.length; p++) {
        counts[assign[p]]++;
        for (int d = 0; d < dims; d++) {
          sums[assign[p] * dims + d] += points[p * dims + d];
        }
      }
      long[] acc = run.after()[0];
      for (int c = 0; c < k && checks.problems.size() < 10; c++) {
        double count = Double.longBitsToDouble(acc[c * (dims + 1)]);
        if (count != counts[c]) {
          checks.add("centroid " + c + ": count " + count + ", sequential " + counts[c]);
        }
        for (int d = 0; d < dims; d++) {
          double got = Double.longBitsToDouble(acc[c * (dims + 1) + 1 + d]);
          double want = sums[c * dims + d];
          if (!close(got, want)) {
            checks.add("centroid " + c + " dim " + d + ": sum " + got + ", sequential " + want);
          }
        }
      }
      checks.history();
      return checks.done();
    });
  }

  private static void compareSums(double[] sums, long[] counts, KMeansPartial got, int dims,
      List<String> problems) {
    for (int c = 0; c < counts.length && problems.size() < 10; c++) {
      if (got.counts()[c] != counts[c]) {
        problems.add("centroid " + c + ": count " + got.counts()[c] + ", sequential "
            + counts[c]);
      }
      for (int d = 0; d < dims; d++) {
        if (!close(got.sums()[c * dims + d], sums[c * dims + d])) {
          problems.add("centroid " + c + " dim " + d + ": sum " + got.sums()[c * dims + d]
              + ", sequential " + sums[c * dims + d]);
        }
      }
    }
  }

  /** Equal up to the rounding of a different order of additions. */
  private static boolean close(double got, double want) {
    return Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
  }

  /** A Zipfian cache of GETs and PUTs on a CSMV store. */
  private static Case memcached(long seed, SplittableRandom rnd) {
    int ways = 1 << rnd.nextInt(5);
    int sets = logUniform(rnd, 1, 512);
    int keys = logUniform(rnd, 1, 4 * sets * ways);
    double gets = new double[] {0.5, 0.9, 0.998, rnd.nextDouble()}[rnd.nextInt(4)];
    double theta = rnd.nextDouble(0, 1.2);
    int[] g = grid(rnd, 8192, true);
    MemcachedConfig cfg = MemcachedConfig.builder().sets(sets).ways(ways).keys(keys)
        .getFraction(gets).zipfTheta(theta).grid(g[0], g[1]).txPerThread(g[2]).seed(rnd.nextLong())
        .build();
    return memcached(seed, cfg, csmv(rnd));
  }

  /** {@code cfg}'s batch on a CSMV store of {@code alg}: the verifier and the history checker. */
  public static Case memcached(long seed, MemcachedConfig cfg, Algorithm alg) {
    TxBatch batch = cfg.batch();
    String label = cfg.sets() + " sets x " + cfg.ways() + " ways, " + cfg.keys() + " keys, "
        + Math.round(cfg.getFraction() * 1000) / 10.0 + "% GETs, zipf "
        + Math.round(cfg.zipfTheta() * 100) / 100.0 + ", "
        + gridText(cfg.threadsPerBlock(), cfg.blocks(), cfg.txPerThread()) + ", " + alg.label();
    return new Case(seed, Family.MEMCACHED, label, batch.txCount(), engine -> {
      int[][] initial = cfg.initialState();
      long[][] init = new long[initial.length][];
      for (int r = 0; r < initial.length; r++) {
        init[r] = int32Bits(initial[r]);
      }
      Run run = run(engine, cfg.layout(), alg, init, batch, How.HAND_WRITTEN, null,
          RunOptions.defaults().withHistory(true));
      Checks checks = new Checks(run);
      int[][] after = new int[initial.length][];
      for (int r = 0; r < initial.length; r++) {
        after[r] = int32Values(run.after()[r]);
      }
      Verdict v = MemcachedVerifier.verify(initial, batch, run.stats(), after);
      checks.verdict("verifier", v.ok(), v);
      checks.history();
      return checks.done();
    });
  }

  /**
   * Random transaction programs over a random store (PR-STM, GPU-STM or a Cederman STM, or
   * CSMV-shaped on CSMV).
   */
  private static Case randomPrograms(long seed, SplittableRandom rnd) {
    int roll = rnd.nextInt(6);
    boolean csmv = roll < 2;
    Algorithm alg = csmv ? csmv(rnd) : roll < 4 ? Algorithm.prStm() : lockTable(rnd);
    int[] g = grid(rnd, 4096, csmv);
    int n = g[0] * g[1] * g[2];
    RandomPrograms.Case c = RandomPrograms.generate(rnd.nextLong(), n, g[0], g[1], false, csmv);
    String label = c.programs().size() + " program(s) " + c.programs().programs().stream()
        .map(p -> p.name()).toList() + " over " + c.layout().regionCount() + " region(s), "
        + gridText(g) + ", " + alg.label() + " (generator " + c + ")";
    return new Case(seed, Family.RANDOM_PROGRAMS, label, n, engine -> {
      // A program's retry may wait for nothing: a few semantic conflicts end it.
      Run run = run(engine, c.layout(), alg, c.initial(), c.batch(),
          RunOptions.defaults().withSemanticLimit(4).withHistory(true));
      Checks checks = new Checks(run);
      for (int t = 0; t < n; t++) {
        if (run.stats().outcome(t) == Outcome.TOO_LARGE) {
          checks.add("transaction " + t + " ended TOO_LARGE, beyond what the checker bounded");
          break;
        }
      }
      checks.history();
      return checks.done();
    });
  }

  // ---- running and checking ---------------------------------------------------------------

  /**
   * What one run left: the statistics, the program result (for the replay) or null, and the
   * store before and after, as register bits.
   */
  record Run(BatchResult stats, ProgramResult programs, StoreLayout layout, long[][] before,
      long[][] after, boolean historyAsked) {}

  /**
   * {@code options}, without the history where the engine records none: the CUDA CSMV kernel
   * (its batches are checked by the verifiers alone).
   */
  static RunOptions supported(Engine engine, Algorithm alg, RunOptions options) {
    return alg.isCsmv() && engine instanceof CudaEngine ? options.withHistory(false) : options;
  }

  /** Runs {@code batch} hand-written, or converted to programs with {@code converter}. */
  private static Run run(Engine engine, StoreLayout layout, Algorithm alg, long[][] initial,
      TxBatch batch, How how, Function<TxBatch, ProgramBatch> converter, RunOptions options) {
    if (how.programs()) {
      return run(engine, layout, alg, initial, converter.apply(batch), options);
    }
    RunOptions o = supported(engine, alg, options);
    try (TxStore store = engine.createStore(layout, alg)) {
      StoreContents.write(store, initial);
      BatchResult r = engine.run(store, batch, o);
      return new Run(r, null, layout, initial, StoreContents.read(store), o.history());
    }
  }

  private static Run run(Engine engine, StoreLayout layout, Algorithm alg, long[][] initial,
      ProgramBatch batch, RunOptions options) {
    RunOptions o = supported(engine, alg, options);
    try (TxStore store = engine.createStore(layout, alg)) {
      StoreContents.write(store, initial);
      ProgramResult r = engine.run(store, batch, o);
      return new Run(r.stats(), r, layout, initial, StoreContents.read(store), o.history());
    }
  }

  /** The checks of one run, collected. */
  private static final class Checks {
    final Run run;
    final List<String> problems = new ArrayList<>();

    Checks(Run run) {
      this.run = run;
    }

    void add(String problem) {
      problems.add(problem);
    }

    void verdict(String what, boolean ok, Object verdict) {
      if (!ok) {
        problems.add(what + ": " + verdict);
      }
    }

    /**
     * The history checker, and for programs the exact serial replay; returns the serial order,
     * or null when there is none (a violation, or no history).
     */
    int[] history() {
      if (run.stats().history() == null) {
        if (run.historyAsked()) {
          problems.add("no history was recorded");
        }
        return null;
      }
      HistoryChecker.Verdict h = HistoryChecker.check(run.stats().history());
      if (!h.serializable()) {
        problems.add("history checker: " + h.violations());
        return null;
      }
      if (run.programs() != null) {
        Verdict replay = ProgramReplay.verify(run.programs(), run.layout(),
            run.before(), run.after(), h.serialOrder());
        verdict("program replay", replay.ok(), replay);
      }
      return h.serialOrder();
    }

    /**
     * {@link #history()}, then, where it gave a serial order, the workload's own serial replay
     * along it ({@code what} names it in a problem); the check.
     */
    Check doneAfterReplay(String what, Function<int[], Verdict> replay) {
      int[] order = history();
      if (order != null) {
        Verdict v = replay.apply(order);
        verdict(what, v.ok(), v);
      }
      return done();
    }

    Check done() {
      long committed = 0;
      long abandoned = 0;
      long semantic = 0;
      for (byte o : run.stats().outcomes()) {
        committed += o == Outcome.COMMITTED.code() ? 1 : 0;
        abandoned += o == Outcome.ABANDONED.code() ? 1 : 0;
        semantic += o == Outcome.ABANDONED_SEMANTIC.code() ? 1 : 0;
      }
      return new Check(run.stats().outcomes().length, committed, abandoned, semantic,
          List.copyOf(problems));
    }
  }
}
