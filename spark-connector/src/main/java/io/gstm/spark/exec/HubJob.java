package io.gstm.spark.exec;

import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;

/**
 * The Spark job of a loop that runs inside one stage ({@link TaskHub}): started in the
 * background in a job group of its own while the driver talks to its tasks, closing the hub if
 * it fails (so the driver's loop wakes), and cancelled when the loop ends early. {@link #failed}
 * sorts out why a loop broke off.
 */
public final class HubJob implements AutoCloseable {
  private final SparkContext sc;
  private final String group;
  private final ExecutorService thread;
  private final CompletableFuture<Object> job;

  private HubJob(SparkContext sc, String group, ExecutorService thread,
      CompletableFuture<Object> job) {
    this.sc = sc;
    this.group = group;
    this.thread = thread;
    this.job = job;
  }

  /**
   * Starts {@code run} (a {@code runJob} of the loop's stage) in job group {@code group}; if it
   * fails, {@code hub} is closed.
   */
  public static HubJob start(SparkContext sc, Closeable hub, String group, String description,
      Supplier<Object> run) {
    ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, group);
      t.setDaemon(true);
      return t;
    });
    CompletableFuture<Object> job = CompletableFuture.supplyAsync(() -> {
      sc.setJobGroup(group, description, true);
      return run.get();
    }, thread);
    job.whenComplete((r, e) -> {
      if (e != null) {
        try {
          hub.close(); // wakes the driver's loop, which then asks failed() why
        } catch (IOException ignored) {
          // closing
        }
      }
    });
    return new HubJob(sc, group, thread, job);
  }

  /** The job, to wait for or to ask whether it ended. */
  public CompletableFuture<Object> future() {
    return job;
  }

  /** The job's result, once its tasks are done. */
  public Object join() {
    return job.join();
  }

  /**
   * After the driver's loop broke off with {@code e} (a task's connection dropped, or the job
   * failed): closes {@code hub} (releasing the other tasks) and cancels the job; rethrows {@code
   * e} when it is the driver's own error (tasks that did not start), and the tasks' bad input
   * or lost GPU context as {@link TaskErrors#badInput} gives it. Otherwise returns the job's
   * failure (null when there was none): a task lost with its executor, which starting over
   * may fix.
   */
  public Throwable failed(Exception e, Closeable hub) {
    try {
      hub.close();
    } catch (IOException ignored) {
      // closing
    }
    sc.cancelJobGroup(group);
    if (!(e instanceof IOException) && !(e instanceof CompletionException)) {
      throw (RuntimeException) e;
    }
    Throwable failed = TaskErrors.failureOf(job);
    if (failed != null && TaskErrors.badInputOrFatal(failed)) {
      throw TaskErrors.badInput(failed instanceof Exception x ? x : new RuntimeException(failed));
    }
    return failed;
  }

  /** Lets the job's thread go once the job ends; cancels the job if it has not ended. */
  @Override
  public void close() {
    job.whenComplete((r, e) -> thread.shutdown());
    if (!job.isDone()) {
      sc.cancelJobGroup(group); // tasks not started yet; the others' sockets are closed
    }
  }
}
