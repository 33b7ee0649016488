package io.gstm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.testing.SharedEngines;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every experiment at the smoke size on the JVM engine: its CSV's columns and rows, its PNG; the
 * JPDC and Cederman figures also cover every combination they promise.
 */
class ExperimentSmokeTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  @TempDir static Path out;

  @Test
  void everyExperimentIsTestedHere() {
    assertThat(Experiments.all()).extracting(Experiment::name).containsExactly("limits",
        "prstm-size", "prstm-coverage", "prstm-threads", "semantic-ratio", "semantic-threads",
        "semantic-coverage", "jpdc-threads", "jpdc-coverage", "csmv-read-only", "csmv-versions",
        "csmv-memcached", "cederman-ds", "graph-threads", "graph-coverage", "kmeans-threads");
  }

  /** Rows at the smoke size: the sweep's points times its series. */
  @ParameterizedTest(name = "{0}: {1} rows")
  @CsvSource({
      "limits, 3",
      "prstm-size, 4",
      "prstm-coverage, 4",
      "prstm-threads, 4",
      "semantic-ratio, 16",
      "semantic-threads, 8",
      "semantic-coverage, 8",
      "jpdc-threads, 24",
      "jpdc-coverage, 24",
      "csmv-read-only, 10",
      "csmv-versions, 2",
      "csmv-memcached, 8",
      "cederman-ds, 40",
      "graph-threads, 4",
      "graph-coverage, 4",
      "kmeans-threads, 4"})
  void writesItsCsvAndPlot(String name, int rows) throws Exception {
    Experiment x = Experiments.byName(name);
    BenchRunner.Output o = BenchRunner.run(x, engines.jvm(), Scale.SMOKE, out, false);

    assertThat(o.csv()).isEqualTo(out.resolve(name + ".csv"));
    List<String> lines = Files.readAllLines(o.csv());
    assertThat(lines.get(0)).isEqualTo(String.join(",", x.columns()));
    assertThat(lines).hasSize(rows + 1);
    ResultTable back = ResultTable.readCsv(o.csv());
    assertThat(back.columns()).isEqualTo(x.columns());
    assertThat(back.size()).isEqualTo(rows);
    for (int r = 0; r < back.size(); r++) {
      assertThat(back.number(r, x.plot().y())).as("%s row %d", x.plot().y(), r).isPositive();
      if (x.columns().contains("verified")) {
        assertThat(back.value(r, "verified")).as("row %d verified", r).isEqualTo("true");
      }
    }
    BufferedImage png = ImageIO.read(o.png().toFile());
    assertThat(png).as("PNG decodes").isNotNull();
    assertThat(png.getWidth()).isGreaterThan(100);
  }

  /**
   * The JPDC comparison: every workload on PR-STM and GPU-STM, pre-sorted and not, at each
   * point; GPU-STM's retry limit abandons some of the unsorted semantic transactions.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({"jpdc-threads, threads", "jpdc-coverage, lock_coverage"})
  void jpdcPairsTheTwoStmsOnEveryWorkload(String name, String axis) {
    ResultTable t = BenchRunner.measure(Experiments.byName(name), engines.jvm(), Scale.SMOKE,
        false);
    Map<String, Set<String>> byPoint = new TreeMap<>();
    for (int r = 0; r < t.size(); r++) {
      byPoint.computeIfAbsent(String.valueOf(t.value(r, axis)), k -> new TreeSet<>())
          .add(t.value(r, "workload") + " " + t.value(r, "algorithm") + " "
              + t.value(r, "presorted"));
      assertThat(t.value(r, "verified")).as("row %d", r).isEqualTo(true);
    }
    assertThat(byPoint).hasSize(2);
    for (Set<String> rows : byPoint.values()) {
      assertThat(rows).hasSize(12).contains("bank gpu-stm false", "vacation prstm true",
          "skiplist gpu-stm true");
    }
    long gpuStmAbandoned = 0;
    for (int r = 0; r < t.size(); r++) {
      if (t.value(r, "algorithm").equals("gpu-stm") && t.value(r, "workload").equals("bank")
          && t.value(r, "presorted").equals(false)) {
        gpuStmAbandoned += ((Number) t.value(r, "abandoned")).longValue();
      }
    }
    assertThat(gpuStmAbandoned).isPositive();
  }

  /** Cederman's structures: each of the four at both contentions on all five STMs. */
  @Test
  void cedermanRunsEveryStructureOnAllFiveStms() {
    ResultTable t = BenchRunner.measure(Experiments.byName("cederman-ds"), engines.jvm(),
        Scale.SMOKE,
        false);
    Set<String> seen = new TreeSet<>();
    for (int r = 0; r < t.size(); r++) {
      seen.add(t.value(r, "structure") + " " + t.value(r, "contention") + " "
          + t.value(r, "algorithm"));
      assertThat(t.value(r, "verified")).as("row %d", r).isEqualTo(true);
      assertThat(t.number(r, "cas_bound_per_s")).isPositive();
    }
    assertThat(seen).hasSize(40).contains("queue full prstm", "hashmap low csmv/4v",
        "tree full gpu-stm", "skiplist low blocking", "skiplist full obstruction-free");
  }
}
