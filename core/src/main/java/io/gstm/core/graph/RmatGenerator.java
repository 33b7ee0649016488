package io.gstm.core.graph;

import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Graph500-style R-MAT edges: each edge picks one quadrant of the adjacency matrix per level
 * with probabilities a = 0.57, b = 0.19, c = 0.19, d = 0.05, then vertex ids are scrambled by a
 * seeded permutation so that the high-degree vertices are not all small ids. Self-loops and
 * duplicate edges occur, as in Graph500; {@link CsrGraph#fromEdges} drops and merges them.
 */
public final class RmatGenerator {
  static final double A = 0.57;
  static final double B = 0.19;
  static final double C = 0.19;
  /** Largest weight; weights are integers 1..MAX_WEIGHT stored as doubles, so sums are exact. */
  public static final int MAX_WEIGHT = 100;
  /** Edges per chunk of {@link #chunk}. */
  public static final int CHUNK_EDGES = 1 << 20;

  private RmatGenerator() {}

  /**
   * Generates {@code edgeCount} directed edges over {@code 2^scale} vertices; the same arguments
   * give the same edges.
   *
   * @param scale log2 of the vertex count, 1..30
   * @param edgeCount edges to generate, at least 0
   * @param seed random seed
   * @param weighted whether to draw integer weights 1..{@value #MAX_WEIGHT} (else weights null)
   */
  public static EdgeList generate(int scale, int edgeCount, long seed, boolean weighted) {
    checkScale(scale);
    if (edgeCount < 0) {
      throw new IllegalArgumentException("edgeCount must be at least 0, got " + edgeCount);
    }
    if (edgeCount > CHUNK_EDGES) {
      return chunked(scale, edgeCount, seed, weighted, true);
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] perm = VertexIds.permutation(1 << scale, rnd);
    EdgeList g = new EdgeList(1 << scale, new int[edgeCount], new int[edgeCount],
        weighted ? new double[edgeCount] : null);
    draw(scale, rnd, perm, g, 0, edgeCount);
    return g;
  }

  /**
   * {@link #generate}'s edges before their ids are scrambled, and the permutation that
   * scrambles them: {@code perm[edges.src()[e]]} and {@code perm[edges.dst()[e]]} are
   * {@code generate}'s edge {@code e}, weights and order the same. For a build that maps the ids
   * itself (on the GPU, {@code CudaCsrBuild.buildByDegree} with an id table): the draw then
   * skips two random reads of the 2^scale-entry permutation an edge (67 M edges took 4.4-4.6 s
   * on 2 cores against 9.2-9.7 s scrambled, 1.03-1.19 s on 16 against 1.30 s).
   */
  public record Unscrambled(EdgeList edges, int[] perm) {}

  /** {@link #generate}'s edges with R-MAT's own ids, and the permutation of them. */
  public static Unscrambled generateUnscrambled(int scale, int edgeCount, long seed,
      boolean weighted) {
    checkScale(scale);
    if (edgeCount < 0) {
      throw new IllegalArgumentException("edgeCount must be at least 0, got " + edgeCount);
    }
    if (edgeCount > CHUNK_EDGES) {
      return new Unscrambled(chunked(scale, edgeCount, seed, weighted, false),
          permutation(scale, seed));
    }
    SplittableRandom rnd = new SplittableRandom(seed);
    int[] perm = VertexIds.permutation(1 << scale, rnd);
    EdgeList g = new EdgeList(1 << scale, new int[edgeCount], new int[edgeCount],
        weighted ? new double[edgeCount] : null);
    draw(scale, rnd, null, g, 0, edgeCount);
    return new Unscrambled(g, perm);
  }

  /**
   * A graph of more than {@link #CHUNK_EDGES} edges: the chunks of {@link #chunk} in order,
   * drawn on all cores (65 M edges took 25-40 s on one core). The same edges as the partitioned
   * R-MAT that the Spark tools draw from this seed.
   */
  private static EdgeList chunked(int scale, int edgeCount, long seed, boolean weighted,
      boolean scrambled) {
    int[] perm = scrambled ? permutation(scale, seed) : null;
    EdgeList g = new EdgeList(1 << scale, new int[edgeCount], new int[edgeCount],
        weighted ? new double[edgeCount] : null);
    IntStream.range(0, chunks(edgeCount)).parallel().forEach(index -> {
      int first = index * CHUNK_EDGES;
      draw(scale, chunkRandom(seed, index), perm, g, first,
          Math.min(CHUNK_EDGES, edgeCount - first));
    });
    return g;
  }

  /** The generator of chunk {@code index}. */
  private static SplittableRandom chunkRandom(long seed, int index) {
    // Seeds seed + index give overlapping SplittableRandom streams; their first output does not.
    return new SplittableRandom(new SplittableRandom(seed + index).nextLong());
  }

  /**
   * Edges of one chunk of {@link #generate}'s partitioned counterpart, for graphs too large to
   * draw in one place: chunk {@code index} holds edges {@code [index * CHUNK_EDGES, (index + 1) *
   * CHUNK_EDGES)} of {@code edgeCount}, drawn from a generator of their own (seeded by {@code
   * seed} and {@code index}), so that chunks can be drawn apart, in any order and on any machine,
   * and their union is the same graph whatever the grouping. The same distribution as {@link
   * #generate}, not the same edges.
   *
   * @param perm the vertex permutation, {@link #permutation(int, long)} of the same scale and seed
   * @throws IllegalArgumentException naming the argument out of range
   */
  public static EdgeList chunk(int scale, long edgeCount, int index, long seed, boolean weighted,
      int[] perm) {
    checkScale(scale);
    if (edgeCount < 0) {
      throw new IllegalArgumentException("edgeCount must be at least 0, got " + edgeCount);
    }
    if (index < 0 || index >= chunks(edgeCount)) {
      throw new IllegalArgumentException("index must be in 0.." + (chunks(edgeCount) - 1)
          + " for " + edgeCount + " edges, got " + index);
    }
    if (perm.length != 1 << scale) {
      throw new IllegalArgumentException("perm: " + perm.length + " ids for scale " + scale);
    }
    long first = (long) index * CHUNK_EDGES;
    int count = (int) Math.min(CHUNK_EDGES, edgeCount - first);
    EdgeList g = new EdgeList(1 << scale, new int[count], new int[count],
        weighted ? new double[count] : null);
    draw(scale, chunkRandom(seed, index), perm, g, 0, count);
    return g;
  }

  /** Chunks of {@link #chunk} that hold {@code edgeCount} edges. */
  public static int chunks(long edgeCount) {
    long c = (edgeCount + CHUNK_EDGES - 1) / CHUNK_EDGES;
    if (c > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("edgeCount " + edgeCount + " is too large");
    }
    return (int) c;
  }

  /** The vertex permutation of {@link #generate} (and {@link #chunk}) for this scale and seed. */
  public static int[] permutation(int scale, long seed) {
    checkScale(scale);
    return VertexIds.permutation(1 << scale, new SplittableRandom(seed));
  }

  private static void checkScale(int scale) {
    if (scale < 1 || scale > 30) {
      throw new IllegalArgumentException("scale must be in 1..30, got " + scale);
    }
  }

  /** A, A + B and A + B + C as fractions of 2^32: a level's quadrant from 32 random bits. */
  private static final long T_A = (long) (A * (1L << 32));
  private static final long T_AB = (long) ((A + B) * (1L << 32));
  private static final long T_ABC = (long) ((A + B + C) * (1L << 32));

  /**
   * Draws edges {@code [first, first + count)} of {@code g} from {@code rnd}: two levels from
   * each random long (32 bits a level) and no branch per level (one taken at random cost most of
   * the time); ids scrambled through {@code perm}, or not when it is null.
   */
  private static void draw(int scale, SplittableRandom rnd, int[] perm, EdgeList g, int first,
      int count) {
    int[] src = g.src();
    int[] dst = g.dst();
    double[] weights = g.weights();
    for (int e = first, end = first + count; e < end; e++) {
      int u = 0;
      int v = 0;
      long bits = 0;
      for (int level = 0; level < scale; level++) {
        if ((level & 1) == 0) {
          bits = rnd.nextLong();
        }
        long r = (level & 1) == 0 ? bits >>> 32 : bits & 0xffffffffL;
        // a: neither bit; b: v's; c: u's; d: both.
        int ab = r >= T_A ? 1 : 0;
        int bc = r >= T_AB ? 1 : 0;
        int cd = r >= T_ABC ? 1 : 0;
        u |= bc << level;
        v |= ((ab ^ bc) | cd) << level;
      }
      src[e] = perm == null ? u : perm[u];
      dst[e] = perm == null ? v : perm[v];
      if (weights != null) {
        weights[e] = 1 + rnd.nextInt(MAX_WEIGHT);
      }
    }
  }
}
