package io.gstm.core.workload.pc;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Producer-consumer on the GPU, the same seeded batches as the JVM suite: with postponement every
 * produced item is consumed exactly once, histories are serializable and replay; the issue's
 * N = 10, M = 20, k = 100,000 run commits everything.
 */
@EnabledIfGpu
class CudaProducerConsumerTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(4);

  static Stream<ProducerConsumerConfig> configs() {
    return ProducerConsumerJvmTest.small().map(a -> (ProducerConsumerConfig) a.get()[0]);
  }

  @ParameterizedTest
  @MethodSource("configs")
  void everyItemConsumedExactlyOnceOnBothEngines(ProducerConsumerConfig cfg) {
    RunOptions options = RunOptions.defaults().withHistory(true);
    ProducerConsumerJvmTest.Run onGpu = ProducerConsumerJvmTest.Run.of(engines.gpu(), cfg,
        cfg.batch(),
        options);
    ProducerConsumerJvmTest.Run onJvm = ProducerConsumerJvmTest.Run.of(engines.jvm(), cfg,
        cfg.batch(),
        options);
    assertThat(onGpu.correct()).as("GPU %s", onGpu).isTrue();
    assertThat(onJvm.correct()).as("JVM %s", onJvm).isTrue();
    assertThat(onGpu.result().commits()).as("GPU %s", onGpu).isEqualTo(cfg.txCount());
  }

  @Test
  void retryInPlaceStaysCorrect() {
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(4).consumers(8)
        .itemsPerProducer(50).bufferCapacity(8).lockCoverage(1).grid(64, 1).seed(3).build();
    ProducerConsumerJvmTest.Run run = ProducerConsumerJvmTest.Run.of(engines.gpu(), cfg,
        cfg.batch(),
        RunOptions.defaults().withHistory(true).withPolicy(SemanticPolicy.RETRY_IN_PLACE));
    assertThat(run.correct()).as("%s", run).isTrue();
  }

  @Test
  void aThreadWhoseFirstChunkOnlyTakesMovesOnToItsPuts() {
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(1).consumers(1)
        .itemsPerProducer(40).bufferCapacity(64).lockCoverage(1).grid(1, 1).seed(5).build();
    ProducerConsumerJvmTest.Run run = ProducerConsumerJvmTest.Run.of(engines.gpu(), cfg,
        ProducerConsumerJvmTest.takesFirst(cfg), RunOptions.defaults().withHistory(true));
    assertThat(run.correct()).as("%s", run).isTrue();
    assertThat(run.verdict().allCommitted()).as("%s", run).isTrue();
  }

  @Test
  @org.junit.jupiter.api.Tag("slow")
  void tenProducersTwentyConsumersHundredThousandItemsEach() {
    // 2,000,000 transactions on 1,024 threads; every PUT and TAKE goes through the two counter
    // words. Under PR-STM's static priority a high thread id can lose a hot word a million
    // times in a row (10 did at the default maxRetries on an H100), so concurrency retries are
    // unbounded here: the test is about every item consumed exactly once.
    ProducerConsumerConfig cfg = ProducerConsumerConfig.builder().producers(10).consumers(20)
        .itemsPerProducer(100_000).bufferCapacity(1024).lockCoverage(1).grid(256, 4).seed(11)
        .build();
    ProducerConsumerJvmTest.Run run = ProducerConsumerJvmTest.Run.of(engines.gpu(), cfg,
        cfg.batch(),
        new RunOptions(Integer.MAX_VALUE, false));
    System.out.printf("producer-consumer 2M on the GPU, 4 x 256 threads: %.1f ms, %s%n",
        run.result().kernelNanos() / 1e6, java.util.Arrays.toString(run.result().counters()));
    assertThat(run.verdict().ok()).as("%s", run.verdict()).isTrue();
    assertThat(IntStream.range(0, cfg.txCount()).mapToObj(t -> run.result().outcome(t)))
        .containsOnly(Outcome.COMMITTED);
  }
}
