package io.gstm.spark.exec;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.stream.IntStream;

/**
 * Long, int and byte arrays on a stream in the fewest whole bytes their values need: the least
 * value, then each element's distance from it in 0, 1, 2, 4 or 8 bytes (a frame of reference).
 * A TxState epoch's routed transactions hold ids from one epoch's range, keys and amounts far
 * inside a long's, one program and no early outcome: what crosses between executors shrinks to
 * about a third of {@link PackedArrays}' raw bytes. Arrays past {@link
 * PackedArrays#PARALLEL_BYTES} are scanned and converted on all cores. A null array is written
 * as length -1. {@code -Dgstm.exchange.raw=true} writes {@link PackedArrays}' raw bytes
 * instead (to compare the two), marked as such: a reader reads either, whatever its own setting.
 */
public final class NarrowArrays {
  private static final boolean RAW = Boolean.getBoolean("gstm.exchange.raw");
  /** The width byte that says PackedArrays' raw array follows (its own length first). */
  static final int RAW_WIDTH = 0xff;
  /** Elements scanned or converted at a time. */
  static final int BLOCK = 1 << 16;

  private NarrowArrays() {}

  /** Element {@code i} of the array being written, as a long. */
  private interface Source {
    long get(int i);
  }

  /** Stores element {@code i} of the array being read. */
  private interface Sink {
    void set(int i, long v);
  }

