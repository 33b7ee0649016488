package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Several threads sharing one engine (Spark tasks of one executor) all finish, each verified. */
class JvmEngineConcurrentCallersTest {

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void callersOnSeveralThreadsAreServedOneAfterTheOther() throws Exception {
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try (JvmEngine engine = new JvmEngine(2)) {
      List<Future<Boolean>> done = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        long seed = c;
        done.add(callers.submit(() -> {
          boolean ok = true;
          BankConfig cfg = BankConfig.builder().accounts(64).k(2).readOnly(0.2).lockCoverage(1)
              .grid(64, 2).txPerThread(4).seed(seed).build();
          try (TxStore store = engine.createStore(cfg.layout())) {
            for (int i = 0; i < 25; i++) {
              int[] initial = cfg.initialBalances();
              store.writeInt32(0, initial);
              TxBatch batch = cfg.batch();
              BatchResult r = engine.run(store, batch, RunOptions.defaults());
              ok &= BankVerifier.verify(initial, batch, r, store.readInt32(0)).ok();
            }
          }
          return ok;
        }));
      }
      for (Future<Boolean> f : done) {
        assertThat(f.get()).isTrue();
      }
    } finally {
      callers.shutdownNow();
    }
  }
}
