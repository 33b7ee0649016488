package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import io.gstm.core.workload.bank.BankConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A sticky CUDA error is a typed fatal error that says the process must restart, and so is every
 * call after it. This poisons the process's CUDA context: it runs alone, in its own JVM
 * ({@code GSTM_TEST_TAGS=poisons-context run-gpu-tests.sh}), never with the other GPU tests.
 */
@EnabledIfGpu
@Tag("poisons-context")
class CudaFatalErrorTest {
  @Test
  void anIllegalAddressIsFatalAndSaysToRestart() {
    CudaEngine gpu = CudaEngine.open(GpuCondition.device());
    assertThatThrownBy(gpu::injectFault).isInstanceOf(CudaFatalException.class)
        .hasMessageContaining("ILLEGAL_ADDRESS").hasMessageContaining("restart the process");
    BankConfig cfg = BankConfig.builder().accounts(1024).k(2).readOnly(0.2).lockCoverage(1)
        .grid(32, 1).txPerThread(1).seed(1).build();
    assertThatThrownBy(() -> gpu.createStore(cfg.layout()))
        .isInstanceOf(CudaFatalException.class).hasMessageContaining("restart the process");
  }
}
