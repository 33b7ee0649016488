package io.gstm.core.cuda;

import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.Backoff;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUfunction;

/**
 * Typed launch of the program kernels of the algorithms besides PR-STM over its lock table,
 * {@code gstm_program_<name>_s<capacity>(StoreView view, program::Table tab, SemanticOut out,
 * LockTableArgs args)} from {@code program_gpustm.cu}, {@code program_blocking.cu} and
 * {@code program_obstruction_free.cu}, and the packers of {@code gstm::LockTableArgs} (the
 * backoff, and the obstruction-free STM's public descriptors, {@code gstm::OfDescriptors}).
 */
final class LockTableKernel {
  static final int ARGS_BYTES = 104;
  static final int BACKOFF_BYTES = 16;
  static final int DESCRIPTORS_BYTES = 88;
  /** Shared memory a block may have without opting in. */
  private static final int DEFAULT_SHARED = 48 * 1024;

  private LockTableKernel() {}

  /** The fatbin module that holds {@code algorithm}'s program kernels. */
  static String module(Algorithm algorithm) {
    return switch (algorithm.kind()) {
      case GPU_STM -> "program_gpustm";
      case BLOCKING -> "program_blocking";
      case OBSTRUCTION_FREE -> "program_obstruction_free";
      default -> throw new IllegalArgumentException("algorithm: " + algorithm.label()
          + " has no lock-table program kernel");
    };
  }

  /** {@code gstm_program_<name>_s<capacity>}. */
  static String symbol(Algorithm algorithm, int capacity) {
    String name = switch (algorithm.kind()) {
      case GPU_STM -> "gpustm";
      case BLOCKING -> "blocking";
      case OBSTRUCTION_FREE -> "of";
      default -> throw new IllegalArgumentException("algorithm: " + algorithm.label()
          + " has no lock-table program kernel");
    };
    return "gstm_program_" + name + "_s" + capacity;
  }

  /**
   * The obstruction-free STM's descriptors for {@code threads} threads whose sets hold at most
   * {@code capacity} entries, in one buffer of the batch ({@code buf}), zeroed; their view. Other
   * algorithms get an empty view.
   */
  static byte[] descriptors(Algorithm algorithm, BatchBuffers buf, int threads, int capacity) {
    ByteBuffer b = buffer(DESCRIPTORS_BYTES);
    if (algorithm.kind() != Algorithm.Kind.OBSTRUCTION_FREE) {
      return b.array();
    }
    long t = threads;
    long entries = t * capacity;
    // status, then the 4-byte arrays, then the 8-byte values (all offsets 8-aligned).
    long status = 0;
    long owner = status + 8 * t;
    long lockCount = owner + 4 * t;
    long lockIdx = lockCount + 4 * t;
    long lockVer = lockIdx + 4 * entries;
    long writeCount = lockVer + 4 * entries;
    long wRegion = writeCount + 4 * t;
    long wIndex = wRegion + 4 * entries;
    long wLock = wIndex + 4 * entries;
    long wValue = align8(wLock + 4 * entries);
    long bytes = wValue + 8 * entries;
    DeviceBuffer d = buf.table(bytes);
    d.zero();
    long base = d.address();
    return b.putLong(base + status).putLong(base + owner).putLong(base + lockCount)
        .putLong(base + lockIdx).putLong(base + lockVer).putLong(base + writeCount)
        .putLong(base + wRegion).putLong(base + wIndex).putLong(base + wLock)
        .putLong(base + wValue).putInt(threads).putInt(capacity).array();
  }

  /** {@code gstm::LockTableArgs}: the backoff (none for GPU-STM), then the descriptors. */
  static byte[] args(Algorithm algorithm, byte[] descriptors) {
    Backoff bo = algorithm.isCederman() ? algorithm.backoff() : Backoff.none();
    return buffer(ARGS_BYTES).putInt(bo.kind().ordinal()).putInt(bo.unitNanos())
        .putInt(bo.maxNanos()).putInt(0).put(descriptors).array();
  }

  static void launch(CUfunction f, int blocks, int threadsPerBlock, int sharedBytes, byte[] view,
      byte[] table, byte[] out, byte[] args) {
    if (sharedBytes > DEFAULT_SHARED) {
      CudaErrors.call("cuFuncSetAttribute", () -> cuFuncSetAttribute(f,
          CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, sharedBytes));
    }
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(table), Pointer.to(out),
        Pointer.to(args));
    CudaErrors.call("launch lock-table program kernel", () -> cuLaunchKernel(f, blocks, 1, 1,
        threadsPerBlock, 1, 1, sharedBytes, null, params, null));
  }

  private static long align8(long offset) {
    return (offset + 7) & ~7L;
  }

  private static ByteBuffer buffer(int bytes) {
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
