package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import org.junit.jupiter.api.Test;

class ProgramSmokeTest {
  static final String MOVE = """
      // move stock between two warehouse slots if the source has enough
      program move(src: int32, dst: int32, qty: int32)
          regions stock: int32
          outputs left: int32
      {
        let have = stock[src];
        if (have < qty) { abort(7); }
        stock[src] = have - qty;
        stock[dst] = stock[dst] + qty;
        left = have - qty;
      }
      """;

  @Test
  void movesStock() {
    ProgramSet set = ProgramSet.parse(MOVE);
    System.out.println(set.get(0).disassemble());
    System.out.println(set.get(0).analysis());
    try (JvmEngine e = new JvmEngine(2);
        TxStore store = e.createStore(StoreLayout.of(new RegionSpec("stock", RegionType.INT32, 4, 1)))) {
      store.writeInt32(0, new int[] {10, 0, 5, 0});
      ProgramBatch batch = ProgramBatch.builder(set).all("move", 3)
          .int32("src", new int[] {0, 2, 1})
          .int32("dst", new int[] {1, 3, 3})
          .int32("qty", new int[] {4, 9, 100})
          .grid(1, 1).build();
      ProgramResult r = e.run(store, batch, RunOptions.defaults());
      assertThat(r.outcome(0)).isEqualTo(Outcome.COMMITTED);
      assertThat(r.outcome(1)).isEqualTo(Outcome.USER_ABORT);
      assertThat(r.abortCode(1)).isEqualTo(7);
      assertThat(r.outcome(2)).isEqualTo(Outcome.USER_ABORT);
      assertThat(r.outputLong(0, "left")).isEqualTo(6);
      assertThat(store.readInt32(0)).containsExactly(6, 4, 5, 0);
    }
  }
}
