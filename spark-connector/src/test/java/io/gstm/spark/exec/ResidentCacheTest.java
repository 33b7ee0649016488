package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResidentCacheTest {
  private static final class Thing implements AutoCloseable {
    boolean closed;

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void aPartitionsValueIsReusedUntilItsRunIsReleased() {
    GstmSettings jvm = GstmConf.settings(Map.of("spark.gstm.engine", "jvm"));
    List<Thing> made = new ArrayList<>();
    long run = 424242;
    Thing first;
    try (ResidentCache.Handle<Thing> h = ResidentCache.acquire(run, 0, jvm, e -> add(made))) {
      first = h.value();
      // While partition 0's entry is in use, a second task of it gets a private value.
      try (ResidentCache.Handle<Thing> other = ResidentCache.acquire(run, 0, jvm,
          e -> add(made))) {
        assertThat(other.value()).isNotSameAs(first);
      }
      assertThat(made.get(1).closed).isTrue();
    }
    try (ResidentCache.Handle<Thing> h = ResidentCache.acquire(run, 0, jvm, e -> add(made))) {
      assertThat(h.value()).isSameAs(first);
    }
    assertThat(first.closed).isFalse();
    ResidentCache.release(run);
    assertThat(first.closed).isTrue();
    assertThat(ResidentCache.size()).isZero();
  }

  private static Thing add(List<Thing> made) {
    Thing t = new Thing();
    made.add(t);
    return t;
  }
}
