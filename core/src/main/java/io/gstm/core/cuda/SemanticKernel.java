package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed launch of {@code gstm_semantic_<workload>_s<capacity>(StoreView view, TxTable tab,
 * SemanticOut out)} from {@code semantic_<workload>.cu}: a workload's transaction bodies under
 * the semantic contention manager ({@code gstm/semantic.cuh}).
 */
final class SemanticKernel {
  private SemanticKernel() {}

  /** The fatbin that holds a workload's semantic kernels. */
  static String module(String workload) {
    return "semantic_" + workload.replace('-', '_');
  }

  static String symbol(String workload, int capacity) {
    return "gstm_" + module(workload) + "_s" + capacity;
  }

  static void launch(CUfunction f, int blocks, int threadsPerBlock, byte[] view, byte[] table,
      byte[] out) {
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(table), Pointer.to(out));
    CudaErrors.call("launch semantic kernel",
        () -> cuLaunchKernel(f, blocks, 1, 1, threadsPerBlock, 1, 1, 0, null, params, null));
  }
}
