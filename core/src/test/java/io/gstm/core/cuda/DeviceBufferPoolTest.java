package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The engine's pool of idle device buffers: a buffer is taken again at its size or up to a
 * quarter larger, the least recently returned go first past the limit, memory kept idle never
 * makes an allocation fail (it is freed first), and builds and relaxers made one after the
 * other from pooled buffers give the same answers.
 */
@EnabledIfGpu
class DeviceBufferPoolTest {
  private static final long MB = 1 << 20;
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpu();

  @Test
  void aBufferIsTakenAgainAtItsSizeOrAQuarterLarger() {
    engines.gpu().bind();
    try (DeviceBufferPool pool = new DeviceBufferPool(64 * MB)) {
      DeviceBuffer b = pool.take(8 * MB);
      long address = b.address();
      pool.give(b);
      assertThat(pool.idleBytes()).isEqualTo(8 * MB);
      DeviceBuffer again = pool.take(7 * MB); // 8 MB is within a quarter of 7 MB
      assertThat(again.address()).isEqualTo(address);
      assertThat(pool.idleBytes()).isZero();
      pool.give(again);
      DeviceBuffer fresh = pool.take(6 * MB); // 8 MB is more than a quarter larger
      assertThat(fresh.bytes()).isEqualTo(6 * MB);
      assertThat(pool.idleBytes()).isEqualTo(8 * MB);
      pool.give(fresh);
    }
  }

  @Test
  void pastTheLimitTheLeastRecentlyReturnedAreFreed() {
    engines.gpu().bind();
    try (DeviceBufferPool pool = new DeviceBufferPool(20 * MB)) {
      DeviceBuffer a = pool.take(8 * MB);
      DeviceBuffer b = pool.take(9 * MB);
      DeviceBuffer c = pool.take(10 * MB);
      long bAddress = b.address();
      long cAddress = c.address();
      pool.give(a);
      pool.give(b);
      pool.give(c); // 27 MB: a goes first, then 19 MB stay
      assertThat(pool.idleBytes()).isEqualTo(19 * MB);
      assertThat(pool.take(8 * MB).address()).isEqualTo(bAddress); // 9 MB, within a quarter
      DeviceBuffer tooLarge = pool.take(30 * MB);
      pool.give(tooLarge); // alone larger than the limit: freed
      assertThat(pool.idleBytes()).isEqualTo(10 * MB);
      assertThat(pool.take(10 * MB).address()).isEqualTo(cAddress);
      assertThat(pool.limit()).isEqualTo(20 * MB);
    }
  }

  @Test
  void smallBuffersAreNotKept() {
    engines.gpu().bind();
    try (DeviceBufferPool pool = new DeviceBufferPool(64 * MB)) {
      pool.give(pool.take(DeviceBufferPool.MIN_POOLED - 1));
      assertThat(pool.idleBytes()).isZero();
    }
  }

  /**
   * The engine's idle buffers hold most of the free memory; an allocation that needs them still
   * succeeds (they are freed first), and one that cannot fit at all still says so.
   */
  @Test
  void idleMemoryIsFreedBeforeAnAllocationFails() {
    engines.gpu().bind();
    DeviceBufferPool pool = engines.gpu().bufferPool();
    pool.trim();
    long free = engines.gpu().memoryInfo().freeBytes();
    long chunk = Math.min(pool.limit() / 2, free / 4) & ~(MB - 1);
    DeviceBuffer first = pool.take(chunk);
    DeviceBuffer second = pool.take(chunk);
    pool.give(first);
    pool.give(second);
    assertThat(pool.idleBytes()).isEqualTo(2 * chunk);
    long nowFree = engines.gpu().memoryInfo().freeBytes();
    // More than is free while the pool holds its two buffers, less than free without them.
    try (DeviceBuffer big = new DeviceBuffer(nowFree + chunk)) {
      assertThat(big.bytes()).isEqualTo(nowFree + chunk);
    }
    assertThat(pool.idleBytes()).isZero();
    long total = engines.gpu().memoryInfo().totalBytes();
    assertThatThrownBy(() -> new DeviceBuffer(2 * total))
        .isInstanceOf(DeviceOutOfMemoryException.class)
        .hasMessageContaining("bytes free");
  }

  /** Builds and relaxers one after the other reuse each other's buffers and agree. */
  @Test
  void repeatedBuildsAndRelaxersFromPooledBuffersAgree() {
    EdgeList g = RmatGenerator.generate(16, 1 << 20, 7, true);
    List<CudaCsrBuild.Part> parts = List.of(
        new CudaCsrBuild.Part(g.src(), g.dst(), g.weights(), g.edgeCount()));
    double[] first = null;
    for (int run = 0; run < 3; run++) {
      CudaCsrBuild.Numbered b = CudaCsrBuild.fromPartsNumbered(engines.gpu(), g.vertexCount(),
          parts, new int[] {0}, true, false, true);
      try (DeviceCsr csr = b.device();
          GraphRelaxer r = GraphRelaxer.onDevice(csr, RelaxationKind.SHORTEST_PATHS,
              RelaxOptions.defaults())) {
        double[] init = RelaxationVerifier.initialValues(RelaxationKind.SHORTEST_PATHS,
            csr.vertexCount(), 0);
        RelaxResult result = r.relax(init, new int[] {0});
        if (first == null) {
          first = result.values();
          CsrGraph host = csr.download();
          assertThat(RelaxationVerifier.check(host, RelaxationKind.SHORTEST_PATHS, init, first)
              .ok()).isTrue();
        } else {
          assertThat(result.values()).containsExactly(first);
        }
      }
      engines.gpu().bind();
      assertThat(engines.gpu().bufferPool().idleBytes()).as("run %d leaves its buffers idle", run)
          .isPositive();
    }
  }
}
