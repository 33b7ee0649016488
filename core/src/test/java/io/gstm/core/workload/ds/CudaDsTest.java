package io.gstm.core.workload.ds;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.testing.DsCases;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.ProgramCases;
import io.gstm.core.testing.SharedEngines;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The data structures on the GPU: under PR-STM every check passes (the verifier, the history
 * checker, the model replay and the programs' serial replay); under every CSMV variant the
 * verifier (the CUDA CSMV kernel records no history); and on one thread the GPU gives exactly
 * the JVM engine's outcomes, codes, outputs and final store.
 */
@EnabledIfGpu
class CudaDsTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(1);

  @ParameterizedTest(name = "{0} {1} contention, seed {2}")
  @MethodSource("io.gstm.core.testing.DsCases#structures")
  void prStmPassesEveryCheckOnTheGpu(DsKind kind, String contention, long seed) {
    DsBatch b = DsBatch.of(DsCases.gpuConfig(kind, contention, seed));
    DsRun run = DsCases.assertPassesEveryCheck(engines.gpu(), Algorithm.prStm(), b);
    assertThat(run.result().stats().history()).isNotNull();
  }

  @ParameterizedTest(name = "{0} {1} contention, seed {2}")
  @MethodSource("io.gstm.core.testing.DsCases#structures")
  void everyCsmvVariantPassesTheVerifierOnTheGpu(DsKind kind, String contention, long seed) {
    DsBatch b = DsBatch.of(DsCases.gpuConfig(kind, contention, seed).runnableOn(Algorithm.csmv(4)));
    for (CsmvVariant v : CsmvVariant.values()) {
      DsRun run = DsRun.run(engines.gpu(), Algorithm.csmv(4).withVariant(v), b,
          RunOptions.defaults());
      assertThat(run.problems()).as("%s", v).isEmpty();
      assertThat(run.result().commits()).as("%s", v).isGreaterThan(b.txCount() * 8L / 10);
    }
  }

  @ParameterizedTest(name = "{0} {1} contention, seed {2}")
  @MethodSource("io.gstm.core.testing.DsCases#structures")
  void oneThreadOnTheGpuGivesTheJvmEnginesResultsExactly(DsKind kind, String contention,
      long seed) {
    DsBatch b = DsBatch.of(DsCases.gpuConfig(kind, contention, seed).withGrid(1, 1)
        .withTransactions(2_000));
    DsRun g = DsRun.run(engines.gpu(), Algorithm.prStm(), b, RunOptions.defaults());
    DsRun j = DsRun.run(engines.jvm(), Algorithm.prStm(), b, RunOptions.defaults());
    assertThat(g.problems()).isEmpty();
    ProgramCases.assertSame(g.result(), j.result());
    assertThat(StoreContents.firstDifference(b.layout(), j.after(), g.after())).isNull();
  }
}
