package io.gstm.spark.graph;

import static io.gstm.spark.graph.ParallelBuild.ms;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.SourceRanges;
import io.gstm.spark.graph.ParallelBuild.Piece;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LocalGraph#csrBySource} on the common fork-join pool, to the same arrays: each vertex's
 * out-edges in input order, self-loops dropped, of duplicates the first target kept with the
 * lightest weight (the first among equal ones). The edges go in two stable steps: by ranges of
 * sources (counted per run and range, so that each range receives its edges run after run, in
 * input order), then within groups of ranges by source, each group by one task; a group then
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
   * The CSR of these pieces' edges, mapped to local ids in {@code [0, n)} by {@code local} (a
   * table over the global ids), followed when {@code undirected} by the same edges reversed, as
   * the sequential build orders them; the weights are read from the pieces' chunks when {@code
   * weighted}.
   */
  static CsrGraph build(int n, int[] local, Piece[] pieces, boolean undirected,
      boolean weighted) {
    long t0 = System.nanoTime();
    int sh = SourceRanges.shift(n, RANGES);
    int ranges = SourceRanges.count(n, sh);
    int p = pieces.length;
    // Runs 0..p-1 the pieces' edges, runs p..2p-1 (undirected) the same reversed: each by
    // ranges of sources, made by one task per piece in arrays of its own.
    Run[] runs = new Run[undirected ? 2 * p : p];
    IntStream.range(0, p).parallel().forEach(k -> split(pieces[k], local, ranges, sh, weighted,
        runs, k, undirected ? k + p : -1));
    // Edges before each range (of all runs): groups of ranges with about equal edge counts.
    int[] rangeStart = new int[ranges + 1];
    long total = 0;
    for (int r = 0; r < ranges; r++) {
      rangeStart[r] = Math.toIntExact(total);
      for (Run run : runs) {
        total += run.start[r + 1] - run.start[r];
      }
    }
    int m = Math.toIntExact(total);
    rangeStart[ranges] = m;
    long t1 = System.nanoTime();
    int[] bounds = SourceRanges.groups(rangeStart, GROUPS);
    int groups = bounds.length - 1;
    int[] offsets = new int[n + 1];
    int[] kept = new int[groups + 1];
    int[][] groupTargets = new int[groups][];
    double[][] groupWeights = new double[groups][];
    IntStream.range(0, groups).parallel().forEach(g -> kept[g + 1] = bySource(bounds[g],
        bounds[g + 1], sh, n, runs, weighted, rangeStart, offsets, groupTargets, groupWeights,
        g));
    long t2 = System.nanoTime();
    for (int g = 0; g < groups; g++) {
      kept[g + 1] += kept[g];
    }
    int out = kept[groups];
    offsets[n] = out;
    // Each group's kept edges, at the start of its arrays, to their place in the result.
    int[] targets = new int[out];
    double[] weights = weighted ? new double[out] : null;
    IntStream.range(0, groups).parallel().forEach(g -> {
      int o = kept[g];
      System.arraycopy(groupTargets[g], 0, targets, o, kept[g + 1] - o);
      if (weighted) {
        System.arraycopy(groupWeights[g], 0, weights, o, kept[g + 1] - o);
      }
      int v1 = SourceRanges.first(bounds[g + 1], sh, n);
      for (int v = SourceRanges.first(bounds[g], sh, n); v < v1; v++) {
        offsets[v] += o;
      }
    });
    long t3 = System.nanoTime();
    LOG.debug("gstm relaxation: parallel csr: by ranges {} ms, by source and duplicates dropped"
        + " {} ms, closed up {} ms", ms(t1 - t0), ms(t2 - t1), ms(t3 - t2));
    return new CsrGraph(n, offsets, targets, weights);
  }

  /**
   * A run's edges by ranges of sources, in input order within each: range {@code r}'s are
   * {@code [start[r], start[r + 1])} of the sources, targets and weights (null when unweighted).
   */
  private record Run(int[] start, int[] s, int[] d, double[] w) {}

  /**
   * Splits a piece's edges by ranges of sources into {@code runs[forward]} and, unless {@code
   * reversed} is -1, the edges reversed into {@code runs[reversed]}, self-loops left out. The
   * endpoints are mapped once, into arrays of the piece's size that stay in this core's cache
   * while they are read for the counts and the copies.
   */
  private static void split(Piece piece, int[] local, int ranges, int sh, boolean weighted,
      Run[] runs, int forward, int reversed) {
    EdgeChunk c = piece.chunk();
    int len = piece.to() - piece.from();
    int[] ls = new int[len];
    int[] ld = new int[len];
    for (int i = 0, j = piece.from(); i < len; i++, j++) {
      ls[i] = local[c.src[j]];
      ld[i] = local[c.dst[j]];
    }
    double[] w = weighted ? c.w : null;
    runs[forward] = run(ls, ld, w, piece.from(), ranges, sh);
    if (reversed >= 0) {
      runs[reversed] = run(ld, ls, w, piece.from(), ranges, sh);
    }
  }

  /** The run of edges {@code from[i] -> to[i]} (weight {@code w[base + i]}). */
  private static Run run(int[] from, int[] to, double[] w, int base, int ranges, int sh) {
    int[] start = new int[ranges + 1];
    for (int i = 0; i < from.length; i++) {
      if (from[i] != to[i]) {
        start[(from[i] >>> sh) + 1]++;
      }
    }
    for (int r = 0; r < ranges; r++) {
      start[r + 1] += start[r];
    }
    int[] next = Arrays.copyOf(start, ranges);
    int m = start[ranges];
    int[] s = new int[m];
    int[] d = new int[m];
    double[] rw = w == null ? null : new double[m];
    for (int i = 0; i < from.length; i++) {
      int a = from[i];
      int b = to[i];
      if (a != b) {
        int pos = next[a >>> sh]++;
        s[pos] = a;
        d[pos] = b;
        if (rw != null) {
          rw[pos] = w[base + i];
        }
      }
    }
    return new Run(start, s, d, rw);
  }

  /**
   * Group {@code g}, the edges of ranges {@code [r0, r1)} of all runs: sorts them stably by
   * source into arrays of the group's size (small, and zeroed by this task's thread), then drops
   * each vertex's duplicates, closing up the kept edges in place; leaves the arrays in {@code
   * groupTargets[g]} and {@code groupWeights[g]}, the vertices' offsets relative to them, and
   * returns how many edges were kept.
   */
  private static int bySource(int r0, int r1, int sh, int n, Run[] runs, boolean weighted,
      int[] rangeStart, int[] offsets, int[][] groupTargets, double[][] groupWeights, int g) {
    int v0 = SourceRanges.first(r0, sh, n);
    int v1 = SourceRanges.first(r1, sh, n);
    int size = rangeStart[r1] - rangeStart[r0];
    int[] start = new int[v1 - v0 + 1];
    for (Run run : runs) {
      for (int j = run.start[r0], end = run.start[r1]; j < end; j++) {
        start[run.s[j] - v0 + 1]++;
      }
    }
    int maxDegree = 0;
    for (int v = 0; v < v1 - v0; v++) {
      maxDegree = Math.max(maxDegree, start[v + 1]);
      start[v + 1] += start[v];
    }
    int[] next = Arrays.copyOf(start, v1 - v0);
    int[] t = new int[size];
    double[] w = weighted ? new double[size] : null;
    for (Run run : runs) {
      int[] s = run.s;
      int[] d = run.d;
      double[] rw = run.w;
      for (int j = run.start[r0], end = run.start[r1]; j < end; j++) {
        int at = next[s[j] - v0]++;
        t[at] = d[j];
        if (w != null) {
          w[at] = rw[j];
        }
      }
    }
    // In place: a vertex's kept edges never pass the edges still to be read.
    Seen seen = maxDegree > SMALL_DEGREE ? new Seen(maxDegree) : null;
    int out = 0;
    for (int v = v0; v < v1; v++) {
      int b = start[v - v0];
      int e = start[v - v0 + 1];
      offsets[v] = out;
      out = e - b > SMALL_DEGREE
          ? seen.compact(v, t, w, b, e, t, w, out) : compact(t, w, b, e, t, w, out);
    }
    groupTargets[g] = t;
    groupWeights[g] = w;
    return out;
  }

  /**
   * Copies a vertex's edges {@code [b, e)} of {@code t} and {@code w} to {@code targets} and
   * {@code weights} from {@code out} on, dropping the duplicates by comparing each with the
   * edges kept so far (a small out-degree); returns the end of the kept ones.
   */
  private static int compact(int[] t, double[] w, int b, int e, int[] targets, double[] weights,
      int out) {
    int first = out;
    for (int j = b; j < e; j++) {
      int x = t[j];
      int q = first;
      while (q < out && targets[q] != x) {
        q++;
      }
      if (q < out) {
        if (w != null && w[j] < weights[q]) {
          weights[q] = w[j];
        }
      } else {
        targets[out] = x;
        if (w != null) {
          weights[out] = w[j];
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
    int compact(int v, int[] t, double[] w, int b, int e, int[] targets, double[] weights,
        int out) {
      int bits = bits(Math.min(e - b, owner.length / 2));
      int mask = (1 << bits) - 1;
      for (int j = b; j < e; j++) {
        int x = t[j];
        int h = (x * 0x9E3779B9) >>> (32 - bits);
        while (owner[h] == v && key[h] != x) {
          h = (h + 1) & mask;
        }
        if (owner[h] == v) {
          int q = slot[h];
          if (w != null && w[j] < weights[q]) {
            weights[q] = w[j];
          }
        } else {
          owner[h] = v;
          key[h] = x;
          slot[h] = out;
          targets[out] = x;
          if (w != null) {
            weights[out] = w[j];
          }
          out++;
        }
      }
      return out;
    }
  }
}
