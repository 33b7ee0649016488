package io.gstm.spark.cli;

import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.kmeans.KMeansData;
import io.gstm.spark.bench.TxBenchmark;
import io.gstm.spark.data.DataFrames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Writes a seeded data set as Parquet, drawn in parallel by the executors' tasks (nothing passes
 * through the driver), for inputs too large to generate on the driver: the R-MAT edges of
 * {@code bench}, {@code relax} and GraphRelaxation, or the Gaussian blobs of TxKMeans. The data
 * are drawn in fixed chunks ({@link RmatGenerator#chunk}, {@link KMeansData#blobsChunk}), so the
 * same arguments give the same rows whatever the master, the cores or {@code --files}.
 */
@Command(name = "gen", mixinStandardHelpOptions = true,
    description = "Write a seeded R-MAT graph (src, dst, weight), k-means points (features, or "
        + "x0, x1, ...) or tx-bench's transfers (id, src, dst, amount) as Parquet, drawn by the "
        + "executors.")
public final class GenCommand implements Callable<Integer> {
  @Mixin
  SparkOptions spark = new SparkOptions();

  @Parameters(index = "0", description = "rmat, points or transfers")
  String what;

  @Option(names = "--out", required = true, description = "the Parquet directory to write")
  String out;

  @Option(names = "--overwrite", description = "replace --out if it exists (else an error)")
  boolean overwrite;

  @Option(names = "--files", description = "Parquet files (tasks) to write (default: "
      + "--partitions)")
  int files = -1;

  @Option(names = "--scale", description = "rmat: log2 of the vertex count "
      + "(default: ${DEFAULT-VALUE})")
  int scale = 18;

  @Option(names = "--edges", description = "rmat: edges; -1: 16 per vertex "
      + "(default: ${DEFAULT-VALUE})")
  long edges = -1;

  @Option(names = "--unweighted", description = "rmat: no weight column")
  boolean unweighted;

  @Option(names = "--points", description = "points: how many (default: ${DEFAULT-VALUE})")
  long points = 1_000_000;

  @Option(names = "--dims", description = "points: dimensions (default: ${DEFAULT-VALUE})")
  int dims = 2;

  @Option(names = "--k", description = "points: blobs (default: ${DEFAULT-VALUE})")
  int k = 16;

  @Option(names = "--columns", description = "points: one double column per dimension "
      + "(x0, x1, ...) instead of an ml Vector column features (TxKMeans.setFeaturesCols)")
  boolean columns;

  @Option(names = "--accounts", description = "transfers: accounts (default: ${DEFAULT-VALUE})")
  long accounts = 1_000_000;

  @Option(names = "--transfers", description = "transfers: how many (default: "
      + "${DEFAULT-VALUE})")
  long transfers = 4_000_000;

  @Option(names = "--max-amount", description = "transfers: each moves 1..this (default: "
      + "${DEFAULT-VALUE})")
  long maxAmount = 100;

  @Option(names = "--batches", description = "transfers: written as this many batches, "
      + "directories batch=0.. (tx-bench --batches reads one per apply), every file writer "
      + "holding rows of each, so that an apply reads as many files as the whole; ids "
      + "[b * n / batches, (b + 1) * n / batches) in batch b (default: ${DEFAULT-VALUE}: one "
      + "directory of files that each hold a run of ids)")
  int batches = 1;

  @Option(names = "--seed", description = "seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Override
  public Integer call() {
    int tasks = files > 0 ? files : spark.partitions;
    if (files == 0 || files < -1) {
      throw new IllegalArgumentException("--files must be at least 1, got " + files);
    }
    if (batches != 1 && !what.equals("transfers")) {
      throw new IllegalArgumentException("--batches is for transfers, not " + what);
    }
    SparkSession session = spark.session("gstm-gen");
    try {
      checkOut(session);
      long t0 = System.nanoTime();
      Dataset<Row> df;
      String shape;
      switch (what) {
        case "rmat" -> {
          long m = edges >= 0 ? edges : 16L << scale;
          RmatGenerator.permutation(scale, seed); // checks the scale here, not in a task
          df = DataFrames.rmatChunks(session, scale, m, seed, !unweighted, tasks);
          shape = String.format(Locale.ROOT, "R-MAT 2^%d vertices, %,d edges%s", scale, m,
              unweighted ? "" : " with weights 1.." + RmatGenerator.MAX_WEIGHT);
        }
        case "points" -> {
          KMeansData.blobsChunk(points, dims, k, seed, 0); // checks the arguments here
          df = DataFrames.blobChunks(session, points, dims, k, seed, tasks, columns);
          shape = String.format(Locale.ROOT, "%,d %d-D points in %d blobs%s", points, dims, k,
              columns ? ", a column per dimension" : "");
        }
        case "transfers" -> {
          if (accounts < 2 || transfers < 1 || maxAmount < 1) {
            throw new IllegalArgumentException("--accounts >= 2, --transfers >= 1 and "
                + "--max-amount >= 1 are needed");
          }
          if (batches < 1 || transfers % batches != 0) {
            throw new IllegalArgumentException("--batches must be at least 1 and divide "
                + "--transfers (" + transfers + "), got " + batches);
          }
          df = batches == 1
              ? TxBenchmark.transfers(session.range(0, transfers, 1, tasks), accounts,
                  maxAmount, seed)
              : TxBenchmark.batchedTransfers(session.range(0, transfers, 1, tasks), batches,
                  transfers / batches, accounts, maxAmount, seed);
          shape = String.format(Locale.ROOT, "%,d transfers over %,d accounts (tx-bench's)%s",
              transfers, accounts, batches == 1 ? "" : " in " + batches + " batches");
        }
        default -> throw new IllegalArgumentException("expected rmat, points or transfers, got '"
            + what + "'");
      }
      org.apache.spark.sql.DataFrameWriter<Row> w = df.write()
          .mode(overwrite ? SaveMode.Overwrite : SaveMode.ErrorIfExists);
      (what.equals("transfers") && batches > 1 ? w.partitionBy("batch") : w).parquet(out);
      System.out.printf(Locale.ROOT, "wrote %s (seed %d) to %s in %d file(s) in %.1f s%n", shape,
          seed, out, tasks, (System.nanoTime() - t0) / 1e9);
      return 0;
    } finally {
      SparkOptions.stop(session);
    }
  }

  /** An existing --out is an error unless --overwrite, before anything is drawn. */
  private void checkOut(SparkSession session) {
    try {
      Path path = new Path(out);
      FileSystem fs = path.getFileSystem(session.sparkContext().hadoopConfiguration());
      if (!overwrite && fs.exists(path)) {
        throw new IllegalArgumentException("--out: " + out + " exists (--overwrite replaces it)");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("--out: " + out + ": " + e.getMessage(), e);
    }
  }
}
