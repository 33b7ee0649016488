package io.gstm.core.cuda;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Device buffers kept for the next batch or build. A batch of 10 M transactions takes about ten
 * buffers, some of hundreds of MB, and a CSR build of 263 M edges about 14 GB in a dozen;
 * allocating and freeing them each time costs more than their kernels (cuMemFree also waits for
 * the device; 84-160 ms a build at R-MAT 2^24 on an H200). Repeated work has the same sizes, so
 * a buffer is reused when it is at least the size asked and at most a quarter larger: a taker
 * must use the bytes it asked for, not {@link DeviceBuffer#bytes()}. At most {@code limit}
 * bytes stay idle here, the least recently returned freed first to make room; {@link #trim}
 * frees them all, and the engine does it before an allocation fails for want of memory
 * ({@link DeviceBuffer#reclaimOnOutOfMemory}) and when it closes.
 *
 * <p>No lock is held across a CUDA call: an allocation that fails may trim this pool from the
 * same thread or another pool of the context from another.
 */
final class DeviceBufferPool implements AutoCloseable {
  /** Smaller buffers are allocated each time: cheap, and not worth holding. */
  static final long MIN_POOLED = 1 << 20;

  private final long limit;
  private final TreeMap<Long, Deque<DeviceBuffer>> idle = new TreeMap<>();
  /** The idle buffers, least recently returned first. */
  private final Deque<DeviceBuffer> byAge = new ArrayDeque<>();
  private long idleBytes;

  DeviceBufferPool(long limit) {
    this.limit = limit;
  }

  /** A buffer of at least {@code bytes}: an idle one of at most 5/4 of that, else a new one. */
  DeviceBuffer take(long bytes) {
    DeviceBuffer reused = bytes >= MIN_POOLED ? takeIdle(bytes) : null;
    return reused != null ? reused : new DeviceBuffer(bytes);
  }

  /**
   * A buffer for each size in turn, zero-filled when {@code zeroed}; all or none: when one
   * fails, those already taken are given back. The caller gives them back.
   */
  DeviceBuffer[] takeAll(boolean zeroed, long... bytes) {
    List<DeviceBuffer> taken = new ArrayList<>(bytes.length);
    try {
      for (long b : bytes) {
        DeviceBuffer d = take(b);
        taken.add(d);
        if (zeroed) {
          d.zero();
        }
      }
    } catch (RuntimeException e) {
      try {
        giveAll(taken);
      } catch (RuntimeException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
    return taken.toArray(new DeviceBuffer[0]);
  }

  private synchronized DeviceBuffer takeIdle(long bytes) {
    Map.Entry<Long, Deque<DeviceBuffer>> e = idle.ceilingEntry(bytes);
    if (e == null || e.getKey() > bytes + bytes / 4) {
      return null;
    }
    DeviceBuffer b = e.getValue().pop();
    if (e.getValue().isEmpty()) {
      idle.remove(e.getKey());
    }
    byAge.removeFirstOccurrence(b);
    idleBytes -= b.bytes();
    return b;
  }

  /**
   * Takes {@code b} back: kept, freeing the least recently returned buffers while the idle bytes
   * would pass the limit; freed when it is small or alone larger than the limit.
   */
  void give(DeviceBuffer b) {
    List<DeviceBuffer> freed = new ArrayList<>();
    synchronized (this) {
      if (b.bytes() < MIN_POOLED || b.bytes() > limit) {
        freed.add(b);
      } else {
        while (idleBytes + b.bytes() > limit) {
          freed.add(evictOldest());
        }
        idle.computeIfAbsent(b.bytes(), k -> new ArrayDeque<>()).push(b);
        byAge.addLast(b);
        idleBytes += b.bytes();
      }
    }
    DeviceBuffer.closeAll(freed);
  }

  /** Gives back every buffer of {@code buffers}, even when freeing one fails. */
  void giveAll(Iterable<DeviceBuffer> buffers) {
    DeviceBuffer.forEach(buffers, this::give);
  }

  private DeviceBuffer evictOldest() {
    DeviceBuffer b = byAge.removeFirst();
    Deque<DeviceBuffer> same = idle.get(b.bytes());
    same.removeFirstOccurrence(b);
    if (same.isEmpty()) {
      idle.remove(b.bytes());
    }
    idleBytes -= b.bytes();
    return b;
  }

  /** Bytes held idle. */
  synchronized long idleBytes() {
    return idleBytes;
  }

  /** The most bytes held idle. */
  long limit() {
    return limit;
  }

  /** Frees every idle buffer (the engine's context current); the bytes freed. */
  long trim() {
    List<DeviceBuffer> all;
    long bytes;
    synchronized (this) {
      all = new ArrayList<>(byAge);
      bytes = idleBytes;
      idle.clear();
      byAge.clear();
      idleBytes = 0;
    }
    DeviceBuffer.closeAll(all);
    return bytes;
  }

  @Override
  public void close() {
    trim();
  }
}
