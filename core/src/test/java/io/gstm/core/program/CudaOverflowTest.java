package io.gstm.core.program;

import io.gstm.core.store.Algorithm;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.OverflowCases;
import io.gstm.core.testing.SharedEngines;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Integer overflow on the GPU: under every algorithm the GPU runs programs with, the rows of
 * {@link OverflowJvmTest} end as Java's exact arithmetic says (OVERFLOW, changing nothing, or
 * committed with the same result), so program.cuh's end code 9 comes back as OVERFLOW.
 */
@EnabledIfGpu
class CudaOverflowTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpu();

  static Stream<Arguments> algorithms() {
    return OverflowCases.algorithms();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void overflowEndsTheTransactionAndChangesNothingOnTheGpu(Algorithm algorithm) {
    OverflowCases.assertRun(engines.gpu(), algorithm, OverflowCases.rows(7, 2_000));
  }
}
