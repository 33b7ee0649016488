package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchCommandTest {
  @TempDir Path out;

  @Test
  void writesCsvAndPngAndPrintsTheTable() {
    String printed = CliRun.run(0, "bench", "prstm-size", "limits", "--engine", "jvm",
        "--size", "smoke", "--out", out.toString(), "--no-progress");
    assertThat(printed).contains("size: smoke").contains("## prstm-size")
        .contains("| read_only | k | lock_coverage |").contains("## limits");
    assertThat(out.resolve("prstm-size.csv")).exists();
    assertThat(out.resolve("prstm-size.png")).exists();
    assertThat(out.resolve("limits.png")).exists();
  }

  @Test
  void replotsPngsFromCsvs() throws Exception {
    CliRun.run(0, "bench", "limits", "--engine", "jvm", "--size", "smoke", "--out",
        out.toString(), "--no-progress");
    Files.delete(out.resolve("limits.png"));
    assertThat(CliRun.run(0, "bench", "--replot", out.toString())).contains("limits.png");
    assertThat(ImageIO.read(out.resolve("limits.png").toFile())).isNotNull();
    Path empty = Files.createDirectories(out.resolve("empty"));
    assertThat(CliRun.run(2, "bench", "--replot", empty.toString()))
        .contains("replot: no experiment's CSV");
  }

  @Test
  void listsExperiments() {
    assertThat(CliRun.run(0, "bench", "--list")).contains("csmv-memcached")
        .contains("semantic-ratio");
  }

  @Test
  void badInputIsStatus2NamingTheParameter() {
    assertThat(CliRun.run(2, "bench", "prstm-size", "nope", "--engine", "jvm"))
        .contains("experiment: unknown experiment 'nope'");
    assertThat(CliRun.run(2, "bench", "--engine", "jvm"))
        .contains("experiment: name at least one experiment");
    assertThat(CliRun.run(2, "bench", "limits", "--size", "huge", "--engine", "jvm"))
        .contains("size: unknown size 'huge'");
  }
}
