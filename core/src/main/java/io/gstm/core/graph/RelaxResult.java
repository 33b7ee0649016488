package io.gstm.core.graph;

/**
 * The local fixpoint a {@link GraphRelaxer#relax} call reached.
 *
 * @param values the relaxed value of every vertex (a new array)
 * @param changedVertices ids of the vertices whose value is lower than in the input, ascending
 *     (the Spark connector ships the boundary ones to other partitions)
 * @param stats counters and timings
 */
public record RelaxResult(double[] values, int[] changedVertices, RelaxStats stats) {}
