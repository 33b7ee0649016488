package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the CLI in the test's JVM and returns what it printed (stdout and stderr). */
final class CliRun {
  private CliRun() {}

  static String run(int expectedStatus, String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
    System.setOut(capture);
    System.setErr(capture);
    try {
      int status = GstmCli.execute(args);
      assertThat(status).as("exit status; output:%n%s", buf).isEqualTo(expectedStatus);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
    return buf.toString(StandardCharsets.UTF_8);
  }
}
