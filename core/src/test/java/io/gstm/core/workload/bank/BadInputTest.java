package io.gstm.core.workload.bank;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.BankRun;
import io.gstm.core.testing.SharedEngines;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bad input is an IllegalArgumentException that names the parameter and the limit, raised before
 * anything runs, and a batch that fails leaves the store as it was.
 */
class BadInputTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  private static BankConfig config(int accounts, int k, int coverage, int tpb, int blocks,
      int perThread) {
    return BankConfig.builder().accounts(accounts).k(k).readOnly(0.2).lockCoverage(coverage)
        .grid(tpb, blocks).txPerThread(perThread).seed(1).build();
  }

  @Test
  void bankConfigNamesTheParameterAndTheLimit() {
    assertThatThrownBy(() -> config(0, 1, 1, 32, 1, 1)).hasMessageContaining("accounts")
        .hasMessageContaining("at least 1");
    assertThatThrownBy(() -> config(-5, 1, 1, 32, 1, 1)).hasMessageContaining("accounts");
    assertThatThrownBy(() -> config(3, 4, 1, 32, 1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("k must be in 1..3");
    assertThatThrownBy(() -> config(100, 17, 1, 32, 1, 1))
        .hasMessageContaining("k must be in 1..16");
    assertThatThrownBy(() -> config(100, 0, 1, 32, 1, 1)).hasMessageContaining("k must be");
    assertThatThrownBy(() -> config(100, 2, 0, 32, 1, 1)).hasMessageContaining("lockCoverage");
    assertThatThrownBy(() -> config(100, 2, 1, 0, 1, 1)).hasMessageContaining("threadsPerBlock");
    assertThatThrownBy(() -> config(100, 2, 1, 512, 1, 1)).hasMessageContaining("1..256");
    assertThatThrownBy(() -> config(100, 2, 1, 32, 0, 1)).hasMessageContaining("blocks");
    assertThatThrownBy(() -> config(100, 2, 1, 32, 1, 0)).hasMessageContaining("txPerThread");
    assertThatThrownBy(() -> config(100, 2, 1, 256, 1 << 23, 1))
        .hasMessageContaining("owner field").hasMessageContaining(String.valueOf(1L << 29));
    assertThatThrownBy(() -> BankConfig.builder().accounts(100).k(2).readOnly(1.5).lockCoverage(1)
        .grid(32, 1).txPerThread(1).seed(1).build())
        .hasMessageContaining("readOnlyFraction");
  }

  @Test
  void layoutAndBatchCheckTheirSizes() {
    assertThatThrownBy(() -> new RegionSpec("r", RegionType.INT32, 0, 1))
        .hasMessageContaining("length must be at least 1");
    assertThatThrownBy(() -> new RegionSpec("r", RegionType.INT32, 10, 0))
        .hasMessageContaining("lockCoverage must be at least 1");
    assertThatThrownBy(() -> new TxBatch("bank", new int[0], new int[0][], new int[] {1, 0}, 32,
        1, 2)).hasMessageContaining("at least 1 transaction");
    assertThatThrownBy(() -> new TxBatch("bank", new int[1], new int[][] {{0}, {1}},
        new int[] {1, 0}, 32, 1, 3)).hasMessageContaining("capacity must be one of");
  }

  /** A valid 2-account transfer batch over 10 accounts, edited by {@code edit} to be bad. */
  private static void assertRejectedAndStoreUntouched(Function<TxBatch, TxBatch> edit,
      String message) {
    BankConfig cfg = BankConfig.builder().accounts(10).k(2).readOnly(0).lockCoverage(1).grid(32, 1)
        .txPerThread(2).seed(5).build();
    try (TxStore store = engines.jvm().createStore(cfg.layout())) {
      int[] before = new int[10];
      for (int i = 0; i < before.length; i++) {
        before[i] = 100 + i;
      }
      store.writeInt32(0, before);
      int[] versions = store.lockVersions();
      TxBatch bad = edit.apply(cfg.batch());
      assertThatThrownBy(() -> engines.jvm().run(store, bad, RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
      assertThat(store.readInt32(0)).containsExactly(before);
      assertThat(store.lockVersions()).containsExactly(versions);
    }
  }

  private static TxBatch with(TxBatch b, int[] types, int[][] cols, int[] params) {
    return new TxBatch(b.workload(), types, cols, params, b.threadsPerBlock(), b.blocks(),
        b.capacity());
  }

  @Test
  void regionIndexOutOfRangeIsRejectedBeforeRunning() {
    assertRejectedAndStoreUntouched(b -> with(b, b.types(), b.columns(), new int[] {2, 3}),
        "region index 3 is out of range");
  }

  @Test
  void accountOutOfRangeIsRejectedBeforeRunning() {
    assertRejectedAndStoreUntouched(b -> {
      int[][] cols = b.columns().clone();
      cols[1] = cols[1].clone();
      cols[1][b.txCount() - 1] = 10;
      return with(b, b.types(), cols, b.params());
    }, "account 10");
  }

  @Test
  void unknownTypeAndWorkloadAreRejected() {
    assertRejectedAndStoreUntouched(b -> {
      int[] types = b.types().clone();
      types[0] = 7;
      return with(b, types, b.columns(), b.params());
    }, "types[0] = 7");
    assertRejectedAndStoreUntouched(b -> new TxBatch("no-such-workload", b.types(), b.columns(),
        b.params(), b.threadsPerBlock(), b.blocks(), b.capacity()),
        "unknown workload 'no-such-workload'");
  }

  @Test
  void storeOfAnotherEngineIsRejected() {
    BankConfig cfg = BankConfig.builder().accounts(10).k(2).readOnly(0).lockCoverage(1).grid(32, 1)
        .txPerThread(2).seed(5).build();
    try (JvmEngine other = new JvmEngine(1); TxStore foreign = other.createStore(cfg.layout())) {
      assertThatThrownBy(() -> engines.jvm().run(foreign, cfg.batch(), RunOptions.defaults()))
          .hasMessageContaining("another engine");
    }
  }

  @Test
  void tooLargeTransactionsChangeNothing() {
    BankConfig cfg = BankConfig.builder().accounts(64).k(4).readOnly(0.2).lockCoverage(1)
        .grid(32, 2).txPerThread(2).seed(3).build();
    BankRun run = BankRun.assertTooLargeChangesNothing(engines.jvm(), cfg);
    assertThat(run.verdict().ok()).isTrue();
  }

  @Test
  void abandonedTransactionsChangeNothing() {
    // One attempt each on 4 hot accounts: some transactions give up, the verifier still holds.
    List<BatchResult> results = new ArrayList<>();
    for (long seed = 0; seed < 10; seed++) {
      BankConfig cfg = BankConfig.builder().accounts(4).k(4).readOnly(0).lockCoverage(1).grid(64, 4)
          .txPerThread(8).seed(seed).build();
      results.add(BankRun.run(engines.jvm(), cfg, new RunOptions(1, true)).assertCorrect()
          .result());
    }
    long abandoned = results.stream().mapToLong(r -> r.count(Counter.ABANDONED)).sum();
    long outcomes = results.stream().mapToLong(r -> countOutcome(r, Outcome.ABANDONED)).sum();
    assertThat(abandoned).isEqualTo(outcomes);
    assertThatThrownBy(() -> new RunOptions(0, false)).hasMessageContaining("maxRetries");
  }

  private static long countOutcome(BatchResult r, Outcome o) {
    long n = 0;
    for (int t = 0; t < r.outcomes().length; t++) {
      n += r.outcome(t) == o ? 1 : 0;
    }
    return n;
  }

  @Test
  void storeChecksTypesLengthsAndDoubleClose() {
    TxStore store = engines.jvm().createStore(StoreLayout.of(
        new RegionSpec("a", RegionType.INT64, 3, 1),
        new RegionSpec("b", RegionType.FLOAT64, 2, 2)));
    store.writeInt64(0, new long[] {1, -2, Long.MAX_VALUE});
    store.writeFloat64(1, new double[] {0.5, -1e300});
    assertThat(store.readInt64(0)).containsExactly(1, -2, Long.MAX_VALUE);
    assertThat(store.readFloat64(1)).containsExactly(0.5, -1e300);
    assertThatThrownBy(() -> store.writeInt32(0, new int[3])).hasMessageContaining("holds INT64");
    assertThatThrownBy(() -> store.writeInt64(0, new long[2])).hasMessageContaining("has 3 words");
    assertThatThrownBy(() -> store.readInt64(2)).hasMessageContaining("region index 2");
    store.close();
    assertThatThrownBy(store::close).isInstanceOf(IllegalStateException.class);
  }
}
