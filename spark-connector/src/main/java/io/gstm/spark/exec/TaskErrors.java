package io.gstm.spark.exec;

import io.gstm.core.cuda.CudaFatalException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.SparkThrowable;

/**
 * Bad input found by a task reaches the driver wrapped in a SparkException (a job failure):
 * the operations rethrow it as the IllegalArgumentException it was, with its message, so that
 * a caller sees the same error whether a check ran on the driver or in a task. A lost CUDA
 * context comes back the same way, as the {@link CudaFatalException} it was.
 */
public final class TaskErrors {
  private TaskErrors() {}

  /**
   * The first {@link CudaFatalException} or else IllegalArgumentException among {@code e}'s
   * causes, as one thrown here (the job failure kept as its cause); otherwise {@code e} itself,
   * thrown as it is, checked or not.
   */
  public static RuntimeException badInput(Exception e) {
    CudaFatalException fatal = fatalIn(e);
    if (fatal != null) {
      return fatal == e ? fatal : new CudaFatalException(fatal.getMessage(), e);
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException bad) {
        return t == e ? bad : new IllegalArgumentException(bad.getMessage(), e);
      }
    }
    return TaskErrors.<RuntimeException>rethrow(e);
  }

  /** The lost-context error among {@code e}'s causes, or null. */
  public static CudaFatalException fatalIn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof CudaFatalException fatal) {
        return fatal;
      }
    }
    return null;
  }

  /**
   * Why {@code e} failed when a block of a locally checkpointed RDD is gone because the executor
   * that held it was lost (the one thing Spark cannot recompute: a local checkpoint has no
   * lineage): the first line of that error ("Checkpoint block rdd_7_2 not found!"); else null.
   * An iterative operation that checkpoints its steps so can start over.
   */
  public static String lostCheckpoint(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SparkThrowable s
          && "CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND".equals(s.getCondition())) {
        return t.getMessage().lines().findFirst().orElse("");
      }
    }
    return null;
  }

  /**
   * Whether {@code t} is a task's bad input (an IllegalArgumentException among its causes) or a
   * lost GPU context: a failure that starting over would only meet again.
   */
  public static boolean badInputOrFatal(Throwable t) {
    if (fatalIn(t) != null) {
      return true;
    }
    for (; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The failure of a job run in the background once it has ended (waiting up to a minute), or
   * null (it succeeded, or did not end in time).
   */
  public static Throwable failureOf(Future<?> job) {
    try {
      job.get(60, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Exception> T rethrow(Exception e) throws T {
    throw (T) e;
  }
}
