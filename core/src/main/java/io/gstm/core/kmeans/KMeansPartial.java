package io.gstm.core.kmeans;

import io.gstm.core.batch.TxCounts;
import io.gstm.core.batch.WithTxCounts;
import java.util.Objects;

/**
 * One partition's contribution to a k-means step: per centroid the sum of the points assigned
 * to it and their count, plus the cost and the transaction counters. Partials of the same shape
 * {@link #merge} into the contribution of all their points.
 *
 * @param k centroids
 * @param dims dimensions
 * @param sums row-major {@code k x dims} coordinate sums
 * @param counts points per centroid
 * @param cost sum over the points of the squared distance to their nearest centroid
 * @param tx transactions run, committed, aborted (each retried)
 * @param kernelNanos time the transactions ran (GPU time on the CUDA engine)
 */
public record KMeansPartial(int k, int dims, double[] sums, long[] counts, double cost,
    TxCounts tx, long kernelNanos) implements WithTxCounts {

  public KMeansPartial {
    Objects.requireNonNull(tx, "tx");
    if (k < 1 || dims < 1) {
      throw new IllegalArgumentException("k and dims must be at least 1, got k=" + k
          + ", dims=" + dims);
    }
    if (sums == null || sums.length != k * dims) {
      throw new IllegalArgumentException("sums: expected k * dims = " + k * dims
          + " entries, got " + (sums == null ? "null" : sums.length));
    }
    if (counts == null || counts.length != k) {
      throw new IllegalArgumentException("counts: expected k = " + k + " entries, got "
          + (counts == null ? "null" : counts.length));
    }
  }

  /** A partial of no points. */
  public static KMeansPartial empty(int k, int dims) {
    return new KMeansPartial(k, dims, new double[k * dims], new long[k], 0, TxCounts.NONE, 0);
  }

  /** The sum of this partial and {@code other} (a new object; both stay unchanged). */
  public KMeansPartial merge(KMeansPartial other) {
    if (other.k != k || other.dims != dims) {
      throw new IllegalArgumentException("other: shape k=" + other.k + ", dims=" + other.dims
          + " differs from k=" + k + ", dims=" + dims);
    }
    double[] s = sums.clone();
    for (int i = 0; i < s.length; i++) {
      s[i] += other.sums[i];
    }
    long[] c = counts.clone();
    for (int i = 0; i < c.length; i++) {
      c[i] += other.counts[i];
    }
    return new KMeansPartial(k, dims, s, c, cost + other.cost, tx.plus(other.tx),
        kernelNanos + other.kernelNanos);
  }

  /**
   * Where this partial differs from {@code expected} by more than floating-point reordering
   * can explain (counts exactly, sums and cost within 1e-9 relative); null where it matches.
   */
  public String mismatch(KMeansPartial expected) {
    for (int c = 0; c < expected.k(); c++) {
      if (counts[c] != expected.counts()[c]) {
        return "count of centroid " + c + ": expected " + expected.counts()[c] + ", got "
            + counts[c];
      }
    }
    for (int i = 0; i < expected.sums().length; i++) {
      double e = expected.sums()[i];
      if (Math.abs(sums[i] - e) > 1e-9 * Math.max(1, Math.abs(e))) {
        return "sum " + i + ": expected " + e + ", got " + sums[i];
      }
    }
    if (Math.abs(cost - expected.cost()) > 1e-9 * Math.max(1, expected.cost())) {
      return "cost: expected " + expected.cost() + ", got " + cost;
    }
    return null;
  }

  /** Whether {@link #mismatch} finds nothing. */
  public boolean matches(KMeansPartial expected) {
    return mismatch(expected) == null;
  }

  /** Total points counted. */
  public long points() {
    long total = 0;
    for (long c : counts) {
      total += c;
    }
    return total;
  }

  /**
   * New centroids: each centroid's mean, or the previous centroid where no point was assigned
   * (as MLlib keeps an empty cluster's centre).
   */
  public double[] centroids(double[] previous) {
    if (previous.length != k * dims) {
      throw new IllegalArgumentException("previous: expected k * dims = " + k * dims
          + " entries, got " + previous.length);
    }
    double[] out = previous.clone();
    for (int c = 0; c < k; c++) {
      if (counts[c] > 0) {
        for (int d = 0; d < dims; d++) {
          out[c * dims + d] = sums[c * dims + d] / counts[c];
        }
      }
    }
    return out;
  }
}
