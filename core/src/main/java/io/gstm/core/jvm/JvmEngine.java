package io.gstm.core.jvm;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.GstmException;
import io.gstm.core.engine.LimitsReport;
import io.gstm.core.engine.OpenState;
import io.gstm.core.history.History;
import io.gstm.core.history.HistoryFlattener;
import io.gstm.core.program.Interpreter;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.CsmvChecks;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Workload;
import io.gstm.core.workload.Workloads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

/**
 * Runs the same algorithms as the CUDA engine on Java threads. The batch's GPU threads become
 * logical threads (their ids are the PR-STM priorities) spread over a few worker threads, each
 * advancing its logical threads one attempt at a time in turn ({@link JvmExecutor}).
 *
 * <p>An engine runs one batch at a time: a batch takes every worker (they start together on a
 * latch), so callers on several threads are served one after the other rather than splitting
 * the pool between them and waiting on each other for ever.
 */
public final class JvmEngine implements Engine {
  private final int workers;
  private final ExecutorService pool;
  private final OpenState open = new OpenState("engine");

  /** An engine with one worker per available processor; the caller closes it. */
  public JvmEngine() {
    this(Runtime.getRuntime().availableProcessors());
  }

  /** An engine with {@code workers} worker threads; the caller closes it. */
  public JvmEngine(int workers) {
    if (workers < 1) {
      throw new IllegalArgumentException("workers must be at least 1, got " + workers);
    }
    this.workers = workers;
    this.pool =
        Executors.newFixedThreadPool(
            workers,
            r -> {
              Thread t = new Thread(r, "gstm-jvm-worker");
              t.setDaemon(true);
              return t;
            });
  }

  @Override
  public String name() {
    return "jvm";
  }

  @Override
  public String device() {
    return "JVM " + Runtime.version().feature() + ", " + workers + " worker thread(s)";
  }

  @Override
  public TxStore createStore(StoreLayout layout) {
    open.check();
    return new JvmTxStore(this, layout);
  }

  /**
   * A store on the heap for {@code algorithm}: CSMV's own, else the lock table that PR-STM,
   * GPU-STM and Cederman's STMs share; the caller closes it.
   */
  @Override
  public TxStore createStore(StoreLayout layout, Algorithm algorithm) {
    open.check();
    return algorithm.isCsmv() ? new JvmCsmvStore(this, layout, algorithm)
        : new JvmTxStore(this, layout, algorithm);
  }

  @Override
  public synchronized BatchResult run(TxStore txStore, TxBatch batch, RunOptions options) {
    open.check();
    Workload workload = Workloads.of(batch);
    if (txStore instanceof JvmCsmvStore mv && mv.engine() == this) {
      mv.checkOpen();
      workload.validate(mv.layout(), batch);
      CsmvChecks.validate(workload, batch);
      // The batch's set capacity bounds PR-STM's sets, not CSMV's: the history must keep every
      // write and every read of an update transaction, or it names versions nobody produced.
      int historyEntries = Math.max(batch.capacity(), Math.max(CsmvChecks.MAX_WRITES,
          CsmvChecks.maxUpdateReads(workload, batch)));
      BatchOutputs out = new BatchOutputs(batch.txCount(), historyEntries, options.history());
      return runCsmv(mv, w -> TxBody.of(workload, batch), batch.threads(), out, options);
    }
    JvmTxStore store = prStmStore(txStore);
    workload.validate(store.layout(), batch);
    BatchOutputs out = new BatchOutputs(batch.txCount(), batch.capacity(), options.history());
    return runPrStm(store, w -> TxBody.of(workload, batch), batch.threads(), out, options);
  }

  /** Runs a batch of transaction programs (see {@link Engine#run(TxStore, ProgramBatch, RunOptions)}). */
  @Override
  public synchronized ProgramResult run(TxStore txStore, ProgramBatch batch, RunOptions options) {
    open.check();
    int n = batch.txCount();
    long[] outputs = new long[Math.max(1, batch.programs().maxOutputs()) * n];
    int[] codes = new int[n];
    BatchResult stats;
    if (txStore instanceof JvmCsmvStore mv && mv.engine() == this) {
      mv.checkOpen();
      ProgramBinding binding = ProgramBinding.bind(batch, mv.layout(), mv.algorithm());
      // A CSMV program may read more words than PR-STM's sets hold: the history keeps them all.
      BatchOutputs out = new BatchOutputs(n,
          Math.max(binding.capacity(), binding.csmvReadCapacity()), options.history());
      stats = runCsmv(mv, w -> TxBody.of(new Interpreter(binding, outputs, codes)),
          batch.threads(), out, options);
    } else {
      JvmTxStore store = prStmStore(txStore);
      ProgramBinding binding = ProgramBinding.bind(batch, store.layout(), store.algorithm());
      BatchOutputs out = new BatchOutputs(n, binding.capacity(), options.history());
      stats = runPrStm(store, w -> TxBody.of(new Interpreter(binding, outputs, codes)),
          batch.threads(), out, options);
    }
    return new ProgramResult(stats, batch, outputs, codes);
  }

