package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.LimitsReport;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.soak.Soak;
import io.gstm.core.soak.SoakCases;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.Fuzz;
import java.time.Duration;
import java.util.EnumSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code gstm soak}: a short run (the CI version of the long soak) checks batches of every
 * family and finds nothing; a batch is reproduced from its seed; a planted lost update is a
 * violation; bad options are errors naming them.
 */
class SoakCommandTest {
  @Test
  void shortSoakChecksEveryFamilyAndFindsNothing() {
    String seconds = System.getProperty("gstm.soak.seconds", "15");
    long seed = Fuzz.baseSeed();
    System.out.println("soak seed " + seed + " (-Dgstm.fuzz.seed), " + seconds
        + " s (-Dgstm.soak.seconds)");
    String out = CliRun.run(0, "soak", "--engine", "jvm", "--duration", seconds + "s",
        "--seed", Long.toString(seed), "--quiet");
    System.out.println(out);
    assertThat(out).contains("soak summary:", "violations: 0 (OK)", "heap: max used")
        .doesNotContain("VIOLATION");
    Matcher m = Pattern.compile("batches checked: ([\\d,]+); transactions checked: ([\\d,]+)")
        .matcher(out);
    assertThat(m.find()).isTrue();
    assertThat(Long.parseLong(m.group(1).replace(",", ""))).isGreaterThan(20);
    assertThat(Long.parseLong(m.group(2).replace(",", ""))).isGreaterThan(10_000);
    for (SoakCases.Family f : SoakCases.Family.values()) {
      assertThat(out).as("family %s drawn", f.label()).contains(f.label() + " ");
    }
  }

  @Test
  void aBatchIsRunAgainFromItsSeed() {
    long batchSeed = Soak.batchSeed(7, 3);
    String label = SoakCases.draw(batchSeed).toString();
    assertThat(SoakCases.draw(batchSeed).toString()).isEqualTo(label);
    String out = CliRun.run(0, "soak", "--engine", "jvm", "--batch-seed",
        Long.toString(batchSeed));
    assertThat(out).contains("the batch of seed " + batchSeed + ": " + label,
        "batches checked: 1;", "violations: 0 (OK)");
  }

  @Test
  void badOptionsAreErrorsNamingThem() {
    assertThat(CliRun.run(2, "soak", "--engine", "jvm", "--duration", "ten"))
        .contains("gstm: duration: 'ten' is not a duration");
    assertThat(CliRun.run(2, "soak", "--engine", "jvm", "--duration", "0s"))
        .contains("gstm: duration must be positive");
    assertThat(CliRun.run(2, "soak", "--engine", "jvm", "--families", "bank,chess"))
        .contains("gstm: families: unknown family 'chess'");
    assertThat(CliRun.run(2, "soak", "--engine", "jvm", "--batches", "0"))
        .contains("gstm: batches must be at least 1, got 0");
  }

  /** An engine that loses an update after every batch: each bank batch must be a violation. */
  @Test
  void aPlantedLostUpdateIsAViolation() {
    try (Engine engine = new LosingEngine(new JvmEngine(2))) {
      Soak.Summary s = Soak.run(engine, new Soak.Settings(Duration.ofMinutes(1), 11, 3,
          EnumSet.of(SoakCases.Family.BANK), Duration.ofSeconds(60)), null);
      assertThat(s.counts().batches()).isEqualTo(3);
      assertThat(s.counts().violated()).isEqualTo(3);
      assertThat(s.ok()).isFalse();
      assertThat(s.violations()).allMatch(v -> v.contains("verifier: FAILED"));
    }
  }

  /** Runs batches on the JVM engine, then takes 1 from the first word of an INT32 region 0. */
  private static final class LosingEngine implements Engine {
    private final Engine inner;

    LosingEngine(Engine inner) {
      this.inner = inner;
    }

    private static void lose(TxStore store) {
      if (store.layout().region(0).type() == RegionType.INT32) {
        int[] v = store.readInt32(0);
        v[0]--;
        store.writeInt32(0, v);
      }
    }

    @Override
    public String name() {
      return "losing-" + inner.name();
    }

    @Override
    public String device() {
      return inner.device();
    }

    @Override
    public TxStore createStore(StoreLayout layout) {
      return inner.createStore(layout);
    }

    @Override
    public TxStore createStore(StoreLayout layout, Algorithm algorithm) {
      return inner.createStore(layout, algorithm);
    }

    @Override
    public BatchResult run(TxStore store, TxBatch batch, RunOptions options) {
      BatchResult r = inner.run(store, batch, options);
      lose(store);
      return r;
    }

    @Override
    public ProgramResult run(TxStore store, ProgramBatch batch, RunOptions options) {
      ProgramResult r = inner.run(store, batch, options);
      lose(store);
      return r;
    }

    @Override
    public LimitsReport probeLimits(int words) {
      return inner.probeLimits(words);
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
