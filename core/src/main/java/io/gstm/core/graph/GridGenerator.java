package io.gstm.core.graph;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Weighted 2-D grids, the high-diameter counterpart of {@link RmatGenerator}: road networks and
 * grids have diameters of thousands of hops, where R-MAT's few hops hide how much work a
 * label-correcting relaxation repeats. Vertex {@code r * cols + c} is the cell in row {@code r},
 * column {@code c} (row-major ids); each cell is joined to its right and lower neighbours by one
 * edge each way, both of the same integer weight in 1..{@value RmatGenerator#MAX_WEIGHT} (so
 * sums are exact and components see an undirected graph). The road-like variant removes a
 * fraction of those street pairs and adds a few long shortcuts (highways) between random cells,
 * weighted like the streets they bypass, so that some shortest paths leave the grid's lines.
 * The same arguments give the same edges.
 */
public final class GridGenerator {
  /** Cells per side at most: ids stay ints (46,340^2 < 2^31). */
  public static final int MAX_SIDE = 46_340;

  private GridGenerator() {}

  /** A {@code rows x cols} grid, edges in row-major order of their source cell. */
  public static EdgeList grid(int rows, int cols, long seed) {
    return roadLike(rows, cols, seed, 0, 0);
  }

  /** A square grid of about {@code vertices} cells (the side rounded up to a whole cell). */
  public static EdgeList square(int vertices, long seed) {
    if (vertices < 1) {
      throw new IllegalArgumentException("vertices must be at least 1, got " + vertices);
    }
    int side = (int) Math.ceil(Math.sqrt(vertices));
    return grid(side, side, seed);
  }

  /**
   * A road-like grid: each street pair (both directions) is missing with probability
   * {@code removed}; then {@code shortcuts} pairs of edges join random cells, weighing half the
   * Manhattan distance between them times the mean street weight, at least 1.
   *
   * @param removed fraction of street pairs left out, in [0, 1)
   * @param shortcuts extra edge pairs, at least 0
   */
  public static EdgeList roadLike(int rows, int cols, long seed, double removed, int shortcuts) {
    if (rows < 1 || rows > MAX_SIDE || cols < 1 || cols > MAX_SIDE) {
      throw new IllegalArgumentException("rows and cols must be in 1.." + MAX_SIDE + ", got "
          + rows + " x " + cols);
    }
    if (!(removed >= 0 && removed < 1)) {
      throw new IllegalArgumentException("removed must be in [0, 1), got " + removed);
    }
    if (shortcuts < 0) {
      throw new IllegalArgumentException("shortcuts must be at least 0, got " + shortcuts);
    }
    long streets = (long) rows * (cols - 1) + (long) (rows - 1) * cols;
    long edges = 2 * (streets + shortcuts);
    if (edges > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("rows x cols: " + edges + " edges exceed an array");
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    // Removals and shortcuts draw from their own stream, so that the streets that remain keep
    // the weights they have in the full grid.
    SplittableRandom road = new SplittableRandom(seed ^ 0x9E3779B97F4A7C15L);
    int m = (int) edges;
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    int e = 0;
    for (int r = 0; r < rows; r++) {
      for (int c = 0; c < cols; c++) {
        int v = r * cols + c;
        if (c + 1 < cols) {
          e = street(src, dst, w, e, v, v + 1, rnd, road, removed);
        }
        if (r + 1 < rows) {
          e = street(src, dst, w, e, v, v + cols, rnd, road, removed);
        }
      }
    }
    double mean = (1 + RmatGenerator.MAX_WEIGHT) / 2.0;
    for (int s = 0; s < shortcuts; s++) {
      int a = road.nextInt(rows * cols);
      int b = road.nextInt(rows * cols);
      int hops = Math.abs(a / cols - b / cols) + Math.abs(a % cols - b % cols);
      e = bothWays(src, dst, w, e, a, b, Math.max(1, Math.floor(hops * mean / 2)));
    }
    if (e < m) {
      src = Arrays.copyOf(src, e);
      dst = Arrays.copyOf(dst, e);
      w = Arrays.copyOf(w, e);
    }
    return new EdgeList(rows * cols, src, dst, w);
  }

  private static int street(int[] src, int[] dst, double[] w, int e, int a, int b,
      SplittableRandom rnd, SplittableRandom road, double removed) {
    double weight = 1 + rnd.nextInt(RmatGenerator.MAX_WEIGHT);
    if (removed > 0 && road.nextDouble() < removed) {
      return e;
    }
    return bothWays(src, dst, w, e, a, b, weight);
  }

  /** Writes {@code a -> b} and {@code b -> a} of one weight at {@code e}; returns {@code e + 2}. */
  private static int bothWays(int[] src, int[] dst, double[] w, int e, int a, int b,
      double weight) {
    src[e] = a;
    dst[e] = b;
    w[e] = weight;
    src[e + 1] = b;
    dst[e + 1] = a;
    w[e + 1] = weight;
    return e + 2;
  }

  /**
   * The same edges in a seeded random order (as a file or a table without any order would give
   * them): nothing of the input's order then tells which edges are near each other.
   */
  public static EdgeList shuffled(EdgeList g, long seed) {
    EdgeList out = new EdgeList(g.vertexCount(), g.src().clone(), g.dst().clone(),
        g.weights() == null ? null : g.weights().clone());
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = out.edgeCount() - 1; i > 0; i--) {
      out.swap(i, rnd.nextInt(i + 1));
    }
    return out;
  }
}
