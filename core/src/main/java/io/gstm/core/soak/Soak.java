package io.gstm.core.soak;

import io.gstm.core.engine.Engine;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs randomized batches ({@link SoakCases}) on one engine until a time is up, checking every
 * one, and sums up what was checked, what failed and how much heap it took. Batch {@code i}
 * is drawn from {@link #batchSeed(long, long) batchSeed(seed, i)}, so a violation is reproduced
 * from its batch seed alone ({@link SoakCases#draw}).
 */
public final class Soak {
  /** Violations kept verbatim in the summary. */
  public static final int MAX_REPORTED = 20;
  /** How often the heap left after a full collection is sampled. */
  public static final int LIVE_SAMPLE_SECONDS = 30;

  private Soak() {}

  /**
   * What to run.
   *
   * @param duration how long to start new batches (the last one runs to its end)
   * @param seed the run's seed
   * @param maxBatches stop after this many batches even if time is left
   * @param families the workload families to draw from; drawn batches of others are skipped
   * @param batchTimeout a batch running longer is a violation (a hang) and ends the soak
   */
  public record Settings(Duration duration, long seed, long maxBatches,
      Set<SoakCases.Family> families, Duration batchTimeout) {
    public Settings {
      if (duration == null || duration.isNegative()) {
        throw new IllegalArgumentException("duration must be zero or more, got " + duration);
      }
      if (maxBatches < 1) {
        throw new IllegalArgumentException("batches must be at least 1, got " + maxBatches);
      }
      if (families == null || families.isEmpty()) {
        throw new IllegalArgumentException("families: at least one workload family is needed");
      }
      if (batchTimeout == null || batchTimeout.isNegative() || batchTimeout.isZero()) {
        throw new IllegalArgumentException("batchTimeout must be positive, got " + batchTimeout);
      }
    }
  }

  /** Called after every batch, on the soak's thread. */
  public interface Listener {
    void batchDone(long index, SoakCases.Case batch, SoakCases.Check check, Summary sofar);
  }

  /**
   * What a soak did.
   *
   * @param seed the run's seed
   * @param elapsed wall time
   * @param counts batches and transactions checked, and what became of them
   * @param perFamily batches and transactions per family
   * @param violations the first {@value #MAX_REPORTED} violations, each with its batch seed
   * @param heap heap use seen during the soak
   * @param slowest the longest batch, with its checks
   */
  public record Summary(long seed, Duration elapsed, Counts counts,
      Map<SoakCases.Family, long[]> perFamily, List<String> violations, Heap heap,
      Slowest slowest) {
    public boolean ok() {
      return counts.violated() == 0;
    }
  }

  /**
   * What the checked batches held.
   *
   * @param batches batches checked
   * @param transactions transactions checked
   * @param committed of them, committed
   * @param abandoned of them, abandoned at the concurrency retry limit (not a violation)
   * @param abandonedSemantic of them, abandoned at the semantic limit (not a violation)
   * @param violated batches with at least one violation
   */
  public record Counts(long batches, long transactions, long committed, long abandoned,
      long abandonedSemantic, long violated) {}

  /**
   * Heap use, in bytes: a leak makes {@code lastLive} grow over a long soak.
   *
   * @param maxUsed the most heap in use seen after a batch
   * @param firstLive heap in use after a full collection once the first batch is done (sampled
   *     every {@value #LIVE_SAMPLE_SECONDS} s and at the end)
   * @param lastLive the same at the end
   * @param maxLive the most of these samples
   * @param limit the heap's maximum (-1 if undefined)
   */
  public record Heap(long maxUsed, long firstLive, long lastLive, long maxLive, long limit) {}

  /**
   * The longest batch.
   *
   * @param nanos its time, with its checks
   * @param seed its batch seed
   */
  public record Slowest(long nanos, long seed) {}

  /** The seed of batch {@code index} of a soak seeded {@code seed} (a SplitMix64 step). */
  public static long batchSeed(long seed, long index) {
    long z = seed + (index + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** Runs the soak on {@code engine} (the caller closes it). */
  public static Summary run(Engine engine, Settings settings, Listener listener) {
    Totals totals = new Totals(settings.seed());
    long start = System.nanoTime();
    long end = start + settings.duration().toNanos();
    ExecutorService runner = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "gstm-soak");
      t.setDaemon(true);
      return t;
    });
    try {
      long drawn = 0;
      while (totals.batches < settings.maxBatches() && System.nanoTime() < end) {
        long seed = batchSeed(settings.seed(), drawn++);
        SoakCases.Case c = SoakCases.draw(seed);
        if (!settings.families().contains(c.family())) {
          continue;
        }
        if (!runOne(engine, c, settings.batchTimeout(), runner, totals, listener, start)) {
          break;
        }
      }
    } finally {
      runner.shutdownNow();
    }
    totals.sampleLive();
    return totals.summary(System.nanoTime() - start);
  }

  /** Runs the single batch of {@code batchSeed} (to reproduce a violation). */
  public static Summary runBatch(Engine engine, long batchSeed, Duration timeout,
      Listener listener) {
    Totals totals = new Totals(batchSeed);
    long start = System.nanoTime();
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      runOne(engine, SoakCases.draw(batchSeed), timeout, runner, totals, listener, start);
    } finally {
      runner.shutdownNow();
    }
    return totals.summary(System.nanoTime() - start);
  }

  /** Runs one batch with a watchdog; false when it hung (the soak must stop). */
  private static boolean runOne(Engine engine, SoakCases.Case c, Duration timeout,
      ExecutorService runner, Totals totals, Listener listener, long start) {
    long t0 = System.nanoTime();
    Future<SoakCases.Check> f = runner.submit(() -> c.run(engine));
    SoakCases.Check check;
    boolean finished = true;
    try {
      check = f.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      f.cancel(true);
      check = new SoakCases.Check(c.transactions(), 0, 0, 0, List.of("did not finish within "
          + timeout.toSeconds() + " s (a hang?)"));
      finished = false;
    } catch (ExecutionException e) {
      check = new SoakCases.Check(c.transactions(), 0, 0, 0,
          List.of("threw " + e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("soak interrupted", e);
    }
    totals.add(c, check, System.nanoTime() - t0);
    if (listener != null) {
      listener.batchDone(totals.batches - 1, c, check, totals.summary(System.nanoTime() - start));
    }
    return finished;
  }

  /** Running sums. */
  private static final class Totals {
    final long seed;
    long batches;
    long transactions;
    long committed;
    long abandoned;
    long abandonedSemantic;
    long violated;
    final Map<SoakCases.Family, long[]> perFamily = new EnumMap<>(SoakCases.Family.class);
    final List<String> violations = new ArrayList<>();
    long maxUsed;
    long firstLive = -1;
    long lastLive = -1;
    long maxLive = -1;
    long lastSample;
    long slowest;
    long slowestSeed;

    Totals(long seed) {
      this.seed = seed;
    }

    void add(SoakCases.Case c, SoakCases.Check check, long nanos) {
      batches++;
      transactions += check.transactions();
      committed += check.committed();
      abandoned += check.abandoned();
      abandonedSemantic += check.abandonedSemantic();
      long[] f = perFamily.computeIfAbsent(c.family(), x -> new long[2]);
      f[0]++;
      f[1] += check.transactions();
      if (!check.ok()) {
        violated++;
        if (violations.size() < MAX_REPORTED) {
          violations.add(c + ": " + String.join("; ", check.violations()));
        }
      }
      if (nanos > slowest) {
        slowest = nanos;
        slowestSeed = c.seed();
      }
      maxUsed = Math.max(maxUsed, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage()
          .getUsed());
      if (firstLive < 0 || System.nanoTime() - lastSample > LIVE_SAMPLE_SECONDS * 1_000_000_000L) {
        sampleLive();
      }
    }

    /** The heap in use after a full collection (what the soak keeps live). */
    void sampleLive() {
      System.gc();
      long live = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      lastSample = System.nanoTime();
      if (firstLive < 0) {
        firstLive = live;
      }
      lastLive = live;
      maxLive = Math.max(maxLive, live);
    }

    Summary summary(long elapsedNanos) {
      Map<SoakCases.Family, long[]> families = new EnumMap<>(SoakCases.Family.class);
      perFamily.forEach((k, v) -> families.put(k, v.clone()));
      return new Summary(seed, Duration.ofNanos(elapsedNanos),
          new Counts(batches, transactions, committed, abandoned, abandonedSemantic, violated),
          families, List.copyOf(violations),
          new Heap(maxUsed, firstLive, lastLive, maxLive,
              ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax()),
          new Slowest(slowest, slowestSeed));
    }
  }
}
