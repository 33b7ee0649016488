package io.gstm.core.kmeans;

import java.util.SplittableRandom;

/** Synthetic k-means inputs. */
public final class KMeansData {
  /**
   * Points per chunk of {@link #blobsChunk}: small enough that files written a whole number of
   * chunks each hold about as many points (100 M points in 64 files: 23 or 24 chunks each; with
   * chunks of 2^20 points, one or two, and the readers of the larger files set the pace).
   */
  public static final int CHUNK_POINTS = 1 << 16;

  private KMeansData() {}

  /**
   * {@code n} points in {@code dims} dimensions around {@code k} centres drawn uniformly from
   * [-10, 10)^dims, each point a centre (chosen uniformly) plus Gaussian noise of standard
   * deviation 1. Row-major: point {@code i} is {@code [i * dims, (i + 1) * dims)}. The same
   * arguments give the same points.
   */
  public static double[] blobs(int n, int dims, int k, long seed) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be at least 0, got " + n);
    }
    check(dims, k);
    if ((long) n * dims > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("n * dims = " + (long) n * dims + " exceeds an array");
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    return draw(n, dims, k, centres(dims, k, rnd), rnd);
  }

  /**
   * Points of one chunk of {@link #blobs}'s partitioned counterpart, for data sets too large to
   * draw in one place: chunk {@code index} holds points {@code [index * CHUNK_POINTS, (index + 1)
   * * CHUNK_POINTS)} of {@code n}, around {@link #blobs}'s centres, drawn from a generator of
   * their own (seeded by {@code seed} and {@code index}), so that chunks can be drawn apart and
   * their union is the same data set whatever the grouping. The same distribution as {@link
   * #blobs}, not the same points.
   *
   * @throws IllegalArgumentException naming the argument out of range
   */
  public static double[] blobsChunk(long n, int dims, int k, long seed, int index) {
    if (n < 0) {
      throw new IllegalArgumentException("n must be at least 0, got " + n);
    }
    check(dims, k);
    if (index < 0 || index >= chunks(n)) {
      throw new IllegalArgumentException("index must be in 0.." + (chunks(n) - 1) + " for " + n
          + " points, got " + index);
    }
    if ((long) CHUNK_POINTS * dims > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("dims = " + dims + " is too large for a chunk");
    }
    double[] centres = centres(dims, k, new SplittableRandom(seed));
    int count = (int) Math.min(CHUNK_POINTS, n - (long) index * CHUNK_POINTS);
    // Seeds seed + index give overlapping SplittableRandom streams; their first output does not.
    return draw(count, dims, k, centres,
        new SplittableRandom(new SplittableRandom(seed + index).nextLong()));
  }

  /** Chunks of {@link #blobsChunk} that hold {@code n} points. */
  public static int chunks(long n) {
    long c = (n + CHUNK_POINTS - 1) / CHUNK_POINTS;
    if (c > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("n = " + n + " is too large");
    }
    return (int) c;
  }

  private static void check(int dims, int k) {
    if (dims < 1) {
      throw new IllegalArgumentException("dims must be at least 1, got " + dims);
    }
    if (k < 1) {
      throw new IllegalArgumentException("k must be at least 1, got " + k);
    }
  }

  private static double[] centres(int dims, int k, SplittableRandom rnd) {
    double[] centres = new double[k * dims];
    for (int i = 0; i < centres.length; i++) {
      centres[i] = rnd.nextDouble(-10, 10);
    }
    return centres;
  }

  private static double[] draw(int n, int dims, int k, double[] centres, SplittableRandom rnd) {
    double[] points = new double[n * dims];
    for (int i = 0; i < n; i++) {
      int c = rnd.nextInt(k);
      for (int d = 0; d < dims; d++) {
        points[i * dims + d] = centres[c * dims + d] + gaussian(rnd);
      }
    }
    return points;
  }

  /** The first {@code k} points as initial centroids (a copy). */
  public static double[] firstPoints(double[] points, int dims, int k) {
    if ((long) k * dims > points.length) {
      throw new IllegalArgumentException("k: " + k + " centroids need " + k + " points, got "
          + points.length / dims);
    }
    return java.util.Arrays.copyOf(points, k * dims);
  }

  private static double gaussian(SplittableRandom rnd) {
    // Box-Muller; 1 - u keeps the logarithm finite.
    double u = 1 - rnd.nextDouble();
    double v = rnd.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
