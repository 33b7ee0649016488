package io.gstm.core.graph;

import java.util.Arrays;

/**
 * Vertex ids cut into ranges of a power-of-two span, as the parallel CSR builds split edges by
 * source (core's {@code ParallelCsrBuild}, the Spark connector's subgraph build): the span, a
 * range's first vertex, and groups of consecutive ranges with about equal edge counts.
 */
public final class SourceRanges {
  private SourceRanges() {}

  /** The shift of the least power-of-two span cutting {@code n} ids into at most {@code max}. */
  public static int shift(int n, int max) {
    int shift = 0;
    while (((n - 1L) >>> shift) + 1 > max) {
      shift++;
    }
    return shift;
  }

  /** How many ranges of span {@code 1 << shift} hold {@code n} ids. */
  public static int count(int n, int shift) {
    return n == 0 ? 0 : (int) (((n - 1L) >>> shift) + 1);
  }

  /** The first vertex of range {@code r}. */
  public static int first(int r, int shift, int n) {
    return (int) Math.min(n, (long) r << shift);
  }

  /**
   * Bounds (range indices, 0 to the range count) of consecutive ranges holding about equal
   * numbers of edges ({@code rangeStart}: edges before each range, then the total), about
   * {@code groups} of them, so that a range of hubs does not hold up a task of many light ranges.
   */
  public static int[] groups(int[] rangeStart, int groups) {
    int ranges = rangeStart.length - 1;
    if (ranges == 0) {
      return new int[] {0};
    }
    long target = Math.max(1, rangeStart[ranges] / groups);
    int[] bounds = new int[ranges + 1];
    int made = 0;
    for (int r = 1; r <= ranges; r++) {
      if (r == ranges || rangeStart[r] - rangeStart[bounds[made]] >= target) {
        bounds[++made] = r;
      }
    }
    return Arrays.copyOf(bounds, made + 1);
  }
}
