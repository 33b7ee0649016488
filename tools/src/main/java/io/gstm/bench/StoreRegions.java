package io.gstm.bench;

import io.gstm.core.store.TxStore;

/** A store's int32 regions as one array per region, as the workloads' verifiers take them. */
final class StoreRegions {
  private StoreRegions() {}

  /** Writes {@code contents[g]} into region {@code g}, for every region given. */
  static void write(TxStore store, int[][] contents) {
    for (int g = 0; g < contents.length; g++) {
      store.writeInt32(g, contents[g]);
    }
  }

  /** Regions {@code 0..count-1}. */
  static int[][] read(TxStore store, int count) {
    int[][] out = new int[count][];
    for (int g = 0; g < count; g++) {
      out[g] = store.readInt32(g);
    }
    return out;
  }
}
