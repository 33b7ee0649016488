package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GstmCliTest {
  private static String run(int expectedStatus, String... args) {
    return CliRun.run(expectedStatus, args);
  }


  @Test
  void bankPrintsEngineThroughputAndVerdicts() {
    String out = run(0, "bank", "--engine", "jvm", "--accounts", "1000", "--blocks", "2",
        "--threads-per-block", "64", "--history");
    assertThat(out).contains("engine: jvm", "committed tx/s", "abort rate", "verifier: OK",
        "history checker: OK");
  }

  @Test
  void badInputIsOneClearLine() {
    String out = run(2, "bank", "--engine", "jvm", "--accounts", "3", "--k", "4");
    assertThat(out).contains("gstm: k must be in 1..3");
    assertThat(run(2, "bank", "--engine", "quantum")).contains("unknown engine 'quantum'");
  }

  @Test
  void benchGraphAndKMeansPrintRatesAndVerdicts() {
    assertThat(run(0, "bench-graph", "--engine", "jvm", "--scale", "8", "--edges", "2000",
        "--reps", "1")).contains("relaxed edges/s", "rounds:", "aborts:", "verifier: OK");
    assertThat(run(0, "bench-graph", "--engine", "jvm", "--scale", "8", "--edges", "2000",
        "--kind", "cc", "--reps", "1")).contains("verifier: OK");
    assertThat(run(0, "bench-kmeans", "--engine", "jvm", "--points", "5000", "--reps", "1"))
        .contains("points/s", "commits:", "verifier: OK");
    assertThat(run(2, "bench-graph", "--engine", "jvm", "--kind", "pagerank"))
        .contains("--kind: unknown relaxation 'pagerank'");
    assertThat(run(0, "bench-graph", "--engine", "jvm", "--graph", "grid", "--scale", "10",
        "--reps", "1")).contains("grid of about 2^10 cells", "the grid's corner",
        "edge relaxations per edge: 1.", "verifier: OK");
    assertThat(run(0, "bench-graph", "--engine", "jvm", "--graph", "road", "--shuffle",
        "--scale", "9", "--kind", "cc", "--reps", "1")).contains("road-like", "verifier: OK");
    assertThat(run(2, "bench-graph", "--engine", "jvm", "--graph", "torus"))
        .contains("--graph: unknown graph 'torus'");
  }

  @Test
  void limitsPrintsTheThreeRates() {
    assertThat(run(0, "limits", "--engine", "jvm", "--words", "65536"))
        .contains("random read+CAS", "random atomicAdd", "dependent loads");
  }
}
