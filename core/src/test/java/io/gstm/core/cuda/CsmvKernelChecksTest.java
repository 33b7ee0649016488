package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import org.junit.jupiter.api.Test;

/** The CSMV pre-launch checks, as a pure function (no GPU needed). */
class CsmvKernelChecksTest {
  private static final long H100_OPTIN = 227 * 1024;

  @Test
  void recordLargerThanSharedMemoryNamesTheLimit() {
    Algorithm alg = Algorithm.csmv(4).withRecordEntries(Algorithm.MAX_RECORD);
    assertThatThrownBy(() -> CsmvKernel.checkLaunch(alg, 256, 10, 132, 4, H100_OPTIN, 200))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recordEntries")
        .hasMessageContaining("shared memory").hasMessageContaining("at most");
  }

  @Test
  void gridThatIsNotResidentNamesTheLimit() {
    assertThatThrownBy(() -> CsmvKernel.checkLaunch(Algorithm.csmv(4), 256, 528, 132, 4,
        H100_OPTIN, 200)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("528 client blocks + 1 server block").hasMessageContaining("528 blocks");
  }

  @Test
  void tooManyClientWarpsForTheServer() {
    assertThatThrownBy(() -> CsmvKernel.checkLaunch(Algorithm.csmv(4), 32, 300, 132, 32,
        H100_OPTIN, 200)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client warps exceed");
  }

  @Test
  void wholeWarpsOnly() {
    assertThatThrownBy(() -> CsmvKernel.checkLaunch(Algorithm.csmv(4), 48, 1, 132, 4,
        H100_OPTIN, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiple of 32");
  }

  @Test
  void fittingLaunchesPass() {
    assertThat(CsmvKernel.checkLaunch(Algorithm.csmv(4), 256, 131, 132, 1, H100_OPTIN, 200))
        .isEqualTo(4 * 10 * Algorithm.DEFAULT_RECORD);
    assertThat(CsmvKernel.checkLaunch(Algorithm.csmv(4).withVariant(CsmvVariant.JVSTM_GPU), 256,
        132, 132, 1, H100_OPTIN, 200)).isZero();
  }
}