  private JvmTxStore prStmStore(TxStore txStore) {
    if (!(txStore instanceof JvmTxStore store) || store.engine() != this) {
      throw new IllegalArgumentException("store: belongs to another engine");
    }
    store.checkOpen();
    return store;
  }

  private BatchResult runPrStm(JvmTxStore store, IntFunction<TxBody> bodies, int threads,
      BatchOutputs out, RunOptions options) {
    long[][] perWorker = new long[workers][Counter.COUNT];
    int[] initialVersions = options.history() ? store.lockVersions() : null;
    store.arm();
    Quiescence quiescence = new Quiescence(threads, out.outcomes.length);
    // The obstruction-free STM's public descriptors: one per worker, which runs one attempt at
    // a time; after a failure the locks they hold go back to their versions before the restore.
    OfDescriptors descriptors = store.algorithm().kind() == Algorithm.Kind.OBSTRUCTION_FREE
        ? new OfDescriptors(workers, out.capacity) : null;
    long kernelNanos;
    try {
      kernelNanos = runWorkers(worker -> {
        JvmTx tx = switch (store.algorithm().kind()) {
          case GPU_STM -> new JvmGpuStmTx(store, out.capacity);
          case BLOCKING -> new JvmBlockingTx(store, out.capacity);
          case OBSTRUCTION_FREE -> new JvmObstructionFreeTx(store, out.capacity, descriptors,
              worker);
          default -> new JvmPrStmTx(store, out.capacity);
        };
        new JvmExecutor(bodies.apply(worker), threads, options, tx, perWorker[worker], out,
            quiescence).run(worker, workers);
      }, store::stop, () -> {
        if (descriptors != null) {
          descriptors.releaseAll(store.locks);
        }
        store.restore();
      });
    } finally {
      store.disarm();
    }
    return result(out, sum(perWorker), initialVersions, kernelNanos, new long[0]);
  }

  private BatchResult runCsmv(JvmCsmvStore store, IntFunction<TxBody> bodies, int threads,
      BatchOutputs out, RunOptions options) {
    long[] stamps = new long[out.outcomes.length];
    long[][] perWorker = new long[workers][Counter.COUNT];
    int[] initialVersions = options.history() ? store.lockVersions() : null;
    JvmCsmvStore.Snapshot snapshot = store.snapshot();
    long kernelNanos = runWorkers(worker ->
        new JvmCsmvRunner(store, bodies.apply(worker), threads, options, perWorker[worker], out,
            stamps).run(worker, workers),
        () -> { }, () -> store.restore(snapshot));
    return result(out, sum(perWorker), initialVersions, kernelNanos, stamps);
  }

  private BatchResult result(BatchOutputs out, long[] counters, int[] initialVersions,
      long kernelNanos, long[] stamps) {
    History history = null;
    if (out.history()) {
      history = HistoryFlattener.committed(initialVersions, out.outcomes, out.histCounts,
          out.histReads, out.histWrites, out.capacity);
    }
    return BatchResult.builder(name(), out.outcomes).counters(counters).results(out.results)
        .semanticConflicts(out.semanticConflicts).history(history).timings(0, kernelNanos, 0)
        .stamps(stamps).build();
  }

  int workers() {
    return workers;
  }

  /**
   * Runs {@code body} once per worker index on the workers (a {@link JvmGraphRelax} round);
   * returns the elapsed time. If a worker fails, the store's locks are released and the failure
   * is rethrown.
   */
  synchronized long runOnWorkers(JvmTxStore store, IntConsumer body) {
    open.check();
    if (store.engine() != this) {
      throw new IllegalArgumentException("store: belongs to another engine");
    }
    store.checkOpen();
    try {
      return runWorkers(body, store::stop, store::unlockAll);
    } finally {
      store.resume();
    }
  }

