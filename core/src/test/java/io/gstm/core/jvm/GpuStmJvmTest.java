package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.DsCases;
import io.gstm.core.testing.ProgramCases;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsKind;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * GPU-STM on the JVM engine passes the same checks as PR-STM: every built-in workload
 * (hand-written and as programs) its verifier, the history checker and the serial replay; every
 * data structure at full and low contention all of its checks; with GPU-STM's retry-in-place
 * semantic policy (the JPDC comparison's limit of 100) as well.
 */
class GpuStmJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  static Stream<Arguments> workloads() {
    List<Arguments> out = new ArrayList<>();
    for (ProgramCases.Case c : ProgramCases.all(32, 3, 17)) {
      for (String how : new String[] {"hand-written", "program"}) {
        for (String policy : new String[] {"postpone", "retry-in-place"}) {
          out.add(Arguments.of(c, how, policy));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}, {1}, {2}")
  @MethodSource("workloads")
  void builtInWorkloadsPassTheirVerifierHistoryAndReplay(ProgramCases.Case c, String how,
      String policy) {
    RunOptions options = RunOptions.defaults().withHistory(true);
    if (policy.equals("retry-in-place")) {
      options = options.withPolicy(SemanticPolicy.RETRY_IN_PLACE).withSemanticLimit(100);
    }
    ProgramCases.Run run =
        ProgramCases.onStore(engines.jvm(), c, how, options, Algorithm.gpuStm());
    assertThat(ProgramCases.verify(c, run)).isNull();
    assertThat(run.stats().history()).isNotNull();
    assertThat(run.stats().count(Counter.ABORT_STOLEN)).isZero(); // PR-STM's cause only
  }

  @ParameterizedTest(name = "{0} {1} contention, seed {2}")
  @MethodSource("io.gstm.core.testing.DsCases#structures")
  void dataStructuresPassEveryCheck(DsKind kind, String contention, long seed) {
    DsBatch b = DsBatch.of(DsCases.jvmConfig(kind, contention, seed));
    DsCases.assertPassesEveryCheck(engines.jvm(), Algorithm.gpuStm(), b);
  }
}