  public static void writeLongs(DataOutput out, long[] a) throws IOException {
    writeLongs(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeLongs(DataOutput out, long[] a, int n) throws IOException {
    writeLongs(out, a, n, RAW);
  }

  static void writeLongs(DataOutput out, long[] a, int n, boolean raw) throws IOException {
    if (raw && rawFollows(out, n)) {
      PackedArrays.writeLongs(out, a, n);
      return;
    }
    write(out, n, i -> a[i]);
  }

  public static long[] readLongs(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    long[] a = new long[n];
    return read(in, n, (i, v) -> a[i] = v) ? a : PackedArrays.readLongs(in);
  }

  public static void writeInts(DataOutput out, int[] a) throws IOException {
    writeInts(out, a, a == null ? -1 : a.length);
  }

  /** The first {@code n} elements of {@code a} (n = -1: a null array). */
  public static void writeInts(DataOutput out, int[] a, int n) throws IOException {
    writeInts(out, a, n, RAW);
  }

  static void writeInts(DataOutput out, int[] a, int n, boolean raw) throws IOException {
    if (raw && rawFollows(out, n)) {
      PackedArrays.writeInts(out, a, n);
      return;
    }
    write(out, n, i -> a[i]);
  }

  public static int[] readInts(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    int[] a = new int[n];
    return read(in, n, (i, v) -> a[i] = (int) v) ? a : PackedArrays.readInts(in);
  }

  /** The first {@code n} bytes of {@code a} (n = -1: a null array). */
  public static void writeBytes(DataOutput out, byte[] a, int n) throws IOException {
    if (RAW && rawFollows(out, n)) {
      PackedArrays.writeBytes(out, a, n);
      return;
    }
    write(out, n, i -> a[i]);
  }

  /** For a non-empty array, its length and the raw mark: true, the raw array goes next. */
  private static boolean rawFollows(DataOutput out, int n) throws IOException {
    if (n <= 0) {
      return false;
    }
    out.writeInt(n);
    out.writeByte(RAW_WIDTH);
    return true;
  }

  public static byte[] readBytes(DataInput in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    byte[] a = new byte[n];
    return read(in, n, (i, v) -> a[i] = (byte) v) ? a : PackedArrays.readBytes(in);
  }

  /** Bytes per distance from {@code min} that hold every value up to {@code max}. */
  static int width(long min, long max) {
    // The span as an unsigned number is exact: it lies in [0, 2^64 - 1].
    long span = max - min;
    if (span == 0) {
      return 0;
    }
    if (Long.compareUnsigned(span, 0xffL) <= 0) {
      return 1;
    }
    if (Long.compareUnsigned(span, 0xffffL) <= 0) {
      return 2;
    }
    return Long.compareUnsigned(span, 0xffffffffL) <= 0 ? 4 : 8;
  }

  private static boolean parallel(int n, int width) {
    long bytes = (long) n * Math.max(width, 1);
    return bytes >= PackedArrays.PARALLEL_BYTES && bytes <= Integer.MAX_VALUE - 8;
  }

  private static void write(DataOutput out, int n, Source src) throws IOException {
    out.writeInt(n);
    if (n <= 0) {
      return;
    }
    int blocks = (n + BLOCK - 1) / BLOCK;
    IntStream scan = IntStream.range(0, blocks);
    long[] range = (parallel(n, 8) ? scan.parallel() : scan).mapToObj(b -> {
      long min = Long.MAX_VALUE;
      long max = Long.MIN_VALUE;
      for (int i = b * BLOCK, end = Math.min(n, i + BLOCK); i < end; i++) {
        long v = src.get(i);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      return new long[] {min, max};
    }).reduce((x, y) -> new long[] {Math.min(x[0], y[0]), Math.max(x[1], y[1])}).orElseThrow();
    long base = range[0];
    int width = width(base, range[1]);
    out.writeByte(width);
    out.writeLong(base);
    if (width == 0) {
      return;
    }
    if (parallel(n, width)) {
      byte[] all = new byte[n * width];
      IntStream.range(0, blocks).parallel().forEach(b -> {
        int from = b * BLOCK;
        encode(src, from, Math.min(n - from, BLOCK), base, width, all, from * width);
      });
      out.write(all);
      return;
    }
    byte[] buf = new byte[Math.min(n, BLOCK) * width];
    for (int from = 0; from < n; from += BLOCK) {
      int len = Math.min(n - from, BLOCK);
      encode(src, from, len, base, width, buf, 0);
      out.write(buf, 0, len * width);
    }
  }

  /** Reads the {@code n} elements into {@code dst}; false: a raw array follows instead. */
  private static boolean read(DataInput in, int n, Sink dst) throws IOException {
    if (n == 0) {
      return true;
    }
    int width = in.readUnsignedByte();
    if (width == RAW_WIDTH) {
      return false;
    }
    if (width != 0 && width != 1 && width != 2 && width != 4 && width != 8) {
      throw new IOException("a narrowed array of width " + width + ": not written by this class");
    }
    long base = in.readLong();
    int blocks = (n + BLOCK - 1) / BLOCK;
    // Width 0 (every element the base) reads no bytes: decode fills the base.
    if (parallel(n, width)) {
      byte[] all = new byte[n * width];
      in.readFully(all);
      IntStream.range(0, blocks).parallel().forEach(b -> {
        int from = b * BLOCK;
        decode(all, from * width, width, base, dst, from, Math.min(n - from, BLOCK));
      });
      return true;
    }
    byte[] buf = new byte[Math.min(n, BLOCK) * width];
    for (int from = 0; from < n; from += BLOCK) {
      int len = Math.min(n - from, BLOCK);
      in.readFully(buf, 0, len * width);
      decode(buf, 0, width, base, dst, from, len);
    }
    return true;
  }

  /**
   * One loop for every width, its bytes written by shifts: a width's own loop (a VarHandle store
   * per element) ran interpreted the first time that width came up, 5 M elements taking a
   * quarter to three quarters of a second on the node of two H200s in a TxState's first epoch,
   * after warm-ups whose values happened to need other widths. This loop is compiled at its first
   * use, whatever the width.
   */
  private static void encode(Source src, int from, int len, long base, int width, byte[] dst,
      int at) {
    for (int i = 0, p = at; i < len; i++, p += width) {
      long d = src.get(from + i) - base;
      for (int k = 0; k < width; k++) {
        dst[p + k] = (byte) (d >>> (k << 3));
      }
    }
  }

  /** As {@link #encode}: one loop for every width (0: every element the base). */
  private static void decode(byte[] src, int at, int width, long base, Sink dst, int from,
      int len) {
    for (int i = 0, p = at; i < len; i++, p += width) {
      long d = 0;
      for (int k = 0; k < width; k++) {
        d |= (src[p + k] & 0xffL) << (k << 3);
      }
      dst.set(from + i, base + d);
    }
  }
}
