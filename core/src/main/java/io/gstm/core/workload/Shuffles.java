package io.gstm.core.workload;

import java.util.SplittableRandom;

/**
 * The seeded shuffles the batch generators share, each drawing from the random source in a fixed
 * order so that a seed keeps giving the same batch.
 */
public final class Shuffles {
  private Shuffles() {}

  /** {@code 0, 1, .., n - 1}: the pool {@link #draw} takes distinct values from. */
  public static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  /**
   * Step {@code i} of a partial Fisher-Yates shuffle: swaps {@code a[i]} with a uniformly drawn
   * {@code a[i..]} and returns it, so that steps {@code 0..i} draw distinct values of the pool.
   */
  public static int draw(int[] a, int i, SplittableRandom rnd) {
    int j = i + rnd.nextInt(a.length - i);
    int v = a[j];
    a[j] = a[i];
    a[i] = v;
    return v;
  }

  /** A Fisher-Yates shuffle of a batch's rows: each transaction's type and column values. */
  public static void rows(int[] types, int[][] cols, SplittableRandom rnd) {
    for (int i = types.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = types[i];
      types[i] = types[j];
      types[j] = t;
      for (int[] c : cols) {
        int v = c[i];
        c[i] = c[j];
        c[j] = v;
      }
    }
  }
}
