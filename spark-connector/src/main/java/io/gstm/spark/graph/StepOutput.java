package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.exec.PackedArrays;
import io.gstm.spark.exec.SameJvm;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;

/**
 * What one partition's superstep leaves: its values (one per local vertex), the boundary
 * updates it sends (one chunk per target partition) and its counters.
 */
// Kryo (spark.serializer) would skip the transient arrays: it serializes this class as Java does.
@DefaultSerializer(JavaSerializer.class)
final class StepOutput implements Serializable {
  private static final long serialVersionUID = 2L;

  final int partition;
  // The arrays go as raw bytes (writeObject): Java serialization of a large primitive array
  // runs at a few hundred MB/s, and these are a subgraph's values, ids and updates.
  transient double[] values;
  /**
   * Per target partition: global ids and values of the vertices that improved here and that
   * partition also holds (or null).
   */
  transient int[][] messageIds;
  transient double[][] messageValues;
  final StepStats stats;
  /**
   * The subgraph's global ids ({@link LocalGraph#globalIds}, the same array, not a copy), so
   * that the result rows need only this output; null in a {@link #summary}.
   */
  transient int[] globalIds;
  /**
   * A result of a task in the driver's JVM (local mode): its values and global ids reach the
   * driver by reference ({@link SameJvm}), not serialized.
   */
  private transient boolean inProcess;

  StepOutput(int partition, double[] values, int[][] messageIds, double[][] messageValues,
      StepStats stats) {
    this(partition, values, messageIds, messageValues, stats, null);
  }

  StepOutput(int partition, double[] values, int[][] messageIds, double[][] messageValues,
      StepStats stats, int[] globalIds) {
    this.globalIds = globalIds;
    this.partition = partition;
    this.values = values;
    this.messageIds = messageIds;
    this.messageValues = messageValues;
    this.stats = stats;
  }

  /**
   * A single subgraph's values come back with its superstep up to this many vertices (any
   * number in local mode, where they come by reference).
   */
  static final int VALUES_WITH_SUMMARY = 1 << 22;

  /**
   * What the driver collects after a superstep: the counters and, when this partition sends no
   * more than {@code limit} updates, the updates too (else none, and the exchange is a shuffle);
   * {@code withValues} (a single subgraph, whose first superstep is its last) adds the values
   * and global ids of up to {@link #VALUES_WITH_SUMMARY} vertices, or of any number when the
   * task runs in the driver's JVM, so that collecting them later needs no job of its own.
   */
  StepOutput summary(int limit, boolean withValues) {
    boolean small = stats.messages > 0 && stats.messages <= limit;
    boolean inDriverJvm = withValues && SameJvm.taskInDriverJvm();
    boolean values = withValues && globalIds != null
        && (globalIds.length <= VALUES_WITH_SUMMARY || inDriverJvm);
    StepOutput s = new StepOutput(partition, values ? this.values : null,
        small ? messageIds : null, small ? messageValues : null, stats,
        values ? globalIds : null);
    s.inProcess = values && inDriverJvm;
    return s;
  }

  private void writeObject(ObjectOutputStream out) throws IOException {
    out.defaultWriteObject();
    SameJvm.writeHeld(out, inProcess, new Object[] {values, globalIds});
    if (!inProcess) {
      PackedArrays.writeDoubles(out, values);
      PackedArrays.writeInts(out, globalIds);
    }
    PackedArrays.writeIntRows(out, messageIds);
    PackedArrays.writeDoubleRows(out, messageValues);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    Object[] held = SameJvm.readHeld(in);
    if (held != null) {
      values = (double[]) held[0];
      globalIds = (int[]) held[1];
    } else {
      values = PackedArrays.readDoubles(in);
      globalIds = PackedArrays.readInts(in);
    }
    messageIds = PackedArrays.readIntRows(in);
    messageValues = PackedArrays.readDoubleRows(in);
  }

  /** A packed batch of boundary updates for one partition. */
  @DefaultSerializer(JavaSerializer.class)
  record Messages(int[] ids, double[] values) implements Serializable {}
}
