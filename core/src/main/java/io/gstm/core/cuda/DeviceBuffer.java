package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD32;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import io.gstm.core.engine.LeakTracker;
import io.gstm.core.engine.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;

/**
 * Device memory owned by one Java object. Closing frees it; the handle is cleared even when the
 * free fails, and a second close throws. The caller must have the engine's context current. A
 * buffer never closed is reported and freed by the {@link LeakTracker} once unreachable.
 */
final class DeviceBuffer implements AutoCloseable {
  /** A CUdeviceptr that exposes its address, for packing into structs passed by value. */
  private static final class Ptr extends CUdeviceptr {
    long address() {
      return getNativePointer();
    }
  }

  private final long bytes;
  private Ptr ptr;
  private final LeakTracker.Handle leak;

  /**
   * Allocates {@code bytes} (at least 1) of device memory; the caller closes it. Throws
   * {@link DeviceOutOfMemoryException} (saying what the device has free) if it does not fit.
   */
  DeviceBuffer(long bytes) {
    this.bytes = Math.max(1, bytes);
    Ptr p = new Ptr();
    CUcontext context = new CUcontext();
    CudaErrors.call("cuCtxGetCurrent", () -> cuCtxGetCurrent(context));
    try {
      allocate(p, context);
    } catch (DeviceOutOfMemoryException e) {
      long[] free = {0};
      long[] total = {0};
      CudaErrors.call("cuMemGetInfo", () -> cuMemGetInfo(free, total));
      throw new DeviceOutOfMemoryException("out of device memory: " + e.getMessage()
          + "; the device has " + free[0] + " of " + total[0] + " bytes free", e);
    }
    this.ptr = p;
    long size = this.bytes;
    this.leak = LeakTracker.track(this, "a device buffer of " + size + " bytes",
        () -> CudaErrors.call("free a leaked device buffer", () -> {
          cuCtxSetCurrent(context); // the tracker's thread has no context of its own
          cuMemFree(p);
        }));
  }

  /** cuMemAlloc; when it fails for want of memory, once more after the context's reclaimers. */
  private void allocate(Ptr p, CUcontext context) {
    try {
      CudaErrors.call("cuMemAlloc(" + bytes + " bytes)", () -> cuMemAlloc(p, bytes));
    } catch (DeviceOutOfMemoryException e) {
      List<LongSupplier> reclaimers = RECLAIMERS.getOrDefault(context, List.of());
      long reclaimed = 0;
      for (LongSupplier r : reclaimers) {
        reclaimed += r.getAsLong();
      }
      if (reclaimed == 0) {
        throw e;
      }
      CudaErrors.call("cuMemAlloc(" + bytes + " bytes)", () -> cuMemAlloc(p, bytes));
    }
  }

  /** Per context, what frees idle memory there (each returns the bytes it freed). */
  private static final Map<CUcontext, List<LongSupplier>> RECLAIMERS = new ConcurrentHashMap<>();

  /**
   * Registers {@code reclaim} (freeing memory kept idle in {@code context}, with that context
   * current; returning the bytes freed): an allocation there that does not fit runs it and tries
   * once more. Returns what unregisters it.
   */
  static Runnable reclaimOnOutOfMemory(CUcontext context, LongSupplier reclaim) {
    RECLAIMERS.computeIfAbsent(context, c -> new CopyOnWriteArrayList<>()).add(reclaim);
    return () -> RECLAIMERS.computeIfPresent(context, (c, list) -> {
      list.remove(reclaim);
      return list.isEmpty() ? null : list;
    });
  }

  /**
   * A buffer of each size in turn, zero-filled when {@code zeroed}; all or none: when one fails,
   * those already taken are freed. The caller closes them.
   */
  static DeviceBuffer[] allocate(boolean zeroed, long... bytes) {
    return Resources.closeOnExcept(new ArrayList<DeviceBuffer>(bytes.length), held -> {
      for (long b : bytes) {
        DeviceBuffer d = new DeviceBuffer(b);
        held.add(d);
        if (zeroed) {
          d.zero();
        }
      }
      return held.toArray(new DeviceBuffer[0]);
    });
  }

