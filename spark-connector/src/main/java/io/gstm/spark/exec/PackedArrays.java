package io.gstm.spark.exec;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Large int, long and double arrays on a stream as raw bytes, converted a chunk at a time in
 * bulk. Java serialization writes a primitive array element by element (a few hundred MB/s): a
 * subgraph's values (12 bytes a vertex, 107 MB at R-MAT 2^24) took half a second to reach the
 * driver that way. Used by the graph's task results and boundary updates, and by the frames a
 * {@link TaskMesh} carries. A null array is written as length -1.
 */
public final class PackedArrays {
  /** Bytes converted at a time. */
  public static final int CHUNK = 1 << 20;

  private PackedArrays() {}

  public static void writeInts(DataOutput out, int[] a) throws IOException {
    writeInts(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeInts(DataOutput out, int[] a, int n) throws IOException {
    out.writeInt(n);
    byte[] buf = new byte[(int) Math.min(CHUNK, (long) Math.max(0, n) * Integer.BYTES)];
    ByteBuffer b = ByteBuffer.wrap(buf);
    for (int i = 0; i < n; i += CHUNK / Integer.BYTES) {
      int len = Math.min(n - i, CHUNK / Integer.BYTES);
      b.clear();
      b.asIntBuffer().put(a, i, len);
      out.write(buf, 0, len * Integer.BYTES);
    }
  }

  public static void writeDoubles(DataOutput out, double[] a) throws IOException {
    writeDoubles(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeDoubles(DataOutput out, double[] a, int n) throws IOException {
    out.writeInt(n);
    byte[] buf = new byte[(int) Math.min(CHUNK, (long) Math.max(0, n) * Double.BYTES)];
    ByteBuffer b = ByteBuffer.wrap(buf);
    for (int i = 0; i < n; i += CHUNK / Double.BYTES) {
      int len = Math.min(n - i, CHUNK / Double.BYTES);
      b.clear();
      b.asDoubleBuffer().put(a, i, len);
      out.write(buf, 0, len * Double.BYTES);
    }
  }

  public static void writeLongs(DataOutput out, long[] a) throws IOException {
    writeLongs(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeLongs(DataOutput out, long[] a, int n) throws IOException {
    out.writeInt(n);
    byte[] buf = new byte[(int) Math.min(CHUNK, (long) Math.max(0, n) * Long.BYTES)];
    ByteBuffer b = ByteBuffer.wrap(buf);
    for (int i = 0; i < n; i += CHUNK / Long.BYTES) {
      int len = Math.min(n - i, CHUNK / Long.BYTES);
      b.clear();
      b.asLongBuffer().put(a, i, len);
      out.write(buf, 0, len * Long.BYTES);
    }
  }

  public static long[] readLongs(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    long[] a = new long[n];
    byte[] buf = new byte[(int) Math.min(CHUNK, (long) n * Long.BYTES)];
    for (int i = 0; i < n; i += CHUNK / Long.BYTES) {
      int len = Math.min(n - i, CHUNK / Long.BYTES);
      in.readFully(buf, 0, len * Long.BYTES);
      ByteBuffer.wrap(buf, 0, len * Long.BYTES).asLongBuffer().get(a, i, len);
    }
    return a;
  }

  /** The first {@code n} bytes of {@code a} (n = -1: a null array). */
  public static void writeBytes(DataOutput out, byte[] a, int n) throws IOException {
    out.writeInt(n);
    if (n > 0) {
      out.write(a, 0, n);
    }
  }

  public static byte[] readBytes(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    byte[] a = new byte[n];
    in.readFully(a);
    return a;
  }

  public static int[] readInts(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    int[] a = new int[n];
    byte[] buf = new byte[(int) Math.min(CHUNK, (long) n * Integer.BYTES)];
    for (int i = 0; i < n; i += CHUNK / Integer.BYTES) {
      int len = Math.min(n - i, CHUNK / Integer.BYTES);
      in.readFully(buf, 0, len * Integer.BYTES);
      ByteBuffer.wrap(buf, 0, len * Integer.BYTES).asIntBuffer().get(a, i, len);
    }
    return a;
  }

  public static double[] readDoubles(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    double[] a = new double[n];
    byte[] buf = new byte[(int) Math.min(CHUNK, (long) n * Double.BYTES)];
    for (int i = 0; i < n; i += CHUNK / Double.BYTES) {
      int len = Math.min(n - i, CHUNK / Double.BYTES);
      in.readFully(buf, 0, len * Double.BYTES);
      ByteBuffer.wrap(buf, 0, len * Double.BYTES).asDoubleBuffer().get(a, i, len);
    }
    return a;
  }

  /** An array per partition (null entries and a null whole allowed). */
  public static void writeIntRows(DataOutput out, int[][] rows) throws IOException {
    out.writeInt(rows == null ? -1 : rows.length);
    if (rows != null) {
      for (int[] r : rows) {
        writeInts(out, r);
      }
    }
  }

  public static int[][] readIntRows(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    int[][] rows = new int[n][];
    for (int i = 0; i < n; i++) {
      rows[i] = readInts(in);
    }
    return rows;
  }

  public static void writeDoubleRows(DataOutput out, double[][] rows) throws IOException {
    out.writeInt(rows == null ? -1 : rows.length);
    if (rows != null) {
      for (double[] r : rows) {
        writeDoubles(out, r);
      }
    }
  }

  public static double[][] readDoubleRows(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    double[][] rows = new double[n][];
    for (int i = 0; i < n; i++) {
      rows[i] = readDoubles(in);
    }
    return rows;
  }
}
