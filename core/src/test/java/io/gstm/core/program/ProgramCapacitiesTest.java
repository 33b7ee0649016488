package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.graph.ProgramRelaxationTest;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.graph.GraphPrograms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The program set capacities Java chooses from are exactly the kernels {@code program.cu}
 * instantiates, PR-STM's set masks hold the largest, and the CUDA engine resolves them all; a
 * batch gets the smallest that holds its programs' bounds.
 */
class ProgramCapacitiesTest {
  private static final Path CUDA = Path.of("..", "kernels", "src", "main", "cuda");

  @Test
  void javaCapacitiesAreTheKernelsInstantiated() throws IOException {
    String source = Files.readString(CUDA.resolve("program.cu"));
    Matcher m = Pattern.compile("(?m)^GSTM_PROGRAM_PRSTM\\((\\d+),").matcher(source);
    List<Integer> built = new ArrayList<>();
    while (m.find()) {
      built.add(Integer.parseInt(m.group(1)));
    }
    assertThat(built).containsExactly(java.util.Arrays.stream(ProgramBinding.CAPACITIES)
        .boxed().toArray(Integer[]::new));
    String prstm = Files.readString(CUDA.resolve("include/gstm/prstm.cuh"));
    Matcher bound = Pattern.compile("CAPACITY <= (\\d+)").matcher(prstm);
    assertThat(bound.find()).isTrue();
    assertThat(Integer.parseInt(bound.group(1)))
        .isGreaterThanOrEqualTo(ProgramCompiler.MAX_SET_ENTRIES);
    List<String> symbols = CudaEngine.kernelSymbols().values().stream().flatMap(List::stream)
        .toList();
    for (int c : ProgramBinding.CAPACITIES) {
      assertThat(symbols).contains("gstm_program_prstm_s" + c);
    }
  }

  @Test
  void aBatchGetsTheSmallestCapacityThatHoldsIt() {
    assertThat(ProgramBinding.capacityFor(1)).isEqualTo(2);
    assertThat(ProgramBinding.capacityFor(16)).isEqualTo(16);
    assertThat(ProgramBinding.capacityFor(17)).isEqualTo(32);
    assertThat(ProgramBinding.capacityFor(33)).isEqualTo(64);
    assertThat(ProgramCompiler.MAX_SET_ENTRIES).isEqualTo(64);
  }

  /**
   * Shortest paths with parents and hops touches five words of two vertices: over regions that
   * share one row of locks PR-STM's lock set holds two locks, and the three writes make sets
   * of 4; with a lock a word, or under an algorithm other than PR-STM, sets of 8.
   */
  @Test
  void regionsSharingTheirLocksTakeALockEntryAnIndex() {
    CompiledProgram paths = ProgramSet.parse(GraphPrograms.PATHS).get(0);
    assertThat(paths.analysis().lockEntries()).isEqualTo(5);
    assertThat(paths.analysis().rowLockEntries()).isEqualTo(2);
    assertThat(paths.analysis().writeEntries()).isEqualTo(3);
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.of(paths)).all("paths", 1)
        .column(Column.wrapInt32("src", new int[1])).column(Column.wrapInt32("dst", new int[1]))
        .column(Column.ofFloat64("weight", new double[1])).build();
    StoreLayout shared = ProgramRelaxationTest.pathsLayout(10);
    StoreLayout own = ProgramRelaxationTest.pathsLayout(10, false);
    assertThat(ProgramBinding.bind(batch, shared, Algorithm.prStm()).capacity()).isEqualTo(4);
    assertThat(ProgramBinding.bind(batch, own, Algorithm.prStm()).capacity()).isEqualTo(8);
    assertThat(ProgramBinding.bind(batch, shared, Algorithm.gpuStm()).capacity()).isEqualTo(8);
  }
}
