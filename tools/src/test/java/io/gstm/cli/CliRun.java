package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** Runs the CLI in the test's JVM and returns what it printed (stdout and stderr). */
final class CliRun {
  private CliRun() {}

  /** What a body returned and what it printed on stdout and stderr together. */
  record Captured<T>(T value, String output) {}

  static String run(int expectedStatus, String... args) {
    Captured<Integer> c = capture(() -> GstmCli.execute(args));
    assertThat(c.value()).as("exit status; output:%n%s", c.output()).isEqualTo(expectedStatus);
    return c.output();
  }

  /** Runs {@code body} with stdout and stderr captured, restoring them afterwards. */
  static <T> Captured<T> capture(Callable<T> body) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream capture = new PrintStream(buf, true, StandardCharsets.UTF_8);
    System.setOut(capture);
    System.setErr(capture);
    try {
      T value = body.call();
      return new Captured<>(value, buf.toString(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError("output:\n" + buf.toString(StandardCharsets.UTF_8), e);
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  /**
   * {@code gstm run} of the warehouse example on the JVM engine with {@code --history}, writing
   * the new state and the outcomes where given, then {@code more} arguments.
   */
  static String[] warehouse(Path stateOut, Path outcomesOut, String... more) {
    Path ex = Path.of("..", "examples", "warehouse");
    List<String> args = new ArrayList<>(List.of("run", "--engine", "jvm",
        "--program", ex.resolve("warehouse.gstm").toString(),
        "--state", ex.resolve("stock.csv").toString(),
        "--transactions", ex.resolve("moves.csv").toString(),
        "--out-state", stateOut.toString(), "--outcomes", outcomesOut.toString(), "--history"));
    args.addAll(List.of(more));
    return args.toArray(new String[0]);
  }
}
