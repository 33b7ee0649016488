package io.gstm.spark.ml;

import io.gstm.core.kmeans.KMeansPartial;
import io.gstm.core.kmeans.KMeansUpdater;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One partition's k-means step, kept resident across the iterations of a fit (in the executor's
 * {@link io.gstm.spark.exec.ResidentCache}): the partition's {@link KMeansUpdater} and the buffers
 * of the grouping, which are reused instead of reallocated every iteration.
 *
 * <p>On the JVM engine a step assigns every point once ({@link KMeansUpdater#assign}), groups the
 * points by nearest centroid (a counting sort) and hands the grouped points with their
 * assignment to {@link KMeansUpdater#update(double[], double[], int[])}, which then does not
 * assign them again. Grouped, a block of {@code pointsPerTransaction} points touches one or two
 * centroids instead of up to {@code k}, so the update's transactions (one per block and centroid)
 * read each point about once. The sums are those of an ungrouped update up to the order of the
 * floating-point additions. On the CUDA engine, whose kernel assigns the points itself in the
 * launch that runs the transactions ({@link KMeansUpdater#assignsOnDevice()}), the points go to
 * the updater as they are, neither assigned nor grouped on the host.
 *
 * <p>Not thread-safe: the cache hands an entry to one task at a time.
 */
final class PartitionKMeans implements AutoCloseable {
  private final KMeansUpdater updater;
  private final int k;
  private final int dims;
  private final int[] start;
  private int[] nearest = new int[0];
  private int[] groupedAssignment = new int[0];
  private double[] grouped = new double[0];
  /** The points the updater holds on the device (blocks' arrays, never modified), or null. */
  private List<double[]> loaded;
  /** The parts of {@link #update(List, int, double[])} joined, for the JVM engine's grouping. */
  private List<double[]> joinedFrom;
  private double[] joined;

  PartitionKMeans(KMeansUpdater updater) {
    this.updater = Objects.requireNonNull(updater, "updater");
    this.k = updater.k();
    this.dims = updater.dims();
    this.start = new int[k + 1];
  }

  KMeansUpdater updater() {
    return updater;
  }

  /**
   * The partial of {@code points} ({@code n x dims}, row-major) under {@code centroids}: their
   * sums and counts per nearest centroid, added under the STM by the updater.
   */
  KMeansPartial update(double[] points, int n, double[] centroids) {
    return update(List.of(points), n, centroids);
  }

  /**
   * As {@link #update(double[], int, double[])} over the points of several blocks in order (a
   * point set): on the device each block is copied to its place once, never joined on the
   * host. Pass the same list every iteration.
   */
  KMeansPartial update(List<double[]> parts, int n, double[] centroids) {
    long words = 0;
    for (double[] part : parts) {
      words += part.length;
    }
    if ((long) n * dims != words) {
      throw new IllegalArgumentException("points: " + n + " points of " + dims + " dims need "
          + (long) n * dims + " values, got " + words);
    }
    if (updater.assignsOnDevice()) {
      // The same blocks every iteration: their points go to the device once.
      if (!sameArrays(parts, loaded)) {
        updater.load(parts);
        loaded = List.copyOf(parts);
      }
      return updater.updateLoaded(centroids);
    }
    if (!sameArrays(parts, joinedFrom)) {
      joined = parts.size() == 1 ? parts.get(0) : TxKMeans.Block.join(parts, (int) words, true);
      joinedFrom = List.copyOf(parts);
    }
    group(joined, n, centroids);
    return updater.update(grouped, centroids, groupedAssignment);
  }

  /** Whether {@code a} and {@code b} hold the very same arrays, in order. */
  private static boolean sameArrays(List<double[]> a, List<double[]> b) {
    if (b == null || a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i) != b.get(i)) {
        return false;
      }
    }
    return true;
  }

  /** Fills {@code grouped} with the points ordered by nearest centroid, and their assignment. */
  private void group(double[] points, int n, double[] centroids) {
    if (nearest.length != n) {
      nearest = new int[n];
      groupedAssignment = new int[n];
      grouped = new double[n * dims];
    }
    KMeansUpdater.assign(points, dims, centroids, nearest);
    Arrays.fill(start, 0);
    for (int i = 0; i < n; i++) {
      start[nearest[i] + 1]++;
    }
    for (int c = 0; c < k; c++) {
      start[c + 1] += start[c];
      Arrays.fill(groupedAssignment, start[c], start[c + 1], c);
    }
    if (dims == 2) {
      for (int i = 0; i < n; i++) {
        int to = start[nearest[i]]++;
        grouped[2 * to] = points[2 * i];
        grouped[2 * to + 1] = points[2 * i + 1];
      }
    } else {
      for (int i = 0; i < n; i++) {
        System.arraycopy(points, i * dims, grouped, start[nearest[i]]++ * dims, dims);
      }
    }
  }

  @Override
  public void close() {
    updater.close();
  }
}
