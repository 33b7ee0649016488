package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Region writes and reads of every type round-trip exactly, below the pinned staging threshold
 * (a direct copy), at it, and over several staging chunks with a ragged last one.
 */
@EnabledIfGpu
class CudaStoreCopyTest {
  private static CudaEngine gpu;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
  }

  @AfterAll
  static void close() {
    gpu.close();
  }

  @ParameterizedTest(name = "{0} words")
  @ValueSource(ints = {1, 1000, (int) (PinnedStaging.MIN_BYTES / 8),
      // A round that nearly fills the ring (its last piece short), two rounds, four rounds.
      PinnedStaging.CHUNK_BYTES / 8 - 7, PinnedStaging.CHUNK_BYTES / 8 * 2 - 3,
      PinnedStaging.CHUNK_BYTES / 8 * 3 + 13})
  void everyTypeRoundTrips(int words) {
    StoreLayout layout = StoreLayout.of(
        new RegionSpec("i32", RegionType.INT32, 2 * words, 64),
        new RegionSpec("i64", RegionType.INT64, words, 64),
        new RegionSpec("f32", RegionType.FLOAT32, 2 * words, 64),
        new RegionSpec("f64", RegionType.FLOAT64, words, 64));
    SplittableRandom rnd = new SplittableRandom(words);
    int[] i32 = rnd.ints(2L * words).toArray();
    long[] i64 = rnd.longs(words).toArray();
    float[] f32 = new float[2 * words];
    for (int i = 0; i < f32.length; i++) {
      f32[i] = (float) rnd.nextGaussian();
    }
    double[] f64 = rnd.doubles(words).map(d -> d * 1e300 - 5e299).toArray();
    try (TxStore store = gpu.createStore(layout)) {
      store.writeInt32(0, i32);
      store.writeInt64(1, i64);
      store.writeFloat32(2, f32);
      store.writeFloat64(3, f64);
      assertThat(store.readInt32(0)).isEqualTo(i32);
      assertThat(store.readInt64(1)).isEqualTo(i64);
      assertThat(store.readFloat32(2)).isEqualTo(f32);
      assertThat(store.readFloat64(3)).isEqualTo(f64);
    }
  }

  /**
   * A FLOAT64 region filled in ranges (a direct copy, a staged one over several chunks, one
   * word) holds what one write of the whole would, and a range write leaves the other words.
   */
  @ParameterizedTest(name = "{0} words")
  @ValueSource(ints = {1000, PinnedStaging.CHUNK_BYTES / 8 * 2 + 77})
  void rangeWritesPlaceEachPart(int words) {
    StoreLayout layout = StoreLayout.of(new RegionSpec("f64", RegionType.FLOAT64, words, 64));
    double[] all = new SplittableRandom(words).doubles(words).toArray();
    int[] cuts = {0, 1, words / 3, words - 1, words};
    try (TxStore store = gpu.createStore(layout)) {
      for (int c = 0; c + 1 < cuts.length; c++) {
        store.writeFloat64At(0, cuts[c], java.util.Arrays.copyOfRange(all, cuts[c],
            cuts[c + 1]));
      }
      assertThat(store.readFloat64(0)).isEqualTo(all);
      store.writeFloat64At(0, words / 2, new double[] {-1.5});
      double[] expected = all.clone();
      expected[words / 2] = -1.5;
      assertThat(store.readFloat64(0)).isEqualTo(expected);
      org.assertj.core.api.Assertions.assertThatThrownBy(
          () -> store.writeFloat64At(0, words - 1, new double[2]))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("offset: words " + (words - 1) + ".." + words);
      assertThat(store.readFloat64(0)).isEqualTo(expected);
    }
  }

  /**
   * A store copied onto another on the device holds the same regions and lock versions after
   * a batch, runs the next batch to the state its source reaches (and to the JVM engine's), and
   * is its own: the source's next batch leaves the copy as it was.
   */
  @org.junit.jupiter.api.Test
  void aCopyOnTheDeviceHoldsTheStateAndRunsOnAsItsSourceDoes() {
    ProgramSet inc = io.gstm.core.store.StoreCopyToTest.INC;
    StoreLayout layout = io.gstm.core.store.StoreCopyToTest.LAYOUT;
    try (TxStore a = gpu.createStore(layout); TxStore b = gpu.createStore(layout);
        io.gstm.core.jvm.JvmEngine jvm = new io.gstm.core.jvm.JvmEngine(2);
        TxStore j = jvm.createStore(layout)) {
      gpu.run(a, io.gstm.core.store.StoreCopyToTest.batch(inc, 1, 50_000),
          io.gstm.core.batch.RunOptions.defaults());
      a.copyTo(b);
      assertThat(StoreContents.read(b)).isDeepEqualTo(StoreContents.read(a));
      assertThat(b.lockVersions()).isEqualTo(a.lockVersions());
      long[][] copied = StoreContents.read(b);
      StoreContents.write(j, copied);
      ProgramBatch next = io.gstm.core.store.StoreCopyToTest.batch(inc, 2, 30_000);
      gpu.run(a, next, io.gstm.core.batch.RunOptions.defaults());
      assertThat(StoreContents.read(b)).as("the copy is its own").isDeepEqualTo(copied);
      gpu.run(b, next, io.gstm.core.batch.RunOptions.defaults());
      jvm.run(j, next, io.gstm.core.batch.RunOptions.defaults());
      assertThat(StoreContents.read(b)).isDeepEqualTo(StoreContents.read(a))
          .isDeepEqualTo(StoreContents.read(j));
    }
  }

  /**
   * A store copied into a larger one on the device (a state that grows): its words first, zeros
   * after, as the JVM engine's copy leaves them.
   */
  @org.junit.jupiter.api.Test
  void aCopyIntoALargerStoreOnTheDeviceHoldsItsWordsFirstAndZerosAfter() {
    ProgramSet inc = io.gstm.core.store.StoreCopyToTest.INC;
    StoreLayout layout = io.gstm.core.store.StoreCopyToTest.LAYOUT;
    StoreLayout big = io.gstm.core.store.StoreCopyToTest.grown(9_000);
    try (TxStore a = gpu.createStore(layout); TxStore b = gpu.createStore(big);
        io.gstm.core.jvm.JvmEngine jvm = new io.gstm.core.jvm.JvmEngine(2);
        TxStore j = jvm.createStore(layout); TxStore jb = jvm.createStore(big)) {
      ProgramBatch first = io.gstm.core.store.StoreCopyToTest.batch(inc, 1, 50_000);
      gpu.run(a, first, io.gstm.core.batch.RunOptions.defaults());
      jvm.run(j, first, io.gstm.core.batch.RunOptions.defaults());
      a.copyInto(b);
      j.copyInto(jb);
      assertThat(StoreContents.read(b)).isDeepEqualTo(StoreContents.read(jb));
      assertThat(StoreContents.read(b)[0][70_000]).isZero();
    }
  }
}
