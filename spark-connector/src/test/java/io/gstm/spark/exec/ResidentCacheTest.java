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

  /**
   * A value put under a lease (a subgraph's relaxer left by its GPU build) is what the next
   * acquire on that engine finds; on another engine the new value is made before the old one is
   * closed (it may read from it), and the old one is closed.
   */
  @Test
  void aValuePutIsFoundAndOneOfAnotherEngineIsReadBeforeItCloses() {
    GstmSettings jvm = GstmConf.settings(Map.of("spark.gstm.engine", "jvm"));
    long run = 434343;
    Thing put = new Thing();
    io.gstm.core.engine.Engine engine;
    try (ResidentCache.Handle<Thing> h = ResidentCache.acquire(run, 9, jvm, e -> new Thing())) {
      engine = h.lease().engine();
    }
    assertThat(ResidentCache.put(run, 1, engine, put)).isTrue();
    try (ResidentCache.Handle<Thing> h = ResidentCache.acquire(run, 1, jvm, e -> new Thing())) {
      assertThat(h.value()).isSameAs(put);
      // While a task holds the entry, a value put is refused and closed.
      Thing refused = new Thing();
      assertThat(ResidentCache.put(run, 1, engine, refused)).isFalse();
      assertThat(refused.closed).isTrue();
    }
    // Put again for partition 1 under another engine: the next acquire makes its own value,
    // and the put one is still open while it is made.
    Thing other = new Thing();
    io.gstm.core.jvm.JvmEngine elsewhere = new io.gstm.core.jvm.JvmEngine(1);
    ResidentCache.put(run, 1, elsewhere, other);
    assertThat(put.closed).isTrue(); // replaced
    boolean[] openWhileMade = new boolean[1];
    try (ResidentCache.Handle<Thing> h = ResidentCache.acquire(run, 1, jvm, e -> {
      openWhileMade[0] = !other.closed;
      return new Thing();
    })) {
      assertThat(h.value()).isNotSameAs(other);
    }
    assertThat(openWhileMade[0]).isTrue();
    assertThat(other.closed).isTrue();
    elsewhere.close();
    ResidentCache.release(run);
    assertThat(ResidentCache.size()).isZero();
  }

  private static Thing add(List<Thing> made) {
    Thing t = new Thing();
    made.add(t);
    return t;
  }
}
