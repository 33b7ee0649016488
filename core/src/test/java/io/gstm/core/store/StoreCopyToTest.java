package io.gstm.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.Column;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link TxStore#copyTo}: an undo copy that stays on the engine. After a batch, a copy holds the
 * same regions and lock versions (PR-STM; CSMV copies its regions through the default), runs
 * the same next batch to the same state, and is independent of its source; a copy onto a store
 * of another layout or algorithm, or onto itself, is refused naming why.
 */
public class StoreCopyToTest {
  private static Engine jvm;

  @BeforeAll
  static void open() {
    jvm = new JvmEngine(2);
  }

  @AfterAll
  static void close() {
    jvm.close();
  }

  public static final StoreLayout LAYOUT = StoreLayout.of(
      new RegionSpec("n", RegionType.INT64, 70_000, 1),
      new RegionSpec("f", RegionType.FLOAT32, 3, 1),
      new RegionSpec("c", RegionType.INT32, 70_000, 4));

  public static final ProgramSet INC = ProgramSet.parse("""
      program inc(k: int32, d: int32) regions n: int64, c: int32 {
        n[k] = n[k] + 1;
        c[d] = c[d] + 2;
      }
      """);

  /** A batch of {@code m} increments over random words. */
  public static ProgramBatch batch(ProgramSet set, long seed, int m) {
    SplittableRandom rnd = new SplittableRandom(seed);
    return ProgramBatch.builder(set).all("inc", m)
        .column(Column.ofInt32("k", rnd.ints(m, 0, 70_000).toArray()))
        .column(Column.ofInt32("d", rnd.ints(m, 0, 70_000).toArray())).build();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"prstm", "csmv"})
  void aCopyHoldsTheStateAndRunsOnAsItsSourceDoes(String algorithm) {
    Algorithm alg = algorithm.equals("csmv") ? Algorithm.csmv(Algorithm.DEFAULT_VERSIONS)
        : Algorithm.prStm();
    StoreLayout layout = algorithm.equals("csmv") ? StoreLayout.of(
        new RegionSpec("n", RegionType.INT32, 70_000, 1),
        new RegionSpec("c", RegionType.INT32, 70_000, 1)) : LAYOUT;
    ProgramSet inc = algorithm.equals("csmv") ? ProgramSet.parse("""
        program inc(k: int32, d: int32) regions n: int32, c: int32 {
          n[k] = n[k] + 1;
          c[d] = c[d] + 2;
        }
        """) : INC;
    try (TxStore a = jvm.createStore(layout, alg); TxStore b = jvm.createStore(layout, alg)) {
      jvm.run(a, batch(inc, 1, 50_000), RunOptions.defaults());
      a.copyTo(b);
      assertThat(StoreContents.read(b)).isDeepEqualTo(StoreContents.read(a));
      if (!algorithm.equals("csmv")) {
        assertThat(b.lockVersions()).isEqualTo(a.lockVersions());
      }
      long[][] copied = StoreContents.read(b);
      jvm.run(a, batch(inc, 2, 30_000), RunOptions.defaults());
      assertThat(StoreContents.read(b)).as("the copy is its own").isDeepEqualTo(copied);
      jvm.run(b, batch(inc, 2, 30_000), RunOptions.defaults());
      assertThat(StoreContents.read(b)).isDeepEqualTo(StoreContents.read(a));
    }
  }

  @Test
  void aCopyOntoAnEqualLayoutBuiltApartIsTaken() {
    StoreLayout same = StoreLayout.of(
        new RegionSpec("n", RegionType.INT64, 70_000, 1),
        new RegionSpec("f", RegionType.FLOAT32, 3, 1),
        new RegionSpec("c", RegionType.INT32, 70_000, 4));
    assertThat(same).isEqualTo(LAYOUT).hasSameHashCodeAs(LAYOUT);
    try (TxStore a = jvm.createStore(LAYOUT); TxStore b = jvm.createStore(same)) {
      a.writeFloat32(1, new float[] {1.5f, -2f, 3f});
      a.copyTo(b);
      assertThat(b.readFloat32(1)).containsExactly(1.5f, -2f, 3f);
    }
  }

  @Test
  void aCopyOntoAnotherLayoutAnotherAlgorithmOrItselfIsRefused() {
    StoreLayout other = StoreLayout.of(new RegionSpec("n", RegionType.INT64, 69_999, 1));
    try (TxStore a = jvm.createStore(LAYOUT); TxStore b = jvm.createStore(other);
        TxStore c = jvm.createStore(LAYOUT, Algorithm.gpuStm())) {
      assertThatThrownBy(() -> a.copyTo(b)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("layout");
      assertThatThrownBy(() -> a.copyTo(c)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("algorithm");
      assertThatThrownBy(() -> a.copyTo(a)).hasMessageContaining("onto itself");
    }
  }

  /** The layout of {@link #LAYOUT} with every region {@code more} words longer. */
  public static StoreLayout grown(int more) {
    return StoreLayout.of(
        new RegionSpec("n", RegionType.INT64, 70_000 + more, 1),
        new RegionSpec("f", RegionType.FLOAT32, 3 + more, 1),
        new RegionSpec("c", RegionType.INT32, 70_000 + more, 4));
  }

  /**
   * {@link TxStore#copyInto}, as a store grows: the larger store's first words are the source's,
   * the rest zeros, and it runs on; a store that cannot hold it is refused naming why.
   */
  @Test
  void aStoreCopiedIntoALargerOneHoldsItsWordsFirstAndZerosAfter() {
    try (TxStore a = jvm.createStore(LAYOUT); TxStore big = jvm.createStore(grown(5_000));
        TxStore small = jvm.createStore(StoreLayout.of(
            new RegionSpec("n", RegionType.INT64, 70_000, 1),
            new RegionSpec("f", RegionType.FLOAT32, 2, 1),
            new RegionSpec("c", RegionType.INT32, 70_000, 4)));
        TxStore gpuStm = jvm.createStore(grown(1), Algorithm.gpuStm())) {
      jvm.run(a, batch(INC, 3, 40_000), RunOptions.defaults());
      a.writeFloat32(1, new float[] {1.5f, -2f, 3f});
      a.copyInto(big);
      long[][] from = StoreContents.read(a);
      long[][] to = StoreContents.read(big);
      for (int r = 0; r < from.length; r++) {
        assertThat(java.util.Arrays.copyOf(to[r], from[r].length)).isEqualTo(from[r]);
        assertThat(java.util.Arrays.copyOfRange(to[r], from[r].length, to[r].length))
            .containsOnly(0L);
      }
      jvm.run(big, batch(INC, 4, 10_000), RunOptions.defaults());
      assertThatThrownBy(() -> a.copyInto(small)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("cannot hold");
      assertThatThrownBy(() -> a.copyInto(gpuStm)).hasMessageContaining("algorithm");
      assertThatThrownBy(() -> a.copyInto(a)).hasMessageContaining("into itself");
    }
  }

  /** A FLOAT64 region read into an array the caller made: its words, or a clear refusal. */
  @Test
  void aRegionReadsIntoAGivenArray() {
    StoreLayout layout = StoreLayout.of(new RegionSpec("v", RegionType.FLOAT64, 1000, 1));
    try (TxStore s = jvm.createStore(layout)) {
      double[] v = new SplittableRandom(5).doubles(1000).toArray();
      s.writeFloat64(0, v);
      double[] into = new double[1000];
      s.readFloat64(0, into);
      assertThat(into).isEqualTo(v);
      assertThatThrownBy(() -> s.readFloat64(0, new double[999]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("into");
    }
  }
}
