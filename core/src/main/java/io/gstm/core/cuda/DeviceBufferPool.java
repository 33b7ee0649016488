package io.gstm.core.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The device buffers of finished batches, kept for the next ones. A batch of 10 M transactions
 * takes about ten buffers, some of hundreds of MB; allocating and freeing them each time costs
 * more than the kernel (cuMemFree also waits for the device). Epochs of a workload have the
 * same sizes, so a buffer is reused when it is at least the size asked and at most a quarter
 * larger. At most {@code limit} bytes stay idle here; {@link #trim} frees them all (before a
 * large allocation elsewhere, or when one failed), and so does closing the engine.
 */
final class DeviceBufferPool implements AutoCloseable {
  /** Smaller buffers are allocated each time: cheap, and not worth holding. */
  static final long MIN_POOLED = 1 << 20;

  private final long limit;
  private final TreeMap<Long, Deque<DeviceBuffer>> idle = new TreeMap<>();
  private long idleBytes;

  DeviceBufferPool(long limit) {
    this.limit = limit;
  }

  /** A buffer of at least {@code bytes}: an idle one of at most 5/4 of that, else a new one. */
  synchronized DeviceBuffer take(long bytes) {
    if (bytes >= MIN_POOLED) {
      Map.Entry<Long, Deque<DeviceBuffer>> e = idle.ceilingEntry(bytes);
      if (e != null && e.getKey() <= bytes + bytes / 4) {
        DeviceBuffer b = e.getValue().pop();
        if (e.getValue().isEmpty()) {
          idle.remove(e.getKey());
        }
        idleBytes -= b.bytes();
        return b;
      }
    }
    try {
      return new DeviceBuffer(bytes);
    } catch (DeviceOutOfMemoryException e) {
      if (idleBytes == 0) {
        throw e;
      }
      trim();
      return new DeviceBuffer(bytes);
    }
  }

  /** Takes {@code b} back: kept while the idle bytes stay within the limit, else freed. */
  synchronized void give(DeviceBuffer b) {
    if (b.bytes() < MIN_POOLED || idleBytes + b.bytes() > limit) {
      b.close();
      return;
    }
    idle.computeIfAbsent(b.bytes(), k -> new ArrayDeque<>()).push(b);
    idleBytes += b.bytes();
  }

  /** Bytes held idle. */
  synchronized long idleBytes() {
    return idleBytes;
  }

  /** Frees every idle buffer (the engine's context current). */
  synchronized void trim() {
    List<DeviceBuffer> all = new ArrayList<>();
    idle.values().forEach(all::addAll);
    idle.clear();
    idleBytes = 0;
    DeviceBuffer.closeAll(all);
  }

  @Override
  public void close() {
    trim();
  }
}
