package io.gstm.core.jvm;

import static io.gstm.core.testing.AlgorithmArgs.named;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.Backoff;
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
 * Cederman's blocking and obstruction-free STMs on the JVM engine pass the same checks as PR-STM:
 * every built-in workload (hand-written and as programs, both semantic policies) its verifier,
 * the history checker and the serial replay; every data structure at full and low contention,
 * seeded, all of its checks; and so with every backoff.
 */
class CedermanJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  private static final Algorithm[] ALGORITHMS = {Algorithm.blocking(),
      Algorithm.obstructionFree()};

  static Stream<Arguments> workloads() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : ALGORITHMS) {
      for (ProgramCases.Case c : ProgramCases.all(32, 3, 23)) {
        for (String how : new String[] {"hand-written", "program"}) {
          out.add(Arguments.of(named(a), c, how, how.equals("program") ? "retry-in-place"
              : "postpone"));
        }
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}: {1}, {2}, {3}")
  @MethodSource("workloads")
  void builtInWorkloadsPassTheirVerifierHistoryAndReplay(Algorithm algorithm, ProgramCases.Case c,
      String how, String policy) {
    RunOptions options = RunOptions.defaults().withHistory(true);
    if (policy.equals("retry-in-place")) {
      options = options.withPolicy(SemanticPolicy.RETRY_IN_PLACE).withSemanticLimit(100);
    }
    ProgramCases.Run run = ProgramCases.onStore(engines.jvm(), c, how, options, algorithm);
    assertThat(ProgramCases.verify(c, run)).isNull();
    assertThat(run.stats().history()).isNotNull();
    // PR-STM's causes only: no pre-locks here, and no urgent mode.
    assertThat(run.stats().count(Counter.ABORT_STOLEN)).isZero();
    assertThat(run.stats().count(Counter.ABORT_PRELOCK_REFUSED)).isZero();
    assertThat(run.stats().count(Counter.URGENT)).isZero();
    if (algorithm.kind() == Algorithm.Kind.BLOCKING) {
      assertThat(run.stats().count(Counter.ABORT_KILLED)).isZero();
      assertThat(run.stats().count(Counter.LOCKS_STOLEN)).isZero();
    }
  }

  static Stream<Arguments> structures() {
    return DsCases.structuresOn(ALGORITHMS);
  }

  @ParameterizedTest(name = "{0}: {1} {2} contention, seed {3}")
  @MethodSource("structures")
  void dataStructuresPassEveryCheck(Algorithm algorithm, DsKind kind, String contention,
      long seed) {
    DsBatch b = DsBatch.of(DsCases.jvmConfig(kind, contention, seed));
    DsCases.assertPassesEveryCheck(engines.jvm(), algorithm, b);
  }

  static Stream<Arguments> backoffs() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : ALGORITHMS) {
      for (String backoff : new String[] {"none", "linear:50:5000", "exponential:20:20000"}) {
        for (DsKind kind : new DsKind[] {DsKind.QUEUE, DsKind.HASHMAP}) {
          out.add(Arguments.of(named(a.withBackoff(Backoff.parse("backoff", backoff))), kind));
        }
      }
    }
    return out.stream();
  }

  /** The queue is the paper's hottest structure, the one where backoff changed the aborts. */
  @ParameterizedTest(name = "{0}: {1} full contention")
  @MethodSource("backoffs")
  void everyBackoffPassesEveryCheck(Algorithm algorithm, DsKind kind) {
    DsBatch b = DsBatch.of(DsCases.jvmConfig(kind, "full", 5));
    DsCases.assertPassesEveryCheck(engines.jvm(), algorithm, b);
  }
}
