package io.gstm.cli;

import static io.gstm.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpu-stm} is an algorithm the commands take on the JVM engine. */
class GpuStmCliTest {
  @Test
  void runsProgramsWithTheirHistoryChecked(@TempDir Path dir) {
    String out = run(0, CliRun.warehouse(dir.resolve("s.csv"), dir.resolve("o.csv"),
        "--algorithm", "gpu-stm"));
    assertThat(out).contains("history checker: OK", "serial replay: OK", "COMMITTED=7",
        "USER_ABORT=1");
  }

  @Test
  void benchDsRowsAreVerified() {
    String out = run(0, "bench-ds", "--engine", "jvm", "--algorithms", "gpu-stm",
        "--transactions", "1000", "--reps", "1", "--warmups", "0", "--blocks", "4",
        "--threads-per-block", "32", "--history");
    assertThat(out.lines().filter(l -> l.contains("| gpu-stm |") && l.endsWith("| OK |"))
        .count()).isEqualTo(8);
  }

  @Test
  void unknownAlgorithmsNameTheChoices() {
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--algorithms", "gpustm"))
        .contains("unknown algorithm 'gpustm'", "gpu-stm");
  }
}
