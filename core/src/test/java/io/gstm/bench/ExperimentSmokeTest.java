package io.gstm.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.jvm.JvmEngine;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every experiment at the smoke size on the JVM engine: its CSV's columns and rows, its PNG. */
class ExperimentSmokeTest {
  private static JvmEngine engine;

  @TempDir static Path out;

  @BeforeAll
  static void open() {
    engine = new JvmEngine(2);
  }

  @AfterAll
  static void close() {
    engine.close();
  }

  @Test
  void everyExperimentIsTestedHere() {
    assertThat(Experiments.all()).extracting(Experiment::name).containsExactly("limits",
        "prstm-size", "prstm-coverage", "prstm-threads", "semantic-ratio", "semantic-threads",
        "semantic-coverage", "csmv-read-only", "csmv-versions", "csmv-memcached", "graph-threads",
        "graph-coverage", "kmeans-threads");
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
      "csmv-read-only, 10",
      "csmv-versions, 2",
      "csmv-memcached, 8",
      "graph-threads, 4",
      "graph-coverage, 4",
      "kmeans-threads, 4"})
  void writesItsCsvAndPlot(String name, int rows) throws Exception {
    Experiment x = Experiments.byName(name);
    BenchRunner.Output o = BenchRunner.run(x, engine, Scale.SMOKE, out, false);

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
}
