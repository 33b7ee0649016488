package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.Verdict;
import java.util.SplittableRandom;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Programs whose attempts touch more than 16 words run with sets of 32 or 64 entries (the
 * capacity a batch gets is the smallest that holds its bound), serializably, and the serial
 * replay gives their results; past 64 they are refused before anything runs.
 */
class LargeSetProgramTest {
  private static final StoreLayout LAYOUT = StoreLayout.of(
      new RegionSpec("r", RegionType.INT32, 256, 1));
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  /** Reads {@code span} words from x on and adds their sum to word x: span + 1 set entries. */
  private static String program(int span) {
    return """
        program gather(x: int32)
            regions r: int32
            outputs total: int32
        {
          var t = 0;
          for i in 1 .. {SPAN} { t = t + r[(x + i) % 256]; }
          r[x] = r[x] + t % 7 + 1;
          total = t;
        }
        """.replace("{SPAN}", Integer.toString(span + 1));
  }

  @ParameterizedTest
  @ValueSource(ints = {20, 40, 62})
  void runSerializablyWithTheSmallestSetThatHoldsThem(int span) {
    ProgramSet set = ProgramSet.parse(program(span));
    assertThat(set.setEntries()).isGreaterThan(16).isLessThanOrEqualTo(64);
    int n = 300;
    int[] xs = new SplittableRandom(span).ints(n, 0, 256).toArray();
    ProgramBatch batch = ProgramBatch.builder(set).all("gather", n).int32("x", xs).grid(8, 4)
        .build();
    int capacity = ProgramBinding.bind(batch, LAYOUT, Algorithm.prStm()).capacity();
    assertThat(capacity).isEqualTo(span + 1 <= 32 ? 32 : 64);
    try (TxStore store = engines.jvm().createStore(LAYOUT)) {
      long[][] before = StoreContents.read(store);
      ProgramResult r = engines.jvm().run(store, batch, RunOptions.defaults().withHistory(true));
      long[][] after = StoreContents.read(store);
      assertThat(r.outcomeCounts()).containsOnlyKeys(Outcome.COMMITTED);
      HistoryChecker.Verdict h = HistoryChecker.check(r.stats().history());
      assertThat(h.serializable()).as("%s", h.violations()).isTrue();
      Verdict replay = ProgramReplay.verify(r, LAYOUT, before, after,
          h.serialOrder());
      assertThat(replay.ok()).as("%s", replay).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {64, 100})
  void pastSixtyFourWordsTheyAreRefused(int span) {
    assertThatThrownBy(() -> ProgramSet.parse(program(span)))
        .hasMessageContaining("more than the largest transaction set, 64 entries");
  }
}
