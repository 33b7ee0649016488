package io.gstm.core.cuda;

import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed launch of {@code gstm_program_prstm_s<capacity>(StoreView view, program::Table tab,
 * SemanticOut out)} from {@code program.cu}, and the packer of {@code gstm::program::Table}
 * (also what {@code gstm_csmv_program} finds behind {@code Args::ext}).
 */
final class ProgramKernel {
  static final String MODULE = "program";
  static final String CSMV_SYMBOL = "gstm_csmv_program";
  static final int TABLE_BYTES = 64;
  /** Shared memory a block may have without opting in. */
  private static final int DEFAULT_SHARED = 48 * 1024;

  private ProgramKernel() {}

  /**
   * {@code gstm_program_prstm_s<capacity>}: programs under the semantic contention manager,
   * whether or not they retry (an in-place retry loop like the bank's own kernel, at three blocks
   * per SM, measured slower on the H100: 2.53 G against 3.06 G committed bank transfers/s).
   */
  static String symbol(int capacity) {
    return "gstm_program_prstm_s" + capacity;
  }

  /** {@code gstm::program::Table}. */
  static byte[] table(long image, long types, long cols, long results, long outputs,
      long abortCodes, int txCount, int imageWords, int registers, int outputsPerTx) {
    return ByteBuffer.allocate(TABLE_BYTES).order(ByteOrder.LITTLE_ENDIAN).putLong(image)
        .putLong(types).putLong(cols).putLong(results).putLong(outputs).putLong(abortCodes)
        .putInt(txCount).putInt(imageWords).putInt(registers).putInt(outputsPerTx).array();
  }

  static void launch(CUfunction f, int blocks, int threadsPerBlock, int sharedBytes, byte[] view,
      byte[] table, byte[] out) {
    if (sharedBytes > DEFAULT_SHARED) {
      CudaErrors.call("cuFuncSetAttribute", () -> cuFuncSetAttribute(f,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedBytes));
    }
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(table), Pointer.to(out));
    CudaErrors.call("launch program kernel", () -> cuLaunchKernel(f, blocks, 1, 1,
        threadsPerBlock, 1, 1, sharedBytes, null, params, null));
  }
}
