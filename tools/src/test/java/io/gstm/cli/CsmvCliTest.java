package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code gstm bench-csmv} end to end on the JVM engine, small. */
class CsmvCliTest {
  @Test
  void benchCsmvRunsAndVerifies() {
    int status = GstmCli.execute("bench-csmv", "--engine", "jvm", "--accounts", "128",
        "--read-only", "0.5,0.99", "--ways", "4,16", "--cache-items", "256", "--version-sweep",
        "2,4", "--threads-per-block", "32", "--blocks", "2", "--tx-per-thread", "2", "--reps",
        "1");
    assertThat(status).isZero();
  }

  @Test
  void badVersionsExitTwo() {
    assertThat(GstmCli.execute("bench-csmv", "--engine", "jvm", "--versions", "1", "--parts",
        "bank", "--accounts", "64", "--read-only", "0.5", "--threads-per-block", "32",
        "--blocks", "1", "--tx-per-thread", "1", "--reps", "1")).isEqualTo(2);
  }
}
