package io.gstm.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResourcesTest {
  private static final class Res implements AutoCloseable {
    boolean closed;
    final boolean failClose;

    Res(boolean failClose) {
      this.failClose = failClose;
    }

    @Override
    public void close() {
      closed = true;
      if (failClose) {
        throw new IllegalStateException("close failed");
      }
    }
  }

  @Test
  void successLeavesTheResourceOpen() {
    Res r = new Res(false);
    assertEquals(Integer.valueOf(7), Resources.closeOnExcept(r, x -> 7));
    assertFalse(r.closed);
  }

  @Test
  void failureClosesAndKeepsTheFirstCause() {
    Res r = new Res(true);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Resources.closeOnExcept(r, x -> {
          throw new IllegalArgumentException("setup failed");
        }));
    assertTrue(r.closed);
    assertEquals("close failed", e.getSuppressed()[0].getMessage());
  }

  @Test
  void errorsCloseToo() {
    Res r = new Res(false);
    assertThrows(OutOfMemoryError.class, () -> Resources.closeOnExcept(r, x -> {
      throw new OutOfMemoryError("simulated");
    }));
    assertTrue(r.closed);
  }

  @Test
  void aCollectionClosesWhatItHeldWhenTheBodyFailed() {
    List<Res> held = new ArrayList<>();
    Res kept = new Res(false);
    RuntimeException boom = new RuntimeException("third failed");
    RuntimeException e = assertThrows(RuntimeException.class,
        () -> Resources.closeOnExcept(held, h -> {
          h.add(new Res(true));
          h.add(null);
          h.add(new Res(false));
          throw boom;
        }));
    assertSame(boom, e);
    assertTrue(held.get(0).closed);
    assertTrue(held.get(2).closed);
    assertEquals(1, e.getSuppressed().length);
    assertFalse(kept.closed);
  }
}
