package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;

import jcuda.Pointer;

/**
 * Copy rates between Java arrays and device memory, measured in the same run as a benchmark so
 * that a batch path can be judged against them: a Java array straight to the driver (which
 * copies pageable memory through small buffers of its own), the same through the engine's
 * pinned staging buffer (a copy on all cores, then DMA), and DMA alone from pinned memory.
 *
 * @param bytes bytes per copy
 * @param arrayUpload an int[] to the device through the driver, bytes/s
 * @param stagedUpload an int[] to the device through the pinned staging buffer, bytes/s
 * @param pinnedUpload pinned host memory to the device (the bus's rate), bytes/s
 * @param arrayDownload the device to an int[] through the driver, bytes/s
 * @param stagedDownload the device to an int[] through the pinned staging buffer, bytes/s
 */
public record CopyProbe(long bytes, double arrayUpload, double stagedUpload,
    double pinnedUpload, double arrayDownload, double stagedDownload) {

  /** Best of three of each way of copying {@code words} 32-bit words. */
  static CopyProbe measure(CudaEngine engine, int words) {
    if (words < 1) {
      throw new IllegalArgumentException("words must be at least 1, got " + words);
    }
    engine.bind();
    long bytes = 4L * words;
    int[] array = new int[words];
    for (int i = 0; i < words; i++) {
      array[i] = i * 0x9E3779B9;
    }
    PinnedStaging staging = engine.staging();
    Pointer pinned = new Pointer();
    CudaErrors.call("cuMemAllocHost", () -> cuMemAllocHost(pinned, bytes));
    try (DeviceBuffer dev = new DeviceBuffer(bytes)) {
      double arrayUp = best(bytes, () -> dev.upload(Pointer.to(array), bytes));
      double stagedUp = best(bytes, () -> staging.upload(dev, 0, bytes, 4,
          (b, from, n) -> b.asIntBuffer().put(array, from, n)));
      double pinnedUp = best(bytes, () -> dev.upload(pinned, bytes));
      double arrayDown = best(bytes, () -> dev.download(Pointer.to(array), bytes));
      double stagedDown = best(bytes, () -> staging.download(dev, bytes, 4,
          (b, from, n) -> b.asIntBuffer().get(array, from, n)));
      return new CopyProbe(bytes, arrayUp, stagedUp, pinnedUp, arrayDown, stagedDown);
    } finally {
      CudaErrors.call("cuMemFreeHost", () -> cuMemFreeHost(pinned));
    }
  }

  private static double best(long bytes, Runnable copy) {
    copy.run(); // warm-up: first touch, staging allocation
    long fastest = Long.MAX_VALUE;
    for (int rep = 0; rep < 3; rep++) {
      long t0 = System.nanoTime();
      copy.run();
      fastest = Math.min(fastest, System.nanoTime() - t0);
    }
    return bytes * 1e9 / Math.max(1, fastest);
  }

  @Override
  public String toString() {
    return String.format(java.util.Locale.ROOT, "%,d MB: to the device %.1f GB/s from an array "
            + "(driver), %.1f GB/s through the pinned staging buffer, %.1f GB/s from pinned "
            + "memory (DMA); back %.1f GB/s to an array (driver), %.1f GB/s staged",
        bytes >> 20, arrayUpload / 1e9, stagedUpload / 1e9, pinnedUpload / 1e9,
        arrayDownload / 1e9, stagedDownload / 1e9);
  }
}
