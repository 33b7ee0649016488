package io.gstm.spark.state;

import io.gstm.spark.exec.TaskHold;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test hooks (local mode, where the tasks run in the test's JVM): a failure injected at a named
 * point of an epoch's tasks, and a duplicate of every phase-1 task run beside it (a speculative
 * copy on the same executor). On a cluster the same points are {@link TaskHold}'s
 * "state.local", "state.cross" and "state.writeBack", where a test kills the executor.
 */
final class TxStateHooks {
  /** Called at "local" (after a partition applied its transactions), "cross", "writeBack". */
  interface Hook {
    void at(String point, int partition, long epoch, int attempt);
  }

  static volatile Hook hook;
  static volatile boolean duplicateLocal;
  /** Phase-1 results served from a partition's record instead of applying again. */
  static final AtomicLong REPLAYED = new AtomicLong();

  private TxStateHooks() {}

  static void at(String point, int partition, long epoch, int attempt) {
    TaskHold.at("state." + point, partition);
    Hook h = hook;
    if (h != null) {
      h.at(point, partition, epoch, attempt);
    }
  }

  static void reset() {
    hook = null;
    duplicateLocal = false;
  }
}
