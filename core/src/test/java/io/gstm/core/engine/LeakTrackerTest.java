package io.gstm.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The leak tracker frees what an owner dropped without closing, and nothing else. */
class LeakTrackerTest {
  private static final class Owner {
    final LeakTracker.Handle handle;

    Owner(AtomicInteger freed) {
      handle = LeakTracker.track(this, "a test resource", freed::incrementAndGet);
    }
  }

  private static void collectUntil(java.util.function.BooleanSupplier done)
      throws InterruptedException {
    for (int i = 0; i < 200 && !done.getAsBoolean(); i++) {
      System.gc();
      Thread.sleep(10);
    }
  }

  @Test
  void anOwnerDroppedWithoutClosingIsReportedAndFreed() throws InterruptedException {
    AtomicInteger freed = new AtomicInteger();
    long before = LeakTracker.leaks();
    new Owner(freed); // dropped at once, never closed
    collectUntil(() -> freed.get() > 0);
    assertThat(freed.get()).as("freed by the tracker").isEqualTo(1);
    assertThat(LeakTracker.leaks()).isEqualTo(before + 1);
  }

  @Test
  void aClosedOwnerIsNeitherReportedNorFreedAgain() throws InterruptedException {
    AtomicInteger freed = new AtomicInteger();
    long before = LeakTracker.leaks();
    Owner owner = new Owner(freed);
    owner.handle.close();
    owner = null;
    AtomicInteger probe = new AtomicInteger();
    new Owner(probe); // a leak of its own, to know the tracker has run since
    collectUntil(() -> probe.get() > 0);
    assertThat(freed.get()).as("the owner freed it itself").isZero();
    assertThat(LeakTracker.leaks()).isEqualTo(before + 1);
  }
}
