package io.gstm.spark.graph;

import io.gstm.core.graph.CsrGraph;
import io.gstm.spark.graph.ParallelBuild.Piece;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LocalGraph#csrBySource} on the common fork-join pool, to the same arrays: each vertex's
 * out-edges in input order, self-loops dropped, of duplicates the first target kept with the
 * lightest weight (the first among equal ones). The edges go in two stable steps: by ranges of
 * sources (counted per piece and range, so that each range receives its edges piece after piece,
 * in input order), then within groups of ranges by source, each group by one task; a group then
 * drops its vertices' duplicates and the kept edges are closed up.
 */
final class ParallelCsr {
  private static final Logger LOG = LoggerFactory.getLogger(ParallelCsr.class);
  /** At most this many ranges of sources (of a power-of-two span) per piece's counts. */
  private static final int RANGES = 2048;
  /** About this many groups of ranges with equal edge counts, a task each. */
  private static final int GROUPS = 256;
  /** Up to this out-degree duplicates are found by comparing with the edges kept so far. */
  private static final int SMALL_DEGREE = 16;

  private ParallelCsr() {}

  /**
   * The CSR of the edges {@code (lsrc[i], ldst[i])} (local ids in {@code [0, n)}) of these
   * pieces, followed when {@code undirected} by the same edges reversed, as the sequential build
   * orders them; the weights are read from the pieces' chunks when {@code weighted}.
   */
  static CsrGraph build(int n, int[] lsrc, int[] ldst, Piece[] pieces, boolean undirected,
      boolean weighted) {
    long t0 = System.nanoTime();
    int runs = pieces.length * (undirected ? 2 : 1);
    int shift = 0;
    while (((n - 1L) >>> shift) + 1 > RANGES) {
      shift++;
    }
    int sh = shift;
    int ranges = n == 0 ? 0 : (int) (((n - 1L) >>> shift) + 1);
    Edges edges = new Edges(lsrc, ldst, pieces, undirected);
    // Each run's edges per range of sources, then (ranges outer, runs inner) where they start.
    int[][] at = new int[runs][];
    IntStream.range(0, runs).parallel().forEach(k -> {
      int[] count = new int[ranges];
      edges.forEach(k, (s, d, i) -> count[s >>> sh]++);
      at[k] = count;
    });
    int[] rangeStart = new int[ranges + 1];
    long total = 0;
    for (int r = 0; r < ranges; r++) {
      rangeStart[r] = (int) total;
      for (int k = 0; k < runs; k++) {
        int c = at[k][r];
        at[k][r] = (int) total;
        total += c;
      }
    }
    long t1 = System.nanoTime();
    int m = Math.toIntExact(total);
    rangeStart[ranges] = m;
    int[] bs = new int[m];
    int[] bd = new int[m];
    double[] bw = weighted ? new double[m] : null;
    IntStream.range(0, runs).parallel().forEach(k -> {
      int[] next = at[k];
      double[] w = weighted ? pieces[k % pieces.length].chunk().w : null;
      edges.forEach(k, (s, d, i) -> {
        int pos = next[s >>> sh]++;
        bs[pos] = s;
        bd[pos] = d;
        if (w != null) {
          bw[pos] = w[i];
        }
      });
    });
    long t2 = System.nanoTime();
    int[] bounds = groups(rangeStart);
    int groups = bounds.length - 1;
    int[] offsets = new int[n + 1];
    int[] targets = new int[m];
    double[] weights = weighted ? new double[m] : null;
    int[] keptEnd = new int[n];
    int[] kept = new int[groups + 1];
    IntStream.range(0, groups).parallel().forEach(g -> {
      int v0 = first(bounds[g], sh, n);
      int v1 = first(bounds[g + 1], sh, n);
      int lo = rangeStart[bounds[g]];
      int hi = rangeStart[bounds[g + 1]];
      int maxDegree = bySource(v0, v1, lo, hi, bs, bd, bw, offsets, targets, weights, keptEnd);
      Seen seen = maxDegree > SMALL_DEGREE ? new Seen(Math.min(maxDegree, n)) : null;
      int count = 0;
      for (int v = v0; v < v1; v++) {
        int b = offsets[v];
        int e = keptEnd[v];
        keptEnd[v] = e - b > SMALL_DEGREE
            ? seen.compact(v, b, e, targets, weights) : compact(b, e, targets, weights);
        count += keptEnd[v] - b;
      }
      kept[g + 1] = count;
    });
    long t3 = System.nanoTime();
    LOG.debug("gstm relaxation: parallel csr: counted {} ms, by ranges {} ms, by source and"
        + " duplicates dropped {} ms", (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000,
        (t3 - t2) / 1_000_000);
    for (int g = 0; g < groups; g++) {
      kept[g + 1] += kept[g];
    }
    int out = kept[groups];
    offsets[n] = out;
    if (out == m) {
      return new CsrGraph(n, offsets, targets, weights);
    }
    // Close up the dropped duplicates: each group's kept edges move to its place in the result.
    int[] keptTargets = new int[out];
    double[] keptWeights = weighted ? new double[out] : null;
    IntStream.range(0, groups).parallel().forEach(g -> {
      int o = kept[g];
      for (int v = first(bounds[g], sh, n), v1 = first(bounds[g + 1], sh, n); v < v1; v++) {
        int b = offsets[v];
        int c = keptEnd[v] - b;
        System.arraycopy(targets, b, keptTargets, o, c);
        if (weighted) {
          System.arraycopy(weights, b, keptWeights, o, c);
        }
        offsets[v] = o;
        o += c;
      }
    });
    return new CsrGraph(n, offsets, keptTargets, keptWeights);
  }

  /** The first vertex of range {@code r}. */
  private static int first(int r, int shift, int n) {
    return (int) Math.min(n, (long) r << shift);
  }

  /**
   * Bounds (range indices, from 0 to the range count) of consecutive ranges holding about equal
   * numbers of edges, so that a range of hubs does not hold up a task of many light ranges.
   */
  private static int[] groups(int[] rangeStart) {
    int ranges = rangeStart.length - 1;
    long target = Math.max(1, rangeStart[ranges] / GROUPS);
    int[] bounds = new int[ranges + 1];
    int groups = 0;
    for (int r = 1; r <= ranges; r++) {
      if (r == ranges || rangeStart[r] - rangeStart[bounds[groups]] >= target) {
        bounds[++groups] = r;
      }
    }
    return Arrays.copyOf(bounds, groups + 1);
  }

  /**
   * A stable counting sort by source of the bucket's edges {@code [lo, hi)}, those of vertices
   * {@code [v0, v1)}, into {@code [lo, hi)} of the targets and weights: sets the vertices'
   * offsets, leaves each one's end in {@code ends}; returns the largest out-degree.
   */
  private static int bySource(int v0, int v1, int lo, int hi, int[] bs, int[] bd, double[] bw,
      int[] offsets, int[] targets, double[] weights, int[] ends) {
    for (int j = lo; j < hi; j++) {
      ends[bs[j]]++;
    }
    int maxDegree = 0;
    int pos = lo;
    for (int v = v0; v < v1; v++) {
      int d = ends[v];
      maxDegree = Math.max(maxDegree, d);
      offsets[v] = pos;
      ends[v] = pos;
      pos += d;
    }
    for (int j = lo; j < hi; j++) {
      int at = ends[bs[j]]++;
      targets[at] = bd[j];
      if (weights != null) {
        weights[at] = bw[j];
      }
    }
    return maxDegree;
  }

  /**
   * Drops the duplicates among a vertex's edges {@code [b, e)} in place, by comparing each with
   * the edges kept so far (a small out-degree); returns the end of the kept ones.
   */
  private static int compact(int b, int e, int[] targets, double[] weights) {
    int out = b;
    for (int j = b; j < e; j++) {
      int t = targets[j];
      int q = b;
      while (q < out && targets[q] != t) {
        q++;
      }
      if (q < out) {
        if (weights != null && weights[j] < weights[q]) {
          weights[q] = weights[j];
        }
      } else {
        targets[out] = t;
        if (weights != null) {
          weights[out] = weights[j];
        }
        out++;
      }
    }
    return out;
  }

  /**
   * The targets a vertex has kept so far, for a large out-degree: an open-addressing table from
   * target to kept slot, used by one task for the vertices of one group in turn. An entry is
   * live only for the vertex that wrote it, so nothing is cleared between vertices.
   */
  private static final class Seen {
    private final int[] owner;
    private final int[] key;
    private final int[] slot;

    Seen(int maxDistinct) {
      int capacity = 1 << bits(maxDistinct);
      owner = new int[capacity];
      key = new int[capacity];
      slot = new int[capacity];
      Arrays.fill(owner, -1);
    }

    /** Bits of a table at most half full with {@code distinct} entries. */
    private static int bits(int distinct) {
      return Math.min(30, 64 - Long.numberOfLeadingZeros(2L * distinct - 1));
    }

    /** As {@link ParallelCsr#compact} for vertex {@code v}'s edges {@code [b, e)}. */
    int compact(int v, int b, int e, int[] targets, double[] weights) {
      int bits = bits(Math.min(e - b, owner.length / 2));
      int mask = (1 << bits) - 1;
      int out = b;
      for (int j = b; j < e; j++) {
        int t = targets[j];
        int h = (t * 0x9E3779B9) >>> (32 - bits);
        while (owner[h] == v && key[h] != t) {
          h = (h + 1) & mask;
        }
        if (owner[h] == v) {
          int q = slot[h];
          if (weights != null && weights[j] < weights[q]) {
            weights[q] = weights[j];
          }
        } else {
          owner[h] = v;
          key[h] = t;
          slot[h] = out;
          targets[out] = t;
          if (weights != null) {
            weights[out] = weights[j];
          }
          out++;
        }
      }
      return out;
    }
  }

  /** The edges of a run: a piece's, forward, or for the second half of the runs reversed. */
  private record Edges(int[] lsrc, int[] ldst, Piece[] pieces, boolean undirected) {
    interface Visitor {
      /** Edge {@code s -> d}, which is edge {@code i} of its chunk. */
      void edge(int s, int d, int i);
    }

    /** Visits run {@code k}'s edges, self-loops left out, in input order. */
    void forEach(int k, Visitor visitor) {
      Piece piece = pieces[k % pieces.length];
      boolean reversed = k >= pieces.length;
      int[] from = reversed ? ldst : lsrc;
      int[] to = reversed ? lsrc : ldst;
      for (int i = piece.from(), g = piece.base() + i; i < piece.to(); i++, g++) {
        int s = from[g];
        int d = to[g];
        if (s != d) {
          visitor.edge(s, d, i);
        }
      }
    }
  }
}
