package io.gstm.core.graph;

import java.util.Arrays;
import java.util.SplittableRandom;

/** Sets and orders of vertex ids, shared by the generators, the relaxer and the connector. */
public final class VertexIds {
  private VertexIds() {}

  /**
   * A random permutation of {@code 0 .. n - 1} (Fisher-Yates, drawing from {@code rnd}): the same
   * generator state gives the same permutation.
   */
  public static int[] permutation(int n, SplittableRandom rnd) {
    int[] perm = new int[n];
    for (int i = 0; i < n; i++) {
      perm[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    return perm;
  }

  /**
   * The distinct values of {@code ids}, ascending, in a new array; sorts {@code ids} in place
   * (pass a copy to keep the order).
   */
  public static int[] sortDistinct(int[] ids) {
    Arrays.sort(ids);
    int count = 0;
    for (int i = 0; i < ids.length; i++) {
      if (i == 0 || ids[i] != ids[count - 1]) {
        ids[count++] = ids[i];
      }
    }
    return Arrays.copyOf(ids, count);
  }
}
