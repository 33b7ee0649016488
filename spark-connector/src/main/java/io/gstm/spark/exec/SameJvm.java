package io.gstm.spark.exec;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;

/**
 * Large arrays of a task's result handed to the driver by reference when the task runs in the
 * driver's JVM (Spark's local mode), instead of through the result's serialization. Spark
 * serializes a task result even there: a subgraph's 107 MB of values and ids at R-MAT 2^24 took
 * 0.35 s to reach the driver of a {@code local[16]} job, copied several times on one core. The
 * task's {@code writeObject} {@link #hold}s the arrays and writes a key; the driver's {@code
 * readObject}, in the same process, {@link #take}s them. A task result is deserialized once, by
 * the driver; only results are marked for it, never blocks a cache may write to disk. A result
 * that Spark drops after serializing it (a job cancelled as its last task ends) leaves its
 * arrays held until the process ends.
 */
public final class SameJvm {
  private static final ConcurrentHashMap<Long, Object> HELD = new ConcurrentHashMap<>();
  private static final AtomicLong NEXT = new AtomicLong();

  private SameJvm() {}

  /** Whether the calling thread runs a Spark task in the driver's JVM (local mode). */
  public static boolean taskInDriverJvm() {
    SparkEnv env = SparkEnv.get();
    return env != null && TaskContext.get() != null
        && "driver".equals(env.executorId()); // Spark's name for the driver's executor
  }

  /** Keeps {@code value} for the driver and returns its key. */
  public static long hold(Object value) {
    long key = NEXT.incrementAndGet();
    HELD.put(key, value);
    return key;
  }

  /**
   * The value held under {@code key}, no longer held.
   *
   * @throws IOException if none is (the result was read in another process or twice)
   */
  public static Object take(long key) throws IOException {
    Object value = HELD.remove(key);
    if (value == null) {
      throw new IOException("gstm: arrays handed over in process under key " + key
          + " are not held here (the result was read in another process, or twice)");
    }
    return value;
  }

  /** Values held and not yet taken (for tests). */
  static int held() {
    return HELD.size();
  }

  /**
   * Writes {@code arrays} as a key when {@code byReference} (they are held here), else marks
   * that the caller writes them itself; {@link #readHeld} reads the mark.
   */
  public static void writeHeld(ObjectOutputStream out, boolean byReference, Object[] arrays)
      throws IOException {
    out.writeBoolean(byReference);
    if (byReference) {
      out.writeLong(hold(arrays));
    }
  }

  /** The arrays {@link #writeHeld} held, or null when the writer wrote them itself. */
  public static Object[] readHeld(ObjectInputStream in) throws IOException {
    return in.readBoolean() ? (Object[]) take(in.readLong()) : null;
  }
}
