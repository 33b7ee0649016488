package io.gstm.dist;

import io.gstm.spark.exec.TaskHold;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * Kills an executor JVM with SIGKILL while one of its tasks is at a {@link TaskHold} point:
 * {@link #arm} the point, start the job, then {@link #whenHeld} kills the executor whose task
 * stopped there. The executors read the folder from {@link #javaOption()}, set through
 * {@code spark.executor.extraJavaOptions}.
 */
final class ExecutorKill {
  /** The executor that was killed, as its held task named it. */
  record Killed(long pid, String executorId) {}

  private final Path dir;

  /** Holds in {@code dir}, emptied: a point an earlier run armed would hold a task now. */
  ExecutorKill(Path dir) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
      try (Stream<Path> old = Files.list(dir)) {
        for (Path p : (Iterable<Path>) old::iterator) {
          Files.delete(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The executors' JVM option that turns the holds on. */
  String javaOption() {
    return "-D" + TaskHold.DIR_PROPERTY + "=" + dir.toAbsolutePath();
  }

  /** The first task to reach {@code point} in {@code partition} from now on waits there. */
  void arm(String point, int partition) {
    try {
      Files.deleteIfExists(held(point, partition));
      Files.writeString(dir.resolve("arm-" + point + "-" + partition), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Waits (up to a minute) until a task of {@code job} is held at {@code point} in
   * {@code partition}, kills its executor's JVM with SIGKILL and waits for it to be gone.
   */
  Killed whenHeld(String point, int partition, Future<?> job) {
    Path held = held(point, partition);
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    try {
      while (!Files.exists(held)) {
        if (job.isDone()) {
          job.get(); // its failure, if it failed
          throw new AssertionError("the job ended without reaching " + held.getFileName());
        }
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no task reached " + held.getFileName() + " within a minute");
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
      String[] line = Files.readString(held).trim().split(" ");
      Killed k = new Killed(Long.parseLong(line[0]), line[1]);
      ProcessHandle executor = ProcessHandle.of(k.pid()).orElseThrow(() ->
          new AssertionError("executor " + k.executorId() + " (pid " + k.pid() + ") is gone"));
      if (!executor.info().commandLine().orElse("").contains("CoarseGrainedExecutorBackend")) {
        throw new AssertionError("pid " + k.pid() + " is not an executor: "
            + executor.info().commandLine().orElse("?"));
      }
      executor.destroyForcibly(); // SIGKILL: no shutdown hook, no goodbye to the driver
      executor.onExit().get(30, TimeUnit.SECONDS);
      return k;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new AssertionError(e);
    }
  }

  private Path held(String point, int partition) {
    return dir.resolve("held-" + point + "-" + partition);
  }
}
