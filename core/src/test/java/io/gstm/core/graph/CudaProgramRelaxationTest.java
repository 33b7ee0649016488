package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * User-written relaxations on the GPU: the same programs and graphs as
 * {@link ProgramRelaxationTest}, widest paths equal to the serial fixpoint, shortest paths equal
 * to Dijkstra's with a consistent parent and hop count.
 */
@EnabledIfGpu
class CudaProgramRelaxationTest {
  private static CudaEngine gpu;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
  }

  @AfterAll
  static void close() {
    gpu.close();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void widestPathsEqualTheSerialFixpoint(long seed) {
    CsrGraph g = ProgramRelaxationTest.graph(20_000, 4, seed);
    assertThat(ProgramRelaxationTest.widest(gpu, g))
        .isEqualTo(ProgramRelaxationTest.widestSerially(g, 0));
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void shortestPathsKeepParentAndHopsConsistentWithTheDistance(long seed) {
    CsrGraph g = ProgramRelaxationTest.graph(20_000, 4, seed);
    Object[] r = ProgramRelaxationTest.paths(gpu, g);
    double[] dist = (double[]) r[0];
    assertThat(dist).isEqualTo(ProgramRelaxationTest.dijkstra(g, 0));
    ProgramRelaxationTest.assertConsistentTree(g, dist, (int[]) r[1], (int[]) r[2]);
  }
}
