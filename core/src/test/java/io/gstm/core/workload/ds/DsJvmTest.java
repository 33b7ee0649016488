package io.gstm.core.workload.ds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.testing.DsCases;
import io.gstm.core.testing.SharedEngines;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every structure on every algorithm of the JVM engine (PR-STM with the semantic contention
 * manager, CSMV), at full and low contention, over seeded batches: the verifier, the history
 * checker, the model replay and the programs' serial replay all pass.
 */
class DsJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (DsKind kind : DsKind.values()) {
      for (boolean full : new boolean[] {true, false}) {
        for (String alg : new String[] {"prstm", "csmv"}) {
          for (long seed = 1; seed <= 3; seed++) {
            out.add(Arguments.of(kind, full ? "full" : "low", alg, seed));
          }
        }
      }
    }
    return out.stream();
  }

  static Algorithm algorithm(String alg) {
    return alg.equals("csmv") ? Algorithm.csmv(4) : Algorithm.prStm();
  }

  @ParameterizedTest(name = "{0} {1} contention on {2}, seed {3}")
  @MethodSource("cases")
  void passesEveryCheck(DsKind kind, String contention, String alg, long seed) {
    DsBatch b = DsBatch.of(DsCases.jvmConfig(kind, contention, seed).runnableOn(algorithm(alg)));
    DsRun run = DsRun.run(engines.jvm(), algorithm(alg), b,
        RunOptions.defaults().withHistory(true));
    assertThat(run.problems()).isEmpty();
    assertThat(run.result().stats().history()).isNotNull();
    // The defaults size every pool, and every walk but a few of the skip list's.
    if (kind == DsKind.SKIPLIST) {
      assertThat(run.result().commits()).isGreaterThan(b.txCount() * 8L / 10);
    } else {
      assertThat(run.result().outcomeCounts()).containsOnlyKeys(Outcome.COMMITTED);
    }
  }

  /** Without a history (as the CUDA CSMV kernel runs) the verifier's order-free checks hold. */
  static Stream<Arguments> contentions() {
    List<Arguments> out = new ArrayList<>();
    for (DsKind kind : DsKind.values()) {
      for (String contention : new String[] {"full", "low"}) {
        out.add(Arguments.of(kind, contention, 4L));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1} contention, seed {2}")
  @MethodSource("contentions")
  void everyCsmvVariantPassesTheVerifierWithoutAHistory(DsKind kind, String contention,
      long seed) {
    DsBatch b = DsBatch.of(DsCases.jvmConfig(kind, contention, seed).runnableOn(Algorithm.csmv(4)));
    for (CsmvVariant v : CsmvVariant.values()) {
      DsRun run = DsRun.run(engines.jvm(), Algorithm.csmv(4).withVariant(v), b,
          RunOptions.defaults());
      assertThat(run.result().stats().history()).isNull();
      assertThat(run.problems()).as("%s", v).isEmpty();
    }
  }

  /**
   * Pre-sorted (inserts first) and under a wider lock coverage, as the JPDC figures run it, a
   * batch still passes every check on PR-STM and GPU-STM; the sort moved every column along.
   */
  @ParameterizedTest(name = "{0} {1} contention")
  @MethodSource("contentions")
  void presortedAndCoarselyLockedBatchesPassEveryCheck(DsKind kind, String contention,
      long seed) {
    DsBatch plain = DsBatch.of(DsCases.jvmConfig(kind, contention, seed));
    DsBatch b = plain.presorted().withLockCoverage(8);
    assertThat(b.layout().lockCount()).isLessThan(plain.layout().lockCount());
    int firstOther = 0;
    while (firstOther < b.txCount() && b.op()[firstOther] == 0) {
      firstOther++;
    }
    for (int t = firstOther; t < b.txCount(); t++) {
      assertThat(b.op()[t]).as("op of transaction %d after the inserts", t).isNotZero();
      assertThat(b.batch().type(t)).isEqualTo(b.op()[t]);
    }
    for (Algorithm a : new Algorithm[] {Algorithm.prStm(), Algorithm.gpuStm()}) {
      DsRun run = DsRun.run(engines.jvm(), a, b, RunOptions.defaults().withHistory(true));
      assertThat(run.problems()).as("%s", a.label()).isEmpty();
    }
    assertThatThrownBy(() -> plain.withLockCoverage(0))
        .hasMessageContaining("lockCoverage must be at least 1");
  }
}
