package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed launch of {@code gstm_prstm_bank_s<capacity>(StoreView view, bank::Batch b,
 * BatchOut out)} from {@code prstm_bank.cu}.
 */
final class PrStmBankKernel {
  static final String MODULE = "prstm_bank";

  private PrStmBankKernel() {}

  static String symbol(int capacity) {
    return "gstm_prstm_bank_s" + capacity;
  }

  static void launch(CUfunction f, int blocks, int threadsPerBlock, byte[] view, byte[] batch,
      byte[] out) {
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(batch), Pointer.to(out));
    CudaErrors.call("launch " + MODULE,
        () -> cuLaunchKernel(f, blocks, 1, 1, threadsPerBlock, 1, 1, 0, null, params, null));
  }
}
