package io.gstm.benchmarks;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.bank.BankWorkload;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import scala.concurrent.stm.Ref;
import scala.concurrent.stm.japi.STM;

/**
 * The bank's transfers on ScalaSTM (its Java API): one {@code Ref} per account, each transfer an
 * {@code STM.atomic} block that reads its k balances and writes them, as {@link BankWorkload}
 * does. Thread {@code w} of {@code threads} runs transactions {@code w, w + threads, ...}: the
 * same share as the gstm JVM engine's worker {@code w} when its logical thread count is a
 * multiple of {@code threads}. The caller closes it.
 */
public final class ScalaStmBank implements AutoCloseable {
  private final int threads;
  private final ExecutorService pool;

  /**
   * What one batch did.
   *
   * @param nanos wall time from the threads' start to the last one's end
   * @param commits committed transactions (every one: ScalaSTM retries until it commits)
   * @param attempts executions of the atomic blocks, retries included
   */
  public record Run(long nanos, long commits, long attempts) {
    public double txPerSecond() {
      return nanos == 0 ? 0 : commits * 1e9 / nanos;
    }

    /** Aborts per attempt, as gstm's {@code BatchResult.abortRate()} counts them. */
    public double abortRate() {
      return attempts == 0 ? 0 : (double) (attempts - commits) / attempts;
    }
  }

  public ScalaStmBank(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    this.threads = threads;
    this.pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "scalastm-bank");
      t.setDaemon(true);
      return t;
    });
  }

  /** One {@code Ref} per account, holding {@code initial}'s balances. */
  public static Ref.View<Integer>[] accounts(int[] initial) {
    @SuppressWarnings("unchecked")
    Ref.View<Integer>[] refs = new Ref.View[initial.length];
    for (int i = 0; i < refs.length; i++) {
      refs[i] = STM.newRef(initial[i]);
    }
    return refs;
  }

  /** The balances the refs hold (read once every thread is done). */
  public static int[] balances(Ref.View<Integer>[] refs) {
    int[] balances = new int[refs.length];
    for (int i = 0; i < refs.length; i++) {
      balances[i] = refs[i].get();
    }
    return balances;
  }

  /**
   * Runs the transfers of {@code batch} (a plain bank batch of transfers) on {@code refs}, the
   * accounts; only the threads' work is timed, as gstm's balances are loaded before its batch.
   */
  public Run run(TxBatch batch, Ref.View<Integer>[] refs) {
    if (!BankWorkload.NAME.equals(batch.workload())) {
      throw new IllegalArgumentException("batch: expected a bank batch, got " + batch.workload());
    }
    for (int type : batch.types()) {
      if (!BankWorkload.Type.TRANSFER.is(type)) {
        throw new IllegalArgumentException("batch: the ScalaSTM bank runs transfers only, found "
            + "type " + type);
      }
    }
    for (int c = 0; c < BankWorkload.k(batch); c++) {
      for (int a : batch.columns()[c]) {
        if (a < 0 || a >= refs.length) {
          throw new IllegalArgumentException("batch: account " + a + " out of range, refs has "
              + refs.length + " accounts");
        }
      }
    }
    int n = batch.txCount();
    CountDownLatch ready = new CountDownLatch(threads);
    List<Future<Long>> futures = new ArrayList<>();
    long start = System.nanoTime();
    for (int w = 0; w < threads; w++) {
      int first = w;
      futures.add(pool.submit(() -> {
        // One body per thread, reused: no closure allocated per transaction by this harness.
        Transfer body = new Transfer(refs, batch.columns(), BankWorkload.k(batch));
        ready.countDown();
        ready.await();
        for (int t = first; t < n; t += threads) {
          body.t = t;
          STM.atomic(body);
        }
        return body.attempts;
      }));
    }
    long attempts = 0;
    try {
      for (Future<Long> f : futures) {
        attempts += f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the ScalaSTM bank ran", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a ScalaSTM bank thread failed", e.getCause());
    }
    return new Run(System.nanoTime() - start, n, attempts);
  }

  /** A transfer, as {@code BankWorkload.run} does it: account 0 pays each other one. */
  private static final class Transfer implements Runnable {
    private final Ref.View<Integer>[] refs;
    private final int[][] cols;
    private final int k;
    int t;
    long attempts;

    Transfer(Ref.View<Integer>[] refs, int[][] cols, int k) {
      this.refs = refs;
      this.cols = cols;
      this.k = k;
    }

    @Override
    public void run() {
      attempts++;
      int amount = cols[k][t];
      int pays = amount * (k - 1);
      for (int j = 0; j < k; j++) {
        Ref.View<Integer> ref = refs[cols[j][t]];
        int v = ref.get();
        ref.set(v + (j == 0 ? -pays : amount));
      }
    }
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
