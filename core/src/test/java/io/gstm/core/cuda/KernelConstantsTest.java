package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.cuda.ptx.ProgramPtx;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.CsmvChecks;
import io.gstm.core.workload.kmeans.KMeansWorkload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each limit the kernels fix is one Java constant, and it equals the kernels' value: the CUDA
 * sources are the authority, Java reads them here rather than trusting a copy.
 */
class KernelConstantsTest {
  private static final Path CUDA = Path.of("..", "kernels", "src", "main", "cuda");

  private static int constexpr(String header, String name) throws IOException {
    String source = Files.readString(CUDA.resolve(header));
    Matcher m = Pattern.compile("constexpr\\s+\\w+\\s+" + name + "\\s*=\\s*(\\d+)\\s*;")
        .matcher(source);
    assertThat(m.find()).as(name + " in " + header).isTrue();
    return Integer.parseInt(m.group(1));
  }

  @Test
  void regionsAndCsmvWritesAreTheHeaders() throws IOException {
    assertThat(StoreLayout.MAX_REGIONS)
        .isEqualTo(constexpr("include/gstm/store_view.cuh", "kMaxRegions"));
    assertThat(KernelStructs.STORE_VIEW_BYTES).isEqualTo(16 + 24 * StoreLayout.MAX_REGIONS);
    assertThat(CsmvChecks.MAX_WRITES)
        .isEqualTo(constexpr("include/gstm/csmv.cuh", "kMaxWrites"));
    assertThat(CsmvKernel.ENTRY_WORDS)
        .isEqualTo(constexpr("include/gstm/csmv.cuh", "kMaxWrites") + 2);
  }

  @Test
  void graphAndKMeansKernelsAreTheOnesLaunched() throws IOException {
    String graph = Files.readString(CUDA.resolve("graph_relax.cu"));
    assertThat(graph).contains(" " + CudaGraphRelax.SYMBOL + "(");
    assertThat(graph).contains("sizeof(RelaxArgs) == " + CudaGraphRelax.ARGS_BYTES);
    assertThat(graph).contains(" " + CudaGraphRelax.SPLIT_SYMBOL + "(");
    assertThat(graph).contains("sizeof(SplitArgs) == " + CudaGraphRelax.SPLIT_ARGS_BYTES);
    assertThat(constexpr("graph_relax.cu", "kChunkEdges")).isEqualTo(CudaGraphRelax.CHUNK_EDGES);
    String program = Files.readString(CUDA.resolve("jit/program_jit.cu"));
    assertThat(program).contains("sizeof(RelaxArgs) == " + CudaProgramRelax.ARGS_BYTES);
    assertThat(program).contains("kRelaxWords = " + CudaProgramRelax.WORDS + "\n");
    assertThat(constexpr("jit/program_jit.cu", "kRelaxChunk"))
        .isEqualTo(CudaProgramRelax.CHUNK_EDGES);
    for (boolean drain : new boolean[] {false, true}) {
      assertThat(program).contains(
          ProgramPtx.relaxKernel(4, drain).replace("4", "") + "##CAP(");
    }
    String kmeans = Files.readString(CUDA.resolve("kmeans_update.cu"));
    assertThat(kmeans).contains(CudaKMeans.SYMBOL + "(");
    assertThat(kmeans).contains("commit<" + KMeansWorkload.CAPACITY + ">");
  }

  /** A comment that names a Java twin names one that exists (renames leave no stale pointer). */
  @Test
  void javaClassesTheKernelsNameExist() throws IOException {
    Pattern javaName = Pattern.compile("io\\.gstm(?:\\.[a-z]\\w*)+\\.[A-Z]\\w*");
    List<String> missing = new ArrayList<>();
    try (Stream<Path> files = Files.walk(CUDA)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        Matcher m = javaName.matcher(Files.readString(f));
        while (m.find()) {
          try {
            Class.forName(m.group(), false, getClass().getClassLoader());
          } catch (ClassNotFoundException e) {
            missing.add(CUDA.relativize(f) + ": " + m.group());
          }
        }
      }
    }
    assertThat(missing).isEmpty();
  }
}
