package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.spark.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The test hold's protocol, in this JVM (the cluster suite kills executors with it). */
class TaskHoldTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  /** Counted down when the held task of the abort test leaves its hold (same JVM: local mode). */
  private static final CountDownLatch LEFT_THE_HOLD = new CountDownLatch(1);

  @TempDir
  Path dir;

  @AfterEach
  void off() {
    System.clearProperty(TaskHold.DIR_PROPERTY);
  }

  @Test
  void offWithoutTheFolderAndPassesPointsNobodyArmed() throws Exception {
    TaskHold.at("state.local", 0); // no folder: returns at once
    System.setProperty(TaskHold.DIR_PROPERTY, dir.toString());
    Files.writeString(dir.resolve("arm-state.local-1"), "");
    TaskHold.at("state.local", 0);
    TaskHold.at("graph.laterStep", 1);
    assertThat(dir.resolve("arm-state.local-1")).exists();
    try (var files = Files.list(dir)) {
      assertThat(files).noneMatch(p -> p.getFileName().toString().startsWith("held-"));
    }
  }

  @Test
  void theFirstTaskAtAnArmedPointTakesItSaysWhoItIsAndWaits() throws Exception {
    System.setProperty(TaskHold.DIR_PROPERTY, dir.toString());
    Files.writeString(dir.resolve("arm-state.local-1"), "");
    Thread held = new Thread(() -> TaskHold.at("state.local", 1), "held-task");
    held.start();
    Path said = dir.resolve("held-state.local-1");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!Files.exists(said) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(10);
    }
    assertThat(Files.readString(said)).isEqualTo(ProcessHandle.current().pid() + " driver\n");
    assertThat(dir.resolve("arm-state.local-1")).doesNotExist();
    assertThat(held.isAlive()).isTrue(); // waiting to be killed
    TaskHold.at("state.local", 1); // a retry passes on
    held.interrupt(); // the stand-in for the kill
    held.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(held.isAlive()).isFalse();
  }

  /**
   * A stage aborted while one of its tasks is held (another task failed) kills the held task
   * without an interrupt: it ends at once rather than keep its core for the hold's two minutes
   * (it did, and the cluster suite's next test queued behind it).
   */
  @Test
  void aHeldTaskWhoseStageIsAbortedEndsWithoutWaitingOutTheHold() throws Exception {
    System.setProperty(TaskHold.DIR_PROPERTY, dir.toString());
    Files.writeString(dir.resolve("arm-test.abort-0"), "");
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(session.spark().sparkContext());
    long started = System.nanoTime();
    assertThatThrownBy(() -> jsc.parallelize(List.of(0, 1), 2).map(x -> {
      if (x == 0) {
        try {
          TaskHold.at("test.abort", 0);
        } finally {
          LEFT_THE_HOLD.countDown();
        }
      } else {
        // The other task fails once the first is held: Spark aborts the stage.
        Path held = Path.of(System.getProperty(TaskHold.DIR_PROPERTY), "held-test.abort-0");
        for (int i = 0; i < 3000 && !Files.exists(held); i++) {
          TimeUnit.MILLISECONDS.sleep(10);
        }
        throw new IllegalStateException("the other task fails");
      }
      return x;
    }).count()).hasMessageContaining("the other task fails");
    assertThat(LEFT_THE_HOLD.await(30, TimeUnit.SECONDS)).as("the held task ended").isTrue();
    assertThat(System.nanoTime() - started).isLessThan(TimeUnit.SECONDS.toNanos(30));
  }
}
