package io.gstm.core.graph;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import java.util.Objects;

/**
 * How a {@link GraphRelaxer} runs. Immutable; {@code withX} returns a new object.
 *
 * @param threadsPerBlock GPU threads per block (JVM engine: logical threads per block),
 *     1..{@value TxBatch#MAX_THREADS_PER_BLOCK}
 * @param lockCoverage vertex values per lock, at least 1
 * @param maxRounds frontier rounds allowed before {@link GraphRelaxer#relax} gives up with an
 *     IllegalStateException, at least 1 (relaxations always converge; this bounds a bug)
 * @param run retry limits and history mode of the underlying batches
 * @param bucketEdges the width of the GPU's near-far (delta-stepping) buckets for shortest paths,
 *     in mean edge weights, positive: narrower buckets relax less work over more rounds
 *     (components always take one bucket; the JVM engine relaxes in priority order)
 * @param symmetric the caller's promise that every edge's reverse is in the graph (an undirected
 *     graph, as components relax): the GPU then finds components from every vertex by
 *     union-find (each vertex gets its component's lowest value, one transaction per vertex
 *     lowered; with {@code -Dgstm.graph.components=rounds}, a first round that pulls: each
 *     vertex takes its neighbours' lowest label in one transaction) instead of pushing along
 *     every edge. Same fixpoint; on a graph that is not symmetric the result would be wrong, so
 *     the default is false
 */
public record RelaxOptions(int threadsPerBlock, int lockCoverage, int maxRounds, RunOptions run,
    double bucketEdges, boolean symmetric) {
  /**
   * Default {@link #threadsPerBlock()}: small blocks abort less in the graph kernel (on an H100,
   * shortest paths on an R-MAT graph of 2^22 edges: 0.77 G relaxed edges/s at 256, 0.97 G at 64).
   */
  public static final int DEFAULT_THREADS_PER_BLOCK = 64;
  /** Default {@link #maxRounds()}. */
  public static final int DEFAULT_MAX_ROUNDS = 1_000_000;
  /**
   * Default {@link #bucketEdges()}. A model of the rounds on a 1,024 x 1,024 grid with weights
   * 1..100 relaxes each edge 1.35, 1.50 and 1.83 times at 4, 8 and 16 mean weights (3,215, 2,746
   * and 2,505 rounds); with the device's loop following hops within a round, the wider buckets
   * win on the H200: with 6 hops, 32 mean weights took the grid to 25.0-25.2 ms of kernel
   * against 26.1-26.2 at 16 (27.1-27.2 with 4 hops at 16, the default before), and the road-like
   * grid of 2^24 cells to 113.4-113.5 ms against 114.6 (117.1-117.2), relaxing more edges in
   * fewer rounds (docs/benchmark-log.md, 2026-12-01); R-MAT's short paths fit in one or two
   * buckets at any width (8.07 ms either way).
   */
  public static final double DEFAULT_BUCKET_EDGES = 32;

  public RelaxOptions {
    TxBatch.checkThreads(threadsPerBlock, 1);
    if (lockCoverage < 1) {
      throw new IllegalArgumentException(
          "lockCoverage must be at least 1 vertex per lock, got " + lockCoverage);
    }
    if (maxRounds < 1) {
      throw new IllegalArgumentException("maxRounds must be at least 1, got " + maxRounds);
    }
    Objects.requireNonNull(run, "run");
    if (!(bucketEdges > 0) || Double.isInfinite(bucketEdges)) {
      throw new IllegalArgumentException(
          "bucketEdges must be a positive number of mean edge weights, got " + bucketEdges);
    }
  }

  /** Options with the default {@link #bucketEdges()}, not {@link #symmetric()}. */
  public RelaxOptions(int threadsPerBlock, int lockCoverage, int maxRounds, RunOptions run) {
    this(threadsPerBlock, lockCoverage, maxRounds, run, DEFAULT_BUCKET_EDGES, false);
  }

  /**
   * {@value #DEFAULT_THREADS_PER_BLOCK} threads per block, one lock per vertex, 10^6 rounds,
   * default run options, buckets of {@value #DEFAULT_BUCKET_EDGES} mean edge weights.
   */
  public static RelaxOptions defaults() {
    return new RelaxOptions(DEFAULT_THREADS_PER_BLOCK, 1, DEFAULT_MAX_ROUNDS,
        RunOptions.defaults());
  }

  public RelaxOptions withThreadsPerBlock(int value) {
    return new RelaxOptions(value, lockCoverage, maxRounds, run, bucketEdges, symmetric);
  }

  public RelaxOptions withLockCoverage(int value) {
    return new RelaxOptions(threadsPerBlock, value, maxRounds, run, bucketEdges, symmetric);
  }

  public RelaxOptions withMaxRounds(int value) {
    return new RelaxOptions(threadsPerBlock, lockCoverage, value, run, bucketEdges, symmetric);
  }

  public RelaxOptions withRun(RunOptions value) {
    return new RelaxOptions(threadsPerBlock, lockCoverage, maxRounds, value, bucketEdges, symmetric);
  }

  public RelaxOptions withBucketEdges(double value) {
    return new RelaxOptions(threadsPerBlock, lockCoverage, maxRounds, run, value, symmetric);
  }

  public RelaxOptions withSymmetric(boolean value) {
    return new RelaxOptions(threadsPerBlock, lockCoverage, maxRounds, run, bucketEdges, value);
  }
}
