package io.gstm.core.jvm;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;

/** The stores and steps that the hand-made interleaving tests of the JVM STMs share. */
final class Interleavings {
  private Interleavings() {}

  /** A store of {@code algorithm}: one INT32 region of {@code words} zeros. */
  static JvmTxStore store(Algorithm algorithm, int words, int coverage) {
    JvmTxStore s = new JvmTxStore(null,
        StoreLayout.of(new RegionSpec("r", RegionType.INT32, words, coverage)), algorithm);
    s.writeInt32(0, new int[words]);
    return s;
  }

  /** {@code tx}, begun as the ordinary transaction of thread {@code owner}. */
  static <T extends JvmTx> T begun(T tx, int owner) {
    tx.begin(Priority.ordinary(owner));
    return tx;
  }

  /** Write skew: {@code a} copies word 0 plus one to word 1, {@code b} word 1 plus one to 0. */
  static void crossWrites(JvmTx a, JvmTx b) {
    a.write(0, 1, a.read(0, 0) + 1);
    b.write(0, 0, b.read(0, 1) + 1);
  }
}
