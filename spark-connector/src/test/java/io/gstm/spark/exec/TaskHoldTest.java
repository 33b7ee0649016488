package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test hold's protocol, in this JVM (the cluster suite kills executors with it). */
class TaskHoldTest {
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
}
