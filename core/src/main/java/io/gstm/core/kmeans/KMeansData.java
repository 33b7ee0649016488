package io.gstm.core.kmeans;

import java.util.SplittableRandom;

/** Synthetic k-means inputs. */
public final class KMeansData {
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
    if (dims < 1) {
      throw new IllegalArgumentException("dims must be at least 1, got " + dims);
    }
    if (k < 1) {
      throw new IllegalArgumentException("k must be at least 1, got " + k);
    }
    if ((long) n * dims > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("n * dims = " + (long) n * dims + " exceeds an array");
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    double[] centres = new double[k * dims];
    for (int i = 0; i < centres.length; i++) {
      centres[i] = rnd.nextDouble(-10, 10);
    }
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
