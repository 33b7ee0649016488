package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Items encoded and decoded on all cores come back as they went and in their order, whatever
 * their count and sizes; a stream cut short or a decoder's failure is an IOException, not a hang
 * or a partial list; the stream goes on right after the list.
 */
class ParallelFramesTest {
  private static final ParallelFrames.Encoder<long[]> LONGS = NarrowArrays::writeLongs;
  private static final ParallelFrames.Decoder<long[]> READ_LONGS = NarrowArrays::readLongs;

  private static List<long[]> items(int count, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    List<long[]> items = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      // Sizes from empty to past a narrowing block; the last one the largest, so that it ends
      // its encoding after the others.
      int n = i == count - 1 ? 3 * NarrowArrays.BLOCK + 5 : rnd.nextInt(2000);
      long[] a = new long[n];
      for (int j = 0; j < n; j++) {
        a[j] = rnd.nextLong(1L << rnd.nextInt(1, 63));
      }
      items.add(a);
    }
    return items;
  }

  private static byte[] written(List<long[]> items, int trailer) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(b)) {
      ParallelFrames.write(out, items, LONGS);
      out.writeInt(trailer);
    }
    return b.toByteArray();
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 17, 200})
  void itemsComeBackInTheirOrderAndTheStreamGoesOn(int count) throws Exception {
    List<long[]> items = items(count, count);
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(written(items, 0x5eed)));
    List<long[]> back = ParallelFrames.read(in, READ_LONGS);
    assertThat(back).hasSize(count);
    for (int i = 0; i < count; i++) {
      assertThat(back.get(i)).as("item %d", i).isEqualTo(items.get(i));
    }
    assertThat(in.readInt()).isEqualTo(0x5eed);
  }

  @Test
  void aStreamCutShortIsAnIoException() throws Exception {
    byte[] whole = written(items(5, 1), 0);
    for (int cut : new int[] {2, 6, whole.length / 2, whole.length - 5}) {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(whole, 0, cut));
      assertThatThrownBy(() -> ParallelFrames.read(in, READ_LONGS)).as("cut at %d", cut)
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void aNegativeCountOrLengthIsRefused() {
    byte[] count = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe};
    assertThatThrownBy(() -> ParallelFrames.read(
        new DataInputStream(new ByteArrayInputStream(count)), READ_LONGS))
        .isInstanceOf(IOException.class).hasMessageContaining("-2 frames");
    byte[] length = {0, 0, 0, 1, (byte) 0x80, 0, 0, 0};
    assertThatThrownBy(() -> ParallelFrames.read(
        new DataInputStream(new ByteArrayInputStream(length)), READ_LONGS))
        .isInstanceOf(IOException.class).hasMessageContaining("frame 0 of 1");
  }

  @Test
  void failuresOfTheCodersReachTheCaller() throws Exception {
    List<long[]> items = items(8, 3);
    ParallelFrames.Encoder<long[]> failing = (out, a) -> {
      if (a == items.get(5)) {
        throw new IOException("item 5 cannot be written");
      }
      LONGS.write(out, a);
    };
    assertThatThrownBy(() -> ParallelFrames.write(
        new DataOutputStream(new ByteArrayOutputStream()), items, failing))
        .isInstanceOf(IOException.class).hasMessage("item 5 cannot be written");
    ParallelFrames.Decoder<long[]> refusing = in -> {
      long[] a = READ_LONGS.read(in);
      if (a.length == items.get(2).length) {
        throw new IllegalStateException("item 2 refused");
      }
      return a;
    };
    assertThatThrownBy(() -> ParallelFrames.read(
        new DataInputStream(new ByteArrayInputStream(written(items, 0))), refusing))
        .isInstanceOf(IllegalStateException.class).hasMessage("item 2 refused");
  }
}
