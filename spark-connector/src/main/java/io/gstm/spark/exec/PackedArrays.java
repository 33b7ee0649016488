package io.gstm.spark.exec;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.stream.IntStream;

/**
 * Large int, long and double arrays on a stream as raw bytes, converted a chunk at a time in
 * bulk. Java serialization writes a primitive array element by element (a few hundred MB/s): a
 * subgraph's values (12 bytes a vertex, 107 MB at R-MAT 2^24) took half a second to reach the
 * driver that way. Used by the graph's task results and boundary updates ({@link NarrowArrays}
 * narrows a TxState epoch's frames). A null array is written as length -1.
 */
public final class PackedArrays {
  /** Bytes converted at a time. */
  public static final int CHUNK = 1 << 20;

  private PackedArrays() {}

  /**
   * Arrays of at least this many bytes are converted on all cores, whole, and go to or come
   * from the stream in one piece: one core converts about 1 GB/s, and the frames of a TxState
   * epoch's or a relaxation's exchange are tens of MB on the critical path of every task.
   */
  public static final long PARALLEL_BYTES = 4 << 20;

  /** Puts elements {@code [from, from + len)} into a buffer (at its position), or gets them. */
  private interface Convert {
    void apply(ByteBuffer b, int from, int len);
  }

  /** {@code n} elements of {@code width} bytes, {@code put} converting them (n = -1: null). */
  private static void write(DataOutput out, int n, int width, Convert put) throws IOException {
    out.writeInt(n);
    if (n <= 0) {
      return;
    }
    int per = CHUNK / width;
    long bytes = (long) n * width;
    if (bytes >= PARALLEL_BYTES && bytes <= Integer.MAX_VALUE - 8) {
      byte[] all = new byte[(int) bytes];
      IntStream.range(0, (n + per - 1) / per).parallel().forEach(c -> {
        int from = c * per;
        int len = Math.min(n - from, per);
        put.apply(ByteBuffer.wrap(all, from * width, len * width), from, len);
      });
      out.write(all);
      return;
    }
    byte[] buf = new byte[(int) Math.min(CHUNK, bytes)];
    for (int i = 0; i < n; i += per) {
      int len = Math.min(n - i, per);
      put.apply(ByteBuffer.wrap(buf), i, len);
      out.write(buf, 0, len * width);
    }
  }

  /** Reads what {@link #write} wrote of {@code n} elements, {@code get} converting them. */
  private static void read(DataInput in, int n, int width, Convert get) throws IOException {
    int per = CHUNK / width;
    long bytes = (long) n * width;
    if (bytes >= PARALLEL_BYTES && bytes <= Integer.MAX_VALUE - 8) {
      byte[] all = new byte[(int) bytes];
      in.readFully(all);
      IntStream.range(0, (n + per - 1) / per).parallel().forEach(c -> {
        int from = c * per;
        int len = Math.min(n - from, per);
        get.apply(ByteBuffer.wrap(all, from * width, len * width), from, len);
      });
      return;
    }
    byte[] buf = new byte[(int) Math.min(CHUNK, bytes)];
    for (int i = 0; i < n; i += per) {
      int len = Math.min(n - i, per);
      in.readFully(buf, 0, len * width);
      get.apply(ByteBuffer.wrap(buf, 0, len * width), i, len);
    }
  }

  public static void writeInts(DataOutput out, int[] a) throws IOException {
    writeInts(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeInts(DataOutput out, int[] a, int n) throws IOException {
    write(out, n, Integer.BYTES, (b, from, len) -> b.asIntBuffer().put(a, from, len));
  }

  public static void writeDoubles(DataOutput out, double[] a) throws IOException {
    writeDoubles(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeDoubles(DataOutput out, double[] a, int n) throws IOException {
    write(out, n, Double.BYTES, (b, from, len) -> b.asDoubleBuffer().put(a, from, len));
  }

  public static void writeLongs(DataOutput out, long[] a) throws IOException {
    writeLongs(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeLongs(DataOutput out, long[] a, int n) throws IOException {
    write(out, n, Long.BYTES, (b, from, len) -> b.asLongBuffer().put(a, from, len));
  }

  public static long[] readLongs(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    long[] a = new long[n];
    read(in, n, Long.BYTES, (b, from, len) -> b.asLongBuffer().get(a, from, len));
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
    read(in, n, Integer.BYTES, (b, from, len) -> b.asIntBuffer().get(a, from, len));
    return a;
  }

  public static double[] readDoubles(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    double[] a = new double[n];
    read(in, n, Double.BYTES, (b, from, len) -> b.asDoubleBuffer().get(a, from, len));
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
