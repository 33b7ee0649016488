package io.gstm.spark.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.exec.PackedArrays;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The graph's arrays as raw bytes come back as they went: lengths around the conversion chunk,
 * empty and null arrays, rows with null entries, through a subgraph's step output and its
 * collected values.
 */
class PackedArraysTest {
  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T o) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  private static int[] ints(int n, SplittableRandom rnd) {
    return rnd.ints(n).toArray();
  }

  private static double[] doubles(int n, SplittableRandom rnd) {
    double[] d = rnd.doubles(n).toArray();
    if (n > 2) {
      d[0] = Double.POSITIVE_INFINITY;
      d[1] = -0.0;
    }
    return d;
  }

  @Test
  void aStepOutputKeepsEveryArray() throws Exception {
    SplittableRandom rnd = new SplittableRandom(3);
    int chunkInts = PackedArrays.CHUNK / Integer.BYTES;
    for (int n : new int[] {0, 1, chunkInts - 1, chunkInts, chunkInts + 1, 3 * chunkInts + 5}) {
      StepStats st = new StepStats();
      st.messages = n;
      st.engines.add("jvm");
      int[][] ids = {ints(n, rnd), null, ints(n / 2, rnd)};
      double[][] vals = {doubles(n, rnd), null, doubles(n / 2, rnd)};
      StepOutput o = new StepOutput(2, doubles(n, rnd), ids, vals, st, ints(n, rnd));
      StepOutput back = roundTrip(o);
      assertThat(back.partition).isEqualTo(2);
      assertThat(back.values).isEqualTo(o.values);
      assertThat(back.messageIds).isDeepEqualTo(o.messageIds);
      assertThat(back.messageValues).isDeepEqualTo(o.messageValues);
      assertThat(back.globalIds).isEqualTo(o.globalIds);
      assertThat(back.stats.messages).isEqualTo(n);
      assertThat(back.stats.engines).containsExactly("jvm");
    }
    // A summary: no values, no ids, no updates.
    StepOutput bare = roundTrip(new StepOutput(0, null, null, null, new StepStats()));
    assertThat(bare.values).isNull();
    assertThat(bare.messageIds).isNull();
    assertThat(bare.globalIds).isNull();
  }

  /** Arrays from the size converted on all cores, whole, on a plain data stream. */
  @Test
  void largeArraysComeBackAsTheyWent() throws Exception {
    SplittableRandom rnd = new SplittableRandom(5);
    int longs = (int) (PackedArrays.PARALLEL_BYTES / Long.BYTES);
    for (int n : new int[] {longs - 1, longs, longs + 1, 5 * longs + 3}) {
      long[] l = rnd.longs(n).toArray();
      int[] i = ints(2 * n, rnd);
      double[] d = doubles(n, rnd);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
        PackedArrays.writeLongs(out, l, n - 1); // a prefix
        PackedArrays.writeInts(out, i);
        PackedArrays.writeDoubles(out, d);
        PackedArrays.writeLongs(out, null);
      }
      try (java.io.DataInputStream in = new java.io.DataInputStream(
          new ByteArrayInputStream(bytes.toByteArray()))) {
        assertThat(PackedArrays.readLongs(in)).isEqualTo(java.util.Arrays.copyOf(l, n - 1));
        assertThat(PackedArrays.readInts(in)).isEqualTo(i);
        assertThat(PackedArrays.readDoubles(in)).isEqualTo(d);
        assertThat(PackedArrays.readLongs(in)).isNull();
        assertThat(in.read()).isEqualTo(-1);
      }
    }
  }

  @Test
  void collectedValuesKeepTheirIds() throws Exception {
    SplittableRandom rnd = new SplittableRandom(4);
    int n = PackedArrays.CHUNK / Double.BYTES * 2 + 3;
    RelaxationResult.Reported r = new RelaxationResult.Reported(ints(n, rnd), doubles(n, rnd));
    RelaxationResult.Reported back = roundTrip(r);
    assertThat(back.ids).isEqualTo(r.ids);
    assertThat(back.values).isEqualTo(r.values);
  }
}
