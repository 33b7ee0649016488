package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ring that drained buckets go through (kernels' include/gstm/drain.cuh), on its own: tokens
 * go round it many times, warps taking up to 32 positions at once and queueing while some are
 * pending (in the slow cases a warp that holds pending positions sleeps before it queues).
 * Every token ends exactly once, the ring ends with every item queued taken, and nothing hangs:
 * on rings of a few slots among many warps and many slots among few. In the stalled cases one
 * warp claims 32 positions and sleeps without looking at them while the others lap the ring: the
 * producers that come to those slots a lap later must take the items over (else they would wait
 * for a taker, the wait that could close a cycle), and the test asserts that some did.
 */
@EnabledIfGpu
class DrainRingTest {
  private static final Logger LOG = LoggerFactory.getLogger(DrainRingTest.class);

  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpu();

  @ParameterizedTest(
      name = "{0} tokens, {1} laps, {2} blocks of {3} threads, slow {4} ns, stall {5} us")
  @CsvSource({"64, 200, 1, 64, 0, 0", "1000, 100, 2, 64, 0, 0", "1000, 100, 4, 256, 0, 0",
      "100000, 20, 8, 256, 0, 0", "8, 1000, 132, 256, 0, 0", "50000, 20, 264, 256, 0, 0",
      "64, 300, 1, 64, 20000, 0", "1000, 50, 4, 128, 20000, 0", "8, 1000, 1, 64, 20000, 0",
      "64, 1000, 1, 128, 0, 2000", "1000, 100, 4, 256, 0, 2000",
      "100000, 5, 132, 256, 0, 5000"})
  void everyTokenEndsOnceAndTheRingDrains(int tokens, int laps, int blocks, int threads,
      int slowNanos, int stallMicros) {
    CudaEngine gpu = engines.gpu();
    gpu.bind();
    DeviceBuffer[] b = DeviceBuffer.allocate(true, 8L * tokens, 4L * tokens, 4L * 5,
        4L * tokens);
    try {
      int[] items = new int[2 * tokens];
      int[] seq = new int[tokens];
      for (int i = 0; i < tokens; i++) {
        items[2 * i] = i;
        items[2 * i + 1] = laps;
        seq[i] = i + 1;
      }
      b[0].upload(Pointer.to(items), 8L * tokens);
      b[1].upload(Pointer.to(seq), 4L * tokens);
      b[2].upload(Pointer.to(new int[] {tokens, 0, 0, 0, 0}), 4L * 5);
      CUfunction f = gpu.function(CudaGraphRelax.MODULE, CudaGraphRelax.DRAIN_CHECK_SYMBOL);
      Pointer params = Pointer.to(Pointer.to(new long[] {b[0].address()}),
          Pointer.to(new long[] {b[1].address()}), Pointer.to(new int[] {tokens}),
          Pointer.to(new long[] {b[2].address()}), Pointer.to(new long[] {b[3].address()}),
          Pointer.to(new int[] {slowNanos}), Pointer.to(new int[] {stallMicros}));
      CudaErrors.call("launch gstm_drain_check", () -> cuLaunchKernel(f, blocks, 1, 1, threads,
          1, 1, 0, null, params, null));
      int[] words = new int[5];
      b[2].download(Pointer.to(words), 4L * 5);
      int[] done = new int[tokens];
      b[3].download(Pointer.to(done), 4L * tokens);

      int[] once = new int[tokens];
      Arrays.fill(once, 1);
      assertThat(done).as("each token ended once").isEqualTo(once);
      assertThat(words[2]).as("taken = tail").isEqualTo(words[0]);
      assertThat(words[3]).as("no warp busy").isZero();
      assertThat(words[4]).as("drained").isEqualTo(1);
      // Each token was taken laps + 1 times by a warp; every other position of the tail was
      // queued again by a producer that took its item over.
      long takenOver = Integer.toUnsignedLong(words[0]) - (long) tokens * (laps + 1);
      assertThat(takenOver).isNotNegative();
      if (stallMicros > 0) {
        assertThat(takenOver).as("items taken over from the stalled warp").isPositive();
      }
      LOG.info("drain ring: {} tokens, {} laps, {} x {} threads, stall {} us: {} items taken"
          + " over", tokens, laps, blocks, threads, stallMicros, takenOver);
    } finally {
      DeviceBuffer.closeAll(Arrays.asList(b));
    }
  }
}
