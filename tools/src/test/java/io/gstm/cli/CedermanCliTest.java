package io.gstm.cli;

import static io.gstm.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code blocking} and {@code obstruction-free}, with or without a backoff, are algorithms the
 * commands take; a bad backoff is an error naming the option and the limit.
 */
class CedermanCliTest {
  @Test
  void runsProgramsWithTheirHistoryChecked(@TempDir Path dir) {
    for (String algorithm : new String[] {"blocking", "obstruction-free:linear:100:10000"}) {
      String out = run(0, CliRun.warehouse(dir.resolve("s.csv"), dir.resolve("o.csv"),
          "--algorithm", algorithm));
      assertThat(out).as(algorithm).contains("history checker: OK", "serial replay: OK",
          "COMMITTED=7", "USER_ABORT=1");
    }
  }

  @Test
  void benchDsRowsAreVerified() {
    String out = run(0, "bench-ds", "--engine", "jvm", "--algorithms",
        "blocking,obstruction-free,blocking:none,obstruction-free:exponential:10:1000",
        "--transactions", "1000", "--reps", "1", "--warmups", "0", "--blocks", "4",
        "--threads-per-block", "32", "--history");
    for (String a : new String[] {"blocking", "obstruction-free", "blocking:none",
        "obstruction-free:exponential:10:1000"}) {
      assertThat(out.lines().filter(l -> l.contains("| " + a + " |") && l.endsWith("| OK |"))
          .count()).as(a).isEqualTo(8);
    }
  }

  @Test
  void badBackoffsNameTheOptionAndTheLimit() {
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--algorithms", "blocking:quadratic"))
        .contains("gstm: algorithms: unknown backoff 'quadratic', known: none, linear, "
            + "exponential");
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--algorithms", "blocking:linear:0:10"))
        .contains("gstm: algorithms: backoff unit must be in 1..100000 ns, got 0");
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--algorithms",
        "obstruction-free:exponential:100:50"))
        .contains("gstm: algorithms: backoff max must be in the unit (100)..1000000 ns, got 50");
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--algorithms", "blocking:linear:x:10"))
        .contains("gstm: algorithms: backoff unit and max must be whole nanoseconds");
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--algorithms", "prstm:linear"))
        .contains("gstm: algorithms: unknown algorithm 'prstm:linear'");
  }
}
