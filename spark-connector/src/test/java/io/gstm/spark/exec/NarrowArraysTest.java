package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Narrowed arrays come back as they went, in the bytes their span needs: every width, spans
 * that need all 64 bits, lengths around the conversion block and past the size converted on
 * all cores, empty and null arrays.
 */
class NarrowArraysTest {
  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  private static byte[] bytes(Writer w) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      w.write(out);
    }
    return b.toByteArray();
  }

  private static DataInputStream in(byte[] b) {
    return new DataInputStream(new ByteArrayInputStream(b));
  }

  /** Values {@code base + [0, span]}, span unsigned (0: all base), the first and last at the ends. */
  private static long[] spread(int n, long base, long span, SplittableRandom rnd) {
    long[] a = new long[n];
    for (int i = 0; i < n; i++) {
      a[i] = base + (span == 0 ? 0 : span == -1 ? rnd.nextLong()
          : Long.remainderUnsigned(rnd.nextLong(), span + 1));
    }
    if (n > 2) {
      a[0] = base;
      a[n - 1] = base + span;
    }
    return a;
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, NarrowArrays.BLOCK - 1, NarrowArrays.BLOCK,
      NarrowArrays.BLOCK + 1, 3 * NarrowArrays.BLOCK + 7})
  void longsOfEveryWidthComeBackAsTheyWent(int n) throws Exception {
    SplittableRandom rnd = new SplittableRandom(n);
    long[][] spans = {{0, 0}, {7, 0xff}, {-300, 0xffff}, {1L << 40, 0xffffffffL},
        {-5, 0x100000000L}, {Long.MIN_VALUE, -1L}};
    int[] widths = {0, 1, 2, 4, 8, 8};
    for (int k = 0; k < spans.length; k++) {
      long[] a = spread(n, spans[k][0], spans[k][1], rnd);
      byte[] b = bytes(out -> NarrowArrays.writeLongs(out, a));
      int width = n > 2 ? widths[k] : b[4];
      assertThat(b.length).as("span %x", spans[k][1]).isEqualTo(4 + 1 + 8 + n * width);
      assertThat(NarrowArrays.readLongs(in(b))).isEqualTo(a);
    }
  }

  @Test
  void theLongsExtremesTakeAllEightBytes() throws Exception {
    long[] a = {Long.MAX_VALUE, Long.MIN_VALUE, 0, -1, 1};
    assertThat(NarrowArrays.width(Long.MIN_VALUE, Long.MAX_VALUE)).isEqualTo(8);
    assertThat(NarrowArrays.width(-1, 255)).isEqualTo(2);
    assertThat(NarrowArrays.width(-1, 254)).isEqualTo(1);
    assertThat(NarrowArrays.readLongs(in(bytes(out -> NarrowArrays.writeLongs(out, a)))))
        .containsExactly(a);
  }

  @Test
  void intsAndBytesComeBackAsTheyWent() throws Exception {
    SplittableRandom rnd = new SplittableRandom(11);
    int n = 2 * NarrowArrays.BLOCK + 3;
    int[] ints = rnd.ints(n).toArray();
    int[] small = rnd.ints(n, -100, 100).toArray();
    byte[] status = new byte[n];
    byte[] mixed = new byte[n];
    rnd.nextBytes(mixed);
    assertThat(NarrowArrays.readInts(in(bytes(out -> NarrowArrays.writeInts(out, ints)))))
        .isEqualTo(ints);
    byte[] smallBytes = bytes(out -> NarrowArrays.writeInts(out, small));
    assertThat(smallBytes).hasSize(4 + 1 + 8 + n);
    assertThat(NarrowArrays.readInts(in(smallBytes))).isEqualTo(small);
    byte[] zeros = bytes(out -> NarrowArrays.writeBytes(out, status, n));
    assertThat(zeros).hasSize(4 + 1 + 8);
    assertThat(NarrowArrays.readBytes(in(zeros))).isEqualTo(status);
    assertThat(NarrowArrays.readBytes(in(bytes(out -> NarrowArrays.writeBytes(out, mixed, n)))))
        .isEqualTo(mixed);
  }

  /** Past PackedArrays.PARALLEL_BYTES the arrays are scanned and converted on all cores. */
  @Test
  void largeArraysComeBackAsTheyWent() throws Exception {
    SplittableRandom rnd = new SplittableRandom(5);
    int n = (int) (PackedArrays.PARALLEL_BYTES / 2) + 3;
    long[] ids = spread(n, 40_000_000_000L, 9_999_999, rnd);
    long[] constant = spread(n, 42, 0, rnd);
    byte[] b = bytes(out -> {
      NarrowArrays.writeLongs(out, ids);
      NarrowArrays.writeLongs(out, constant);
    });
    assertThat(b).hasSize(13 + 4 * n + 13);
    DataInputStream in = in(b);
    assertThat(NarrowArrays.readLongs(in)).isEqualTo(ids);
    assertThat(NarrowArrays.readLongs(in)).isEqualTo(constant);
  }

  @Test
  void emptyAndNullArraysAndAPrefix() throws Exception {
    byte[] b = bytes(out -> {
      NarrowArrays.writeLongs(out, null);
      NarrowArrays.writeInts(out, new int[0]);
      NarrowArrays.writeLongs(out, new long[] {5, 6, 1 << 20}, 2);
      NarrowArrays.writeBytes(out, null, -1);
    });
    DataInputStream in = in(b);
    assertThat(NarrowArrays.readLongs(in)).isNull();
    assertThat(NarrowArrays.readInts(in)).isEmpty();
    assertThat(NarrowArrays.readLongs(in)).containsExactly(5, 6);
    assertThat(NarrowArrays.readBytes(in)).isNull();
  }

  /** The raw form (-Dgstm.exchange.raw=true) is marked: a reader without the setting reads it. */
  @Test
  void rawArraysAreReadWhateverTheReadersSetting() throws Exception {
    SplittableRandom rnd = new SplittableRandom(7);
    long[] longs = rnd.longs(3 * NarrowArrays.BLOCK).toArray();
    int[] ints = rnd.ints(1000, 0, 10).toArray();
    byte[] b = bytes(out -> {
      NarrowArrays.writeLongs(out, longs, longs.length, true);
      NarrowArrays.writeInts(out, ints, ints.length, true);
      NarrowArrays.writeLongs(out, new long[0], 0, true);
      NarrowArrays.writeInts(out, null, -1, true);
    });
    DataInputStream in = in(b);
    assertThat(NarrowArrays.readLongs(in)).isEqualTo(longs);
    assertThat(NarrowArrays.readInts(in)).isEqualTo(ints);
    assertThat(NarrowArrays.readLongs(in)).isEmpty();
    assertThat(NarrowArrays.readInts(in)).isNull();
    assertThat(in.read()).isEqualTo(-1);
  }

  @Test
  void aWidthItNeverWritesIsRefused() {
    byte[] b = {0, 0, 0, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6};
    assertThatThrownBy(() -> NarrowArrays.readLongs(in(b))).isInstanceOf(IOException.class)
        .hasMessageContaining("width 3");
  }
}
