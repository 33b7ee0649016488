package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.engine.GstmException;
import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A batch that fails half-way (here: its caller is interrupted while transfers commit) leaves the
 * store as it was: the regions its transactions wrote are copied by their first writer and put
 * back, every lock is released, and the next batch on the same store runs and verifies.
 */
class FailedBatchRestoreJvmTest {
  @Test
  void anInterruptedBatchLeavesTheStoreAsItWas() throws Exception {
    try (JvmEngine engine = new JvmEngine(2)) {
      boolean failed = false;
      for (int attempt = 0; attempt < 6 && !failed; attempt++) {
        BankConfig config = new BankConfig(4096, 2, 0.0, 1, 256, 64, 32 << attempt, 7 + attempt);
        try (TxStore store = engine.createStore(config.layout())) {
          int[] initial = config.initialBalances();
          store.writeInt32(0, initial);
          AtomicReference<Throwable> thrown = new AtomicReference<>();
          Thread runner = new Thread(() -> {
            try {
              engine.run(store, config.batch(), RunOptions.defaults());
            } catch (Throwable t) {
              thrown.set(t);
            }
          });
          runner.start();
          Thread.sleep(20);
          runner.interrupt();
          runner.join();
          if (thrown.get() == null) {
            continue; // the batch ended before the interrupt: try a longer one
          }
          failed = true;
          assertThat(thrown.get()).isInstanceOf(GstmException.class)
              .hasMessageContaining("restored");
          assertThat(store.readInt32(0)).as("balances after the failed batch")
              .isEqualTo(initial);
          BatchResult next = engine.run(store, config.batch(), RunOptions.defaults());
          assertThat(BankVerifier.verify(initial, config.batch(), next, store.readInt32(0)).ok())
              .as("the next batch on the restored store").isTrue();
        }
      }
      assertThat(failed).as("a batch was interrupted half-way").isTrue();
    }
  }
}
