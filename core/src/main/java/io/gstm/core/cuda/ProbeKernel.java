package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed launch of the probes in {@code limits.cu}, all
 * {@code (uint32_t* data, uint32_t n, uint32_t ops_per_thread, uint32_t seed,
 * unsigned long long* sink)}.
 */
final class ProbeKernel {
  static final String MODULE = "limits";
  /** Same signature, an illegal address on purpose: only for the fatal-error test. */
  static final String FAULT_SYMBOL = "gstm_probe_fault";

  enum Kind {
    READ_CAS("gstm_probe_read_cas"),
    ATOMIC_ADD("gstm_probe_atomic_add"),
    DEPENDENT_LOAD("gstm_probe_dependent_load");

    final String symbol;

    Kind(String symbol) {
      this.symbol = symbol;
    }
  }

  private ProbeKernel() {}

  static void launch(CUfunction f, int blocks, int threadsPerBlock, DeviceBuffer data, int n,
      int opsPerThread, int seed, DeviceBuffer sink) {
    Pointer params = Pointer.to(
        Pointer.to(data.pointer()), Pointer.to(new int[] {n}), Pointer.to(new int[] {opsPerThread}),
        Pointer.to(new int[] {seed}), Pointer.to(sink.pointer()));
    CudaErrors.call("launch " + MODULE,
        () -> cuLaunchKernel(f, blocks, 1, 1, threadsPerBlock, 1, 1, 0, null, params, null));
  }
}
