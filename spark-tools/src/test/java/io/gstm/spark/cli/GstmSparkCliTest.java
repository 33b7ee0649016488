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
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
    assertThat(out.toString()).contains("relax", "executors", "gen", "bench", "tx-bench");
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

  /** A negative warm-up is one line naming the option, before any Spark work. */
  @Test
  void aNegativeWarmUpIsRefused() {
    Run r = run("tx-bench", "--warmup-transfers", "-5");
    assertThat(r.status()).as(r.err()).isNotZero();
    assertThat(r.err()).contains("--warmup-transfers must be 0 (no warm-up) or more; got -5")
        .doesNotContain("\tat ");
  }

  /** {@code gen} writes Parquet that {@code bench --input} reads, for graphs and for points. */
  @Test
  void benchReadsWhatGenWrites(@TempDir Path dir) {
    String edges = dir.resolve("edges").toString();
    Run g = run("gen", "rmat", "--scale", "8", "--edges", "3000", "--files", "3", "--out", edges);
    assertThat(g.status()).as(g.err()).isZero();
    assertThat(g.out()).contains("wrote R-MAT 2^8 vertices, 3,000 edges", "in 3 file(s)");
    // gstm warmed up once, GraphX (minutes at scale, warm within its run) timed cold.
    Run b = run("bench", "--engine", "jvm", "--input", edges, "--reps", "1", "--warmups", "1",
        "--baseline-warmups", "0");
    assertThat(b.status()).as(b.out() + b.err()).isZero();
    assertThat(b.out()).contains("weighted SSSP, Parquet " + edges, "components, Parquet")
        .contains("| yes |", "finite values, sum").doesNotContain("k-means");
    Run bad = run("bench", "--engine", "jvm", "--input", edges, "--warmups", "0",
        "--baseline-warmups", "1");
    assertThat(bad.status()).isEqualTo(2);
    assertThat(bad.err()).contains("--baseline-warmups must be between 0 and --warmups (0), got 1");

    String points = dir.resolve("points").toString();
    g = run("gen", "points", "--points", "3000", "--dims", "3", "--k", "4", "--out", points);
    assertThat(g.status()).as(g.err()).isZero();
    b = run("bench", "--engine", "jvm", "--input", points, "--k", "4", "--reps", "1",
        "--warmups", "0");
    assertThat(b.status()).as(b.out() + b.err()).isZero();
    assertThat(b.out()).contains("k-means, 3000 3-D points (Parquet " + points
        + ", a vector column)", "| yes |").doesNotContain("SSSP");

    String columns = dir.resolve("columns").toString();
    g = run("gen", "points", "--points", "3000", "--dims", "3", "--k", "4", "--columns",
        "--out", columns);
    assertThat(g.status()).as(g.err()).isZero();
    b = run("bench", "--engine", "jvm", "--input", columns, "--k", "4", "--reps", "1",
        "--warmups", "0");
    assertThat(b.status()).as(b.out() + b.err()).isZero();
    assertThat(b.out()).contains("k-means, 3000 3-D points (Parquet " + columns
        + ", 3 columns)", "| yes |");
  }

  /** tx-bench over the transfers `gen transfers` wrote: the same as over its own. */
  @Test
  void txBenchReadsTheTransfersGenWrites(@TempDir Path dir) {
    String transfers = dir.resolve("transfers").toString();
    Run g = run("gen", "transfers", "--accounts", "1000", "--transfers", "20000", "--files", "3",
        "--out", transfers);
    assertThat(g.status()).as(g.err()).isZero();
    String[] common = {"tx-bench", "--engine", "jvm", "--accounts", "1000", "--transfers",
        "20000", "--batches", "2", "--no-baseline", "--warmup-transfers", "0"};
    String[] withInput = java.util.Arrays.copyOf(common, common.length + 2);
    withInput[common.length] = "--input";
    withInput[common.length + 1] = transfers;
    Run read = run(withInput);
    assertThat(read.status()).as(read.out() + read.err()).isZero();
    // The transfers tx-bench would draw: the core run draws them again and checks the first
    // 1,000 rows read against its own (it throws otherwise).
    assertThat(read.out()).contains("input from Parquet " + transfers + ", cached",
        "raw core engine", "(conserved)").doesNotContain("NOT CONSERVED");
    withInput[6] = "30000"; // --transfers
    Run mismatch = run(withInput);
    assertThat(mismatch.status()).isEqualTo(2);
    assertThat(mismatch.err()).contains("holds 20000 transfers, --transfers says 30000");
  }

  /**
   * Transfers written in batches: a directory per batch with a file from every writer, read by
   * tx-bench one batch an apply; the ids are those of the unbatched transfers.
   */
  @Test
  void txBenchReadsTransfersWrittenInBatches(@TempDir Path dir) throws java.io.IOException {
    String transfers = dir.resolve("batched").toString();
    Run g = run("gen", "transfers", "--accounts", "1000", "--transfers", "20000", "--files", "3",
        "--batches", "2", "--out", transfers);
    assertThat(g.status()).as(g.err()).isZero();
    for (String b : new String[] {"batch=0", "batch=1"}) {
      try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir.resolve("batched")
          .resolve(b))) {
        assertThat(files.filter(f -> f.toString().endsWith(".parquet")).count()).isEqualTo(3);
      }
    }
    String[] args = {"tx-bench", "--engine", "jvm", "--accounts", "1000", "--transfers",
        "20000", "--batches", "2", "--no-baseline", "--warmup-transfers", "0", "--input",
        transfers};
    Run read = run(args);
    assertThat(read.status()).as(read.out() + read.err()).isZero();
    assertThat(read.out()).contains("raw core engine", "(conserved)")
        .doesNotContain("NOT CONSERVED");
    args[8] = "4"; // --batches
    Run mismatch = run(args);
    assertThat(mismatch.status()).isEqualTo(2);
    assertThat(mismatch.err()).contains("was written in 2 batches (gen transfers --batches); "
        + "give --batches 2, got 4");
    Run uneven = run("gen", "transfers", "--transfers", "20000", "--batches", "3", "--out",
        dir.resolve("uneven").toString());
    assertThat(uneven.status()).isEqualTo(2);
    assertThat(uneven.err()).contains("--batches must be at least 1 and divide --transfers "
        + "(20000), got 3");
  }

  @Test
  void genRefusesAnExistingOutputAndBadArguments(@TempDir Path dir) {
    Run r = run("gen", "points", "--points", "10", "--out", dir.toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("--out: " + dir + " exists (--overwrite replaces it)");
    r = run("gen", "rmat", "--scale", "31", "--out", dir.resolve("x").toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("scale must be in 1..30");
    r = run("gen", "trees", "--out", dir.resolve("y").toString());
    assertThat(r.status()).isEqualTo(2);
    assertThat(r.err()).contains("expected rmat, points or transfers, got 'trees'");
  }
}
