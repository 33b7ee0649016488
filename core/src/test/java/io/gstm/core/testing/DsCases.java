package io.gstm.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsConfig;
import io.gstm.core.workload.ds.DsKind;
import io.gstm.core.workload.ds.DsRun;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** The data-structure cases the engines' tests share. */
public final class DsCases {
  private DsCases() {}

  /**
   * Runs {@code b} on a store of {@code algorithm}, with a history: every check passes (the
   * verifier, the history checker, the model and the programs' serial replay) and more than 80%
   * of the transactions commit.
   */
  public static DsRun assertPassesEveryCheck(Engine engine, Algorithm algorithm, DsBatch b) {
    DsRun run = DsRun.run(engine, algorithm, b, RunOptions.defaults().withHistory(true));
    assertThat(run.problems()).isEmpty();
    assertThat(run.result().commits()).isGreaterThan(b.txCount() * 8L / 10);
    return run;
  }

  /**
   * A case at the JVM suites' size: 800 transactions at "full" contention, 400 at "low", in 4
   * blocks of 32 threads.
   */
  public static DsConfig jvmConfig(DsKind kind, String contention, long seed) {
    return contention.equals("full") ? DsConfig.fullContention(kind, 800, 32, 4, seed)
        : DsConfig.lowContention(kind, 400, 32, 4, seed);
  }

  /**
   * A case at the GPU suites' size: 20,000 transactions in 16 blocks of 128 threads (whole warps,
   * a grid that stays resident for CSMV's cooperative launch).
   */
  public static DsConfig gpuConfig(DsKind kind, String contention, long seed) {
    int tx = 20_000;
    return contention.equals("full") ? DsConfig.fullContention(kind, tx, 128, 16, seed)
        : DsConfig.lowContention(kind, tx, 128, 16, seed);
  }

  /**
   * Every structure at "full" and "low" contention, seeds 1 to 3: {@code (kind, contention,
   * seed)}; a {@code @MethodSource} of its own.
   */
  public static Stream<Arguments> structures() {
    return structuresOn();
  }

  /**
   * The same cases for each of {@code algorithms} in turn, {@code (algorithm, kind, contention,
   * seed)}; without algorithms, {@link #structures()}.
   */
  public static Stream<Arguments> structuresOn(Algorithm... algorithms) {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : algorithms.length == 0 ? new Algorithm[] {null} : algorithms) {
      for (DsKind kind : DsKind.values()) {
        for (String contention : new String[] {"full", "low"}) {
          for (long seed = 1; seed <= 3; seed++) {
            out.add(a == null ? Arguments.of(kind, contention, seed)
                : Arguments.of(AlgorithmArgs.named(a), kind, contention, seed));
          }
        }
      }
    }
    return out.stream();
  }
}
