package io.gstm.spark.exec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.apache.spark.TaskContext;

/**
 * A test's way to kill an executor in the middle of a task, deterministically (the cluster
 * suite's executor-loss tests). Off unless the executor JVM has the system property
 * {@value #DIR_PROPERTY} (a folder the test shares with it, given through
 * {@code spark.executor.extraJavaOptions}). The test arms a point by creating
 * {@code DIR/arm-POINT-PARTITION}; the first task to pass that point in that partition takes
 * the file (deletes it, so a retry passes on), writes {@code DIR/held-POINT-PARTITION} with its
 * process id and executor id, and waits there to be killed: its JVM by the test, or the task by
 * Spark (an aborted or cancelled stage), whichever comes first.
 */
public final class TaskHold {
  /** The executor JVM's system property naming the folder of arm and held files. */
  public static final String DIR_PROPERTY = "gstm.test.holdDir";
  /** How long a held task waits for the kill before it fails. */
  static final long WAIT_SECONDS = 120;
  /** How often a held task looks whether it was killed. */
  private static final long POLL_MILLIS = 20;

  private TaskHold() {}

  /** Holds the calling task here when the test armed {@code point} for {@code partition}. */
  public static void at(String point, int partition) {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null) {
      return;
    }
    String name = point + "-" + partition;
    Path folder = Path.of(dir);
    try {
      Files.delete(folder.resolve("arm-" + name));
    } catch (NoSuchFileException e) {
      return; // not armed, or another attempt took it
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String line = ProcessHandle.current().pid() + " " + ThisExecutor.id() + "\n";
    try {
      Path tmp = Files.writeString(folder.resolve(".held-" + name), line);
      Files.move(tmp, folder.resolve("held-" + name), StandardCopyOption.ATOMIC_MOVE);
      // An aborted or cancelled stage kills its tasks without an interrupt (unless their job
      // group asked for one): the kill flag is looked at here, else the held task would keep its executor's
      // core for the whole wait and the next test's tasks would queue behind it.
      TaskContext task = TaskContext.get();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (System.nanoTime() < deadline) {
        if (task != null) {
          task.killTaskIfInterrupted();
        }
        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the task was killed another way: let it end
      return;
    }
    throw new IllegalStateException("gstm test hold: a task held at " + name + " for "
        + WAIT_SECONDS + " s was not killed");
  }
}