  /**
   * Runs {@code body} for every worker index, the workers starting together so that they really
   * overlap even on small batches; returns the elapsed time. If a worker fails or the caller is
   * interrupted, {@code stop} asks the others to end (a PR-STM store makes their next
   * transaction throw), every worker is waited for until none can still write, {@code restore}
   * puts the store back, and the failure is rethrown (an IllegalArgumentException from a
   * transaction body stays one).
   */
  private long runWorkers(IntConsumer body, Runnable stop, Runnable restore) {
    CountDownLatch ready = new CountDownLatch(workers);
    long start = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int worker = w;
      futures.add(pool.submit(() -> {
        ready.countDown();
        ready.await();
        body.accept(worker);
        return null;
      }));
    }
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (InterruptedException | ExecutionException e) {
      stop.run();
      // Not cancel: a cancelled future's get() returns at once, while its worker may still be
      // committing; the store is put back only once every worker has returned.
      boolean interrupted = e instanceof InterruptedException;
      for (Future<?> f : futures) {
        interrupted |= awaitUninterruptibly(f);
      }
      restore.run();
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
      if (e.getCause() instanceof IllegalArgumentException bad) {
        throw new IllegalArgumentException(bad.getMessage() + " (the store was restored)", bad);
      }
      throw new GstmException("batch failed; the store was restored to its state before it", e);
    }
    return System.nanoTime() - start;
  }

  /** Waits until {@code f} is done, however it ends; returns whether an interrupt came. */
  private static boolean awaitUninterruptibly(Future<?> f) {
    boolean interrupted = false;
    while (true) {
      try {
        f.get();
        return interrupted;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException | java.util.concurrent.CancellationException e) {
        return interrupted;
      }
    }
  }

  private static long[] sum(long[][] perWorker) {
    long[] counters = new long[Counter.COUNT];
    for (long[] c : perWorker) {
      for (int i = 0; i < counters.length; i++) {
        counters[i] += c[i];
      }
    }
    return counters;
  }

  private static void awaitQuiet(List<Future<?>> futures) {
    for (Future<?> f : futures) {
      try {
        f.get();
      } catch (Exception ignored) {
        // already failing; we only wait so that no worker still writes to the store
      }
    }
  }

  @Override
  public synchronized LimitsReport probeLimits(int words) {
    open.check();
    if (words < 1) {
      throw new IllegalArgumentException("words must be at least 1, got " + words);
    }
    AtomicIntegerArray data = new AtomicIntegerArray(words);
    long ops = Math.max(2_000_000L, 4L * words);
    double cas = measure(ops, (i, idx) -> {
      int v = data.get(idx);
      data.compareAndSet(idx, v, v + 1);
    }, words);
    double add = measure(ops, (i, idx) -> data.getAndAdd(idx, 1), words);
    double dep = measure(ops, null, words, data);
    return new LimitsReport(device(), words, cas, add, dep);
  }

  private interface Op {
    void apply(long i, int idx);
  }

  private double measure(long ops, Op op, int words) {
    return measure(ops, op, words, null);
  }

  /** Runs {@code ops} random operations spread over the workers; returns operations per second. */
  private double measure(long ops, Op op, int words, AtomicIntegerArray chain) {
    long per = ops / workers;
    List<Future<?>> futures = new ArrayList<>();
    long start = System.nanoTime();
    for (int w = 0; w < workers; w++) {
      int seed = w;
      futures.add(pool.submit(() -> {
        int idx = Math.floorMod(mix(seed), words);
        for (long i = 0; i < per; i++) {
          if (chain == null) {
            op.apply(i, Math.floorMod(mix((int) i * 0x9E3779B9 + seed), words));
          } else {
            idx = Math.floorMod(mix(chain.get(idx) + (int) i), words);
          }
        }
        return idx;
      }));
    }
    awaitQuiet(futures);
    return per * workers * 1e9 / (System.nanoTime() - start);
  }

  private static int mix(int x) {
    x ^= x >>> 16;
    x *= 0x7feb352d;
    x ^= x >>> 15;
    x *= 0x846ca68b;
    x ^= x >>> 16;
    return x;
  }

  @Override
  public void close() {
    open.close();
    pool.shutdownNow();
  }
}
