package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Planning, second part: where the edges go. A vertex cut replicates every vertex that edges of
 * several subgraphs touch, and each replica costs boundary messages and supersteps; where the
 * edges are read says nothing about which are near each other (a shuffled grid read into two
 * partitions replicates almost every vertex, and shortest paths then cross between the
 * subgraphs at every step: over 1,000 supersteps on a 1,024 x 1,024 grid). Vertex ids often
 * carry the locality the input order lacks (row-major grid cells, road junctions numbered by
 * region, ids from a locality-preserving order), so the edges can instead go to the owner of
 * their source by ranges of ids, balanced by edge count: then only vertices at the ranges'
 * borders are replicated, whatever order the input came in.
 *
 * <p>A sample of each input partition's edges decides ({@code spark.gstm.graph.partitioning}):
 * "input" keeps the edges where they are read (no shuffle of edges); "range" places them by
 * ranges; "auto" places them by ranges when the sample shows that ids carry locality (at most
 * {@value #MAX_CROSSING} of the sampled edges would join two ranges) and the input partitions
 * are not already such ranges, else keeps them. On R-MAT's scrambled ids about half the edges
 * cross any split, so the benchmark keeps its input partitions and pays no shuffle.
 */
final class EdgePlacement {
  /** Edges sampled per input partition. */
  static final int SAMPLE = 4096;
  /** Largest fraction of sampled edges joining two ranges for which "auto" places by range. */
  static final double MAX_CROSSING = 0.2;
  /** Fraction of an input partition's sample in one range from which it counts as that range. */
  static final double ALREADY_LOCAL = 0.9;

  private EdgePlacement() {}

  /** Every {@code stride}-th edge of one input partition, and how many edges it has. */
  @DefaultSerializer(JavaSerializer.class)
  record Sample(long edges, int[] src, int[] dst) implements Serializable {}

  /**
   * What the planner decided.
   *
   * @param byRange whether the edges move to the owners of their sources
   * @param placement the owner of each vertex (ranges, or id mod P when the edges stay)
   * @param crossing the sampled fraction of edges that join two ranges (NaN when not sampled)
   * @param why a short reason, for the log
   */
  record Decision(boolean byRange, VertexPlacement placement, double crossing, String why) {}

  /** The sample of one input partition's edges. */
  static Sample sample(EdgeChunk c) {
    int m = c.size();
    int stride = Math.max(1, m / SAMPLE);
    int n = (m + stride - 1) / stride;
    int[] src = new int[n];
    int[] dst = new int[n];
    for (int i = 0; i < n; i++) {
      src[i] = c.src[i * stride];
      dst[i] = c.dst[i * stride];
    }
    return new Sample(m, src, dst);
  }

  /** The edges stay where they are read; extra vertices go to {@code id mod partitions}. */
  static Decision input(int partitions, String why) {
    return new Decision(false, VertexPlacement.modulo(partitions), Double.NaN, why);
  }

  /**
   * Decides from the input partitions' samples ({@code samples.get(i)}: input partition
   * {@code i}) how to place the edges over {@code partitions} subgraphs; {@code mode} is "auto"
   * or "range" ("input" needs no sample).
   */
  static Decision decide(List<Sample> samples, int partitions, String mode) {
    long sampled = 0;
    for (Sample s : samples) {
      sampled += s.src().length;
    }
    if (partitions == 1 || sampled == 0) {
      return input(partitions, partitions == 1 ? "one subgraph" : "no edges");
    }
    VertexPlacement ranges = VertexPlacement.ranges(bounds(samples, partitions));
    double crossing = crossing(samples, ranges);
    String measured = String.format(Locale.ROOT, "%.1f%% of sampled edges join two id ranges",
        100 * crossing);
    if (mode.equals("range")) {
      return new Decision(true, ranges, crossing, "range requested; " + measured);
    }
    if (crossing > MAX_CROSSING) {
      return new Decision(false, VertexPlacement.modulo(partitions), crossing,
          measured + ": ids carry no locality, edges stay where they are read");
    }
    if (samples.size() == partitions && alreadyRanges(samples, ranges)) {
      return new Decision(false, VertexPlacement.modulo(partitions), crossing,
          measured + ", and the input partitions already are such ranges");
    }
    return new Decision(true, ranges, crossing, measured + ": edges placed by source id ranges");
  }

  /**
   * {@code partitions - 1} ascending ids that split the sampled sources into ranges of about
   * equal edge counts (each sample weighs the edges it stands for).
   */
  static int[] bounds(List<Sample> samples, int partitions) {
    int n = 0;
    double total = 0;
    for (Sample s : samples) {
      n += s.src().length;
      total += s.edges();
    }
    long[] keyed = new long[n];
    double[] weight = new double[samples.size()];
    int f = 0;
    for (int i = 0; i < samples.size(); i++) {
      Sample s = samples.get(i);
      weight[i] = s.src().length == 0 ? 0 : (double) s.edges() / s.src().length;
      for (int v : s.src()) {
        keyed[f++] = ((long) v << 20) | i; // ids below 2^31, input partitions below 2^20
      }
    }
    Arrays.sort(keyed);
    int[] bounds = new int[partitions - 1];
    double seen = 0;
    int q = 0;
    for (int k = 0; k < n && q < bounds.length; k++) {
      seen += weight[(int) (keyed[k] & ((1 << 20) - 1))];
      // Range q ends where its share of the edges is reached; the next id starts range q + 1.
      while (q < bounds.length && seen >= total * (q + 1) / partitions) {
        long next = k + 1 < n ? keyed[k + 1] >>> 20 : (keyed[k] >>> 20) + 1;
        bounds[q++] = (int) Math.min(Integer.MAX_VALUE, next);
      }
    }
    while (q < bounds.length) {
      bounds[q++] = Integer.MAX_VALUE;
    }
    return bounds;
  }

  /** The fraction of sampled edges (weighted) whose ends have different owners. */
  static double crossing(List<Sample> samples, VertexPlacement ranges) {
    double crossed = 0;
    double all = 0;
    for (Sample s : samples) {
      if (s.src().length == 0) {
        continue;
      }
      double w = (double) s.edges() / s.src().length;
      for (int i = 0; i < s.src().length; i++) {
        all += w;
        if (ranges.owner(s.src()[i]) != ranges.owner(s.dst()[i])) {
          crossed += w;
        }
      }
    }
    return all == 0 ? 0 : crossed / all;
  }

  /**
   * Whether each input partition's sources lie (almost all) in one range, a different range
   * for each: then moving the edges would gain nothing.
   */
  static boolean alreadyRanges(List<Sample> samples, VertexPlacement ranges) {
    Set<Integer> owners = new HashSet<>();
    for (Sample s : samples) {
      if (s.src().length == 0) {
        continue;
      }
      int[] counts = new int[ranges.partitions()];
      for (int v : s.src()) {
        counts[ranges.owner(v)]++;
      }
      int best = 0;
      for (int q = 1; q < counts.length; q++) {
        if (counts[q] > counts[best]) {
          best = q;
        }
      }
      if (counts[best] < ALREADY_LOCAL * s.src().length || !owners.add(best)) {
        return false;
      }
    }
    return true;
  }
}
