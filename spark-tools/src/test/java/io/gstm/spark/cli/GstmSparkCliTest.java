package io.gstm.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.TaskEngine;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code ./gstm-spark}: its commands are there, and a small relaxation runs and converges. */
class GstmSparkCliTest {
  @Test
  void helpListsTheCommands() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new GstmSparkCli()).setOut(new PrintWriter(out, true));
    assertThat(cli.execute("--help")).isZero();
    assertThat(out.toString()).contains("relax", "executors", "bench", "tx-bench");
  }

  @Test
  void executorsNamesTheEngineOfEachExecutor() {
    PrintStream stdout = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int status;
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      status = GstmSparkCli.execute("executors", "--engine", "jvm", "--expect", "1");
    } finally {
      System.setOut(stdout);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(status).as(out).isZero();
    assertThat(out).contains("1 executor(s)", "executor driver on ", "JVM engine",
        "spark.gstm.engine=jvm");
    System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try {
      status = GstmSparkCli.execute("executors", "--engine", "jvm", "--expect", "2");
    } finally {
      System.setOut(stdout);
    }
    assertThat(status).isEqualTo(1);
  }

  @Test
  void relaxRunsOnTheJvmEngine() {
    PrintStream stdout = System.out;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    int status;
    System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
    try {
      status = new CommandLine(new GstmSparkCli())
          .execute("relax", "--engine", "jvm", "--scale", "8", "--partitions", "2");
    } finally {
      System.setOut(stdout);
    }
    String out = buf.toString(StandardCharsets.UTF_8);
    assertThat(status).as(out).isZero();
    assertThat(out).contains("(converged)", "checksum (sum of finite values)");
  }

  /** Without a usable GPU, {@code --engine gpu} is one line on stderr and status 2. */
  @Test
  void anUnusableGpuIsOneLineAndStatusTwo() {
    try (TaskEngine lease = ExecutorEngines.acquire(GstmConf.defaults())) {
      Assumptions.assumeFalse(lease.gpu(), "a GPU is usable here");
    }
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    try {
      status = GstmSparkCli.execute("relax", "--engine", "gpu", "--scale", "6",
          "--partitions", "1");
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    String lines = err.toString(StandardCharsets.UTF_8);
    assertThat(status).as(lines).isEqualTo(2);
    assertThat(lines).contains("gstm-spark: spark.gstm.engine=gpu but no usable GPU")
        .doesNotContain("\tat ");
  }
}
