package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.AlgorithmArgs;
import io.gstm.core.testing.RandomProgramRuns;
import io.gstm.core.testing.SharedEngines;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random programs over random stores under GPU-STM and Cederman's blocking and obstruction-free
 * STMs: every committed history is serializable and its serial replay reproduces the outputs and
 * the final state, as under PR-STM ({@link RandomProgramsJvmTest}).
 */
class LockTableRandomProgramsJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Algorithm a : new Algorithm[] {Algorithm.gpuStm(), Algorithm.blocking(),
        Algorithm.obstructionFree()}) {
      for (long seed = 1; seed <= 40; seed++) {
        out.add(Arguments.of(AlgorithmArgs.named(a), seed));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("cases")
  void committedHistoriesAreSerializableAndReplayExactly(Algorithm algorithm, long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 400, 32, 4, false);
    RandomProgramRuns.assertSerializableAndReplays(engines.jvm(), c, algorithm,
        RandomProgramsJvmTest.OPTIONS);
  }
}
