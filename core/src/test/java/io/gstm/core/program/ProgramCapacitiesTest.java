package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.cuda.CudaEngine;
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
 * instantiates, PR-STM's set masks hold the largest, and the CUDA engine resolves them all.
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
}