  long bytes() {
    return bytes;
  }

  CUdeviceptr pointer() {
    return checkOpen();
  }

  /** The raw device address. */
  long address() {
    return checkOpen().address();
  }

  void upload(Pointer host, long count) {
    CudaErrors.call("cuMemcpyHtoD", () -> cuMemcpyHtoD(checkOpen(), host, count));
  }

  /** Uploads {@code values} starting at 32-bit word {@code offsetWords} of this buffer. */
  void uploadAt(long offsetWords, int[] values) {
    CUdeviceptr at = checkOpen().withByteOffset(4L * offsetWords);
    CudaErrors.call("cuMemcpyHtoD",
        () -> cuMemcpyHtoD(at, Pointer.to(values), 4L * values.length));
  }

  /** Uploads {@code count} bytes to byte offset {@code offset} of this buffer. */
  void uploadAtByte(long offset, Pointer host, long count) {
    CUdeviceptr at = checkOpen().withByteOffset(offset);
    CudaErrors.call("cuMemcpyHtoD", () -> cuMemcpyHtoD(at, host, count));
  }

  /** Downloads {@code count} bytes from byte offset {@code offset} of this buffer. */
  void downloadAtByte(long offset, Pointer host, long count) {
    CUdeviceptr at = checkOpen().withByteOffset(offset);
    CudaErrors.call("cuMemcpyDtoH", () -> cuMemcpyDtoH(host, at, count));
  }

  void download(Pointer host, long count) {
    CudaErrors.call("cuMemcpyDtoH", () -> cuMemcpyDtoH(host, checkOpen(), count));
  }

  /** Copies this buffer onto {@code target} (as large), on the device. */
  void copyTo(DeviceBuffer target) {
    if (target.bytes != bytes) {
      throw new IllegalArgumentException("target: " + target.bytes + " bytes, this buffer "
          + bytes);
    }
    copyTo(target, bytes);
  }

  /** Copies the first {@code count} bytes of this buffer onto {@code target}, on the device. */
  void copyTo(DeviceBuffer target, long count) {
    if (count > bytes || count > target.bytes) {
      throw new IllegalArgumentException("count: " + count + " bytes, more than this buffer ("
          + bytes + ") or the target (" + target.bytes + ") holds");
    }
    CUdeviceptr to = target.checkOpen();
    CudaErrors.call("cuMemcpyDtoD", () -> cuMemcpyDtoD(to, checkOpen(), count));
  }

  void zero() {
    CudaErrors.call("cuMemsetD8", () -> cuMemsetD8(checkOpen(), (byte) 0, bytes));
  }

  /** Sets the first {@code count} 32-bit words to {@code value}. */
  void fill32(int value, long count) {
    CudaErrors.call("cuMemsetD32", () -> cuMemsetD32(checkOpen(), value, count));
  }

  private Ptr checkOpen() {
    if (ptr == null) {
      throw new IllegalStateException("device buffer already closed");
    }
    return ptr;
  }

  @Override
  public void close() {
    Ptr p = checkOpen();
    try {
      CudaErrors.call("cuMemFree", () -> cuMemFree(p));
    } finally {
      ptr = null;
      leak.close();
    }
  }

  /**
   * Closes every buffer, even when some fail; throws the first failure with the others
   * suppressed.
   */
  static void closeAll(Iterable<DeviceBuffer> buffers) {
    forEach(buffers, DeviceBuffer::close);
  }

  /**
   * Runs {@code action} on every buffer, even when it fails on some; throws the first failure
   * with the others suppressed.
   */
  static void forEach(Iterable<DeviceBuffer> buffers, Consumer<DeviceBuffer> action) {
    RuntimeException failure = null;
    for (DeviceBuffer b : buffers) {
      try {
        action.accept(b);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
