package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the CLI fuzzer found, each pinned: bad input is status 2 and a message, no trace. */
class CliFuzzFindingsTest {
  private static final Path EXAMPLES = Path.of("..", "examples");
  private static final String PROGRAM = EXAMPLES.resolve("warehouse/warehouse.gstm").toString();
  private static final String STOCK = EXAMPLES.resolve("warehouse/stock.csv").toString();
  private static final String MOVES = EXAMPLES.resolve("warehouse/moves.csv").toString();

  private static String run(int status, String... args) {
    String out = CliRun.run(status, args);
    assertThat(out).doesNotContain("\tat ");
    return out;
  }

  private static String runProgram(Path dir, String program, String state, String txs) {
    return run(2, "run", "--engine", "jvm", "--program", program, "--state", state,
        "--transactions", txs, "--out-state", dir.resolve("out.csv").toString(), "--outcomes",
        dir.resolve("outcomes.csv").toString());
  }

  /** Was a NoSuchFileException stack trace, status 1. */
  @Test
  void missingOrOddFilesAreNamed(@TempDir Path dir) {
    String missing = dir.resolve("nope.csv").toString();
    assertThat(runProgram(dir, PROGRAM, missing, MOVES))
        .contains("gstm: state: no such file " + missing);
    assertThat(runProgram(dir, PROGRAM, STOCK, missing))
        .contains("gstm: transactions: no such file " + missing);
    assertThat(runProgram(dir, PROGRAM, dir.toString(), MOVES))
        .contains("gstm: state: " + dir + " is a directory");
  }

  /** Were MalformedInputException and CSVException / UncheckedIOException stack traces. */
  @Test
  void unreadableFilesAreNamedWithTheReason(@TempDir Path dir) throws IOException {
    Path binary = dir.resolve("binary.csv");
    Files.write(binary, new byte[] {'s', 't', 'o', 'c', 'k', '\n', (byte) 0xff, (byte) 0xfe});
    assertThat(runProgram(dir, PROGRAM, binary.toString(), MOVES))
        .contains("gstm: state: cannot use " + binary + ": not UTF-8 text");
    assertThat(runProgram(dir, binary.toString(), STOCK, MOVES))
        .contains("gstm: program: cannot use " + binary + ": not UTF-8 text");
    Path quote = dir.resolve("quote.csv");
    Files.writeString(quote, "program,src,dst,qty\nmove,0,\"1,4\n");
    assertThat(runProgram(dir, PROGRAM, STOCK, quote.toString()))
        .contains("gstm: transactions: cannot use " + quote + ": ", "EOF reached");
    Files.writeString(quote, "\"stock\n1\n");
    assertThat(runProgram(dir, PROGRAM, quote.toString(), MOVES))
        .contains("gstm: state: cannot use " + quote);
  }

  /** A parse error named no file; a deep nest overflowed the parser's stack. */
  @Test
  void programErrorsNameTheFile(@TempDir Path dir) throws IOException {
    Path bad = dir.resolve("bad.gstm");
    Files.writeString(bad, "program p(x: int32) regions stock: int32 {\n  stock[x] = 02;\n}\n");
    assertThat(runProgram(dir, bad.toString(), STOCK, MOVES))
        .contains("line 2, column", "(in " + bad + ")");
    Files.writeString(bad, "program p(x: int32) regions stock: int32 { stock[x] = "
        + "(".repeat(20_000) + "x" + ")".repeat(20_000) + "; }\n");
    assertThat(runProgram(dir, bad.toString(), STOCK, MOVES))
        .contains("gstm: program: " + bad + " nests expressions or blocks too deeply");
  }

  /** An unknown algorithm was reported as an unknown CSMV "variant". */
  @Test
  void unknownAlgorithmsAreNamedAsSuch(@TempDir Path dir) {
    assertThat(run(2, "run", "--engine", "jvm", "--program", PROGRAM, "--state", STOCK,
        "--transactions", MOVES, "--out-state", dir.resolve("o.csv").toString(), "--outcomes",
        dir.resolve("c.csv").toString(), "--algorithm", "tl2"))
        .contains("gstm: algorithm: unknown algorithm 'tl2', known: prstm, gpu-stm, csmv, "
            + "csmv-nocv, csmv-onlycs, jvstm-gpu");
    assertThat(run(2, "bench-programs", "--engine", "jvm", "--algorithms", "prstm,tl2"))
        .contains("gstm: algorithms: unknown algorithm 'tl2'");
  }

  /**
   * bench-bank with --reps 0 was a NullPointerException after the sweep's first row, a block
   * count of 0 or one overflowing the thread count a division by zero; bench-semantic and
   * bench-programs failed the same way on --reps 0. All are checked before anything runs.
   */
  @Test
  void benchmarksCheckTheirSweepBeforeRunning() {
    assertThat(run(2, "bench-bank", "--engine", "jvm", "--accounts", "64", "--tx", "64",
        "--blocks", "1", "--reps", "0")).contains("gstm: reps must be at least 1, got 0")
        .doesNotContain("bound:");
    assertThat(run(2, "bench-bank", "--engine", "jvm", "--accounts", "64", "--tx", "64",
        "--blocks", "1,-2147483648", "--reps", "1")).contains("gstm: blocks must be at least 1")
        .doesNotContain("bound:");
    assertThat(run(2, "bench-semantic", "--engine", "jvm", "--reps", "-1"))
        .contains("gstm: reps must be at least 1, got -1");
    // A division by zero once: threads are split into blocks of --threads-per-block.
    assertThat(run(2, "bench-semantic", "--engine", "jvm", "--threads-per-block", "0"))
        .contains("gstm: threadsPerBlock must be in 1..256, got 0");
    assertThat(run(2, "bench-programs", "--engine", "jvm", "--reps", "0"))
        .contains("gstm: reps must be at least 1, got 0");
    assertThat(run(2, "bench-programs", "--engine", "jvm", "--workloads", "bank,memcached"))
        .contains("gstm: workloads: unknown workload 'memcached'").doesNotContain("| bank");
  }

  /**
   * Huge sizes that are valid but more than a JVM can hold (an account array of 2^31 - 1
   * ints) were an OutOfMemoryError stack trace and status 1.
   */
  @Test
  void sizesPastWhatTheJvmHoldsAreAnError() {
    assertThat(run(2, "bank", "--engine", "jvm", "--accounts", "2147483647", "--blocks", "1",
        "--threads-per-block", "1", "--tx-per-thread", "1"))
        .contains("gstm: out of memory (", "use smaller ones, or raise -Xmx");
    assertThat(run(2, "limits", "--engine", "jvm", "--words", "2147483647"))
        .contains("gstm: out of memory (");
  }

  /**
   * bench-programs' checked-transfer row assumed the balances never run short; with few
   * accounts they did, and the batch crawled through semantic conflicts for minutes.
   */
  @Test
  void benchProgramsCheckedRowWithFewAccountsIsQuick() {
    long t0 = System.nanoTime();
    assertThat(run(0, "bench-programs", "--engine", "jvm", "--accounts", "40", "--customers",
        "100", "--threads-per-block", "64", "--blocks", "4", "--tx-per-thread", "8", "--reps",
        "1", "--warmups", "0", "--workloads", "bank")).contains("| bank k=2, checked | prstm |")
        .doesNotContain("FAILED");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(30);
  }
}
