package io.gstm.cli;

import static io.gstm.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpu-stm} is an algorithm the commands take on the JVM engine. */
class GpuStmCliTest {
  private static final Path EXAMPLES = Path.of("..", "examples");

  @Test
  void runsProgramsWithTheirHistoryChecked(@TempDir Path dir) {
    String out = run(0, "run", "--engine", "jvm", "--algorithm", "gpu-stm",
        "--program", EXAMPLES.resolve("warehouse/warehouse.gstm").toString(),
        "--state", EXAMPLES.resolve("warehouse/stock.csv").toString(),
        "--transactions", EXAMPLES.resolve("warehouse/moves.csv").toString(),
        "--out-state", dir.resolve("s.csv").toString(),
        "--outcomes", dir.resolve("o.csv").toString(), "--history");
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
