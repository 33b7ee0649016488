package io.gstm.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.TaskEngine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ./gstm-spark}: its commands are there, run, and say bad input in one line. */
class GstmSparkCliTest {
  /** What a command line returned and printed. */
  private record Run(int status, String out, String err) {}

  /** Runs {@code ./gstm-spark args} in this JVM with stdout and stderr captured. */
  private static Run run(String... args) {
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      int status = GstmSparkCli.execute(args);
      return new Run(status, out.toString(StandardCharsets.UTF_8),
          err.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
  }

  @Test
  void helpListsTheCommands() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new GstmSparkCli()).setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--help")).isZero();
    assertThat(out.toString()).contains("relax", "executors", "bench", "tx-bench");
  }

  @Test
  void executorsNamesTheEngineOfEachExecutor() {
    Run r = run("executors", "--engine", "jvm", "--expect", "1");
    assertThat(r.status()).as(r.out()).isZero();
    assertThat(r.out()).contains("1 executor(s)", "executor driver on ", "JVM engine",
        "spark.gstm.engine=jvm");
    assertThat(run("executors", "--engine", "jvm", "--expect", "2").status()).isEqualTo(1);
  }

  @Test
  void relaxRunsOnTheJvmEngine() {
    Run r = run("relax", "--engine", "jvm", "--scale", "8", "--partitions", "2");
    assertThat(r.status()).as(r.out()).isZero();
    assertThat(r.out()).contains("(converged)", "checksum (sum of finite values)");
  }

  /** Without a usable GPU, {@code --engine gpu} is one line on stderr and status 2. */
  @Test
  void anUnusableGpuIsOneLineAndStatusTwo() {
    try (TaskEngine lease = ExecutorEngines.acquire(GstmConf.defaults())) {
      Assumptions.assumeFalse(lease.gpu(), "a GPU is usable here");
    }
    Run r = run("relax", "--engine", "gpu", "--scale", "6", "--partitions", "1");
    assertThat(r.status()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("gstm-spark: spark.gstm.engine=gpu but no usable GPU")
        .doesNotContain("\tat ");
  }
}
