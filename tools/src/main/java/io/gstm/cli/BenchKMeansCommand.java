package io.gstm.cli;

import io.gstm.core.kmeans.KMeansData;
import io.gstm.core.kmeans.KMeansOptions;
import io.gstm.core.kmeans.KMeansPartial;
import io.gstm.core.kmeans.KMeansUpdater;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-kmeans}: one transactional centroid update over generated blobs, points per
 * second of kernel time, commits and aborts, checked against the sequential reference (counts
 * exact, sums and cost within 1e-9 relative).
 */
@Command(name = "bench-kmeans", mixinStandardHelpOptions = true,
    description = "k-means centroid update: points/s, commits/aborts, verified.")
final class BenchKMeansCommand extends EngineCommand {
  @Option(names = "--points", defaultValue = "1000000", description = "Default ${DEFAULT-VALUE}.")
  int n;

  @Option(names = "--dims", defaultValue = "2", description = "Default ${DEFAULT-VALUE}.")
  int dims;

  @Option(names = "--k", defaultValue = "16", description = "Default ${DEFAULT-VALUE}.")
  int k;

  @Option(names = "--points-per-transaction", defaultValue = "4096",
      description = "Default ${DEFAULT-VALUE}.")
  int ppt;

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(256);

  @Mixin SeedOption seed = new SeedOption(1);

  @Mixin BestOfOption reps = new BestOfOption(5);

  @Override
  Run prepare() {
    reps.check();
    blockSize.check();
    if (k > n) {
      throw new IllegalArgumentException("--k " + k + " exceeds --points " + n);
    }
    double[] points = KMeansData.blobs(n, dims, k, seed.seed());
    double[] centroids = KMeansData.firstPoints(points, dims, k);
    KMeansOptions opts = KMeansOptions.defaults().withPointsPerTransaction(ppt)
        .withThreadsPerBlock(blockSize.threadsPerBlock);
    return e -> {
      try (KMeansUpdater u = new KMeansUpdater(e, k, dims, opts)) {
        KMeansPartial best = reps.fastest(() -> u.update(points, centroids),
            KMeansPartial::kernelNanos);
        double rate = best.kernelNanos() == 0 ? 0 : n * 1e9 / best.kernelNanos();
        System.out.printf("points/s: %.3f G (%,d points, k=%d, dims=%d, %.3f ms kernel time)%n",
            rate / 1e9, n, k, dims, best.kernelNanos() / 1e6);
        System.out.printf("transactions: %,d, commits: %,d, aborts: %,d, cost: %.6e%n",
            best.transactions(), best.commits(), best.aborts(), best.cost());
        String verdict = compare(best, KMeansUpdater.sequential(points, dims, centroids));
        System.out.println("verifier: " + verdict);
        return verdict.startsWith("OK") ? 0 : 1;
      }
    };
  }

  /** Counts exact, sums and cost within 1e-9 relative of the sequential reference. */
  static String compare(KMeansPartial actual, KMeansPartial expected) {
    String mismatch = actual.mismatch(expected);
    return mismatch == null
        ? "OK: counts exact, sums and cost within 1e-9 of the sequential reference"
        : "MISMATCH: " + mismatch;
  }
}
