package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The architecture check, a pure function, tested without a GPU. */
class KernelArchitecturesTest {
  private static KernelArchitectures built(String archs, String ptx, String kernels) {
    Properties p = new Properties();
    p.setProperty("architectures", archs);
    p.setProperty("ptx", ptx);
    p.setProperty("kernels", kernels);
    return KernelArchitectures.parse(p);
  }

  @Test
  void cubinsRunOnTheSameMajorAndPtxJitsForNewer() {
    KernelArchitectures k = built("80,90", "compute_90", "prstm_bank,limits");
    assertThat(k.cubins()).containsExactly(80, 90);
    assertThat(k.kernels()).containsExactly("prstm_bank", "limits");
    assertThat(k.supports(9, 0)).isTrue(); // H100: sm_90 cubin
    assertThat(k.supports(8, 0)).isTrue(); // A100
    assertThat(k.supports(8, 6)).isTrue(); // sm_86 runs the sm_80 cubin
    assertThat(k.supports(10, 0)).isTrue(); // Blackwell: JIT from compute_90 PTX
    assertThat(k.supports(7, 5)).isFalse(); // Turing: nothing fits
  }

  @Test
  void withoutPtxNewerMajorsAreRefused() {
    KernelArchitectures k = built("80", "", "prstm_bank");
    assertThat(k.supports(9, 0)).isFalse();
    assertThat(k.explain(9, 0)).contains("9.0");
  }

  @Test
  void aJarBuiltWithoutNvccSupportsNothingAndSaysSo() {
    KernelArchitectures k = built("", "", "");
    assertThat(k.supports(9, 0)).isFalse();
    assertThat(k.explain(9, 0)).contains("without nvcc");
  }

  @Test
  void theBuiltJarListsItsKernels() {
    KernelArchitectures k = KernelArchitectures.load();
    // Built here with nvcc when present; without it the list is empty and that is reported.
    if (!k.kernels().isEmpty()) {
      assertThat(k.kernels()).containsAll(List.of("prstm_bank", "limits"));
      assertThat(k.cubins()).isNotEmpty().allSatisfy(a -> assertThat(a).isBetween(50, 200));
      // The architectures asked for, when this run names them as the build did (a jar built
      // with another GSTM_KERNEL_ARCHS, for this machine's GPU or by -Pkernels, is not wrong).
      String asked = System.getenv("GSTM_KERNEL_ARCHS");
      if (asked != null && !asked.isBlank() && !asked.trim().equals("none")) {
        assertThat(k.cubins()).containsExactlyInAnyOrder(java.util.Arrays.stream(
            asked.trim().split("\\s+")).map(Integer::valueOf).toArray(Integer[]::new));
      }
    }
  }
}
