package io.gstm.spark.graph;

import io.gstm.core.graph.RelaxationKind;
import java.io.Serializable;
import java.util.List;

/**
 * What a {@link GraphRelaxation} run did.
 *
 * @param kind shortest paths or connected components
 * @param engines the engines the tasks used, e.g. "jvm (no usable GPU 0 ..., fell back to the JVM
 *     engine)" or "cuda (GPU 0 from TaskContext resources)"
 * @param fellBackToJvm true when some task fell back to the JVM engine for want of a GPU
 * @param partitions subgraphs (parts of the vertex cut)
 * @param vertices vertices in the result
 * @param edges edges relaxed over, summed over the subgraphs (after dropping self-loops and, within
 *     a subgraph, duplicates; both directions for components)
 * @param supersteps supersteps run (local fixpoint, then boundary exchange)
 * @param converged false when the superstep bound stopped the run first
 * @param boundaryMessages boundary updates (improved values of vertices that other subgraphs also
 *     hold) sent over the shuffle, in all
 * @param transactions relaxation transactions run
 * @param commits committed transactions
 * @param aborts aborted attempts (conflicts; retried)
 * @param edgeRelaxations edge relaxations performed
 * @param kernelNanos engine time in the relaxation batches (GPU kernel time on a GPU), summed over
 *     tasks
 * @param relaxNanos task time in local relaxation (upload, kernels, download), summed over tasks
 * @param wallNanos wall time of {@code run()}, from validation to the cached result
 * @param partitioning where the edges went: "input" (the partitions they were read in) or
 *     "range" (the owners of their sources by ranges of ids; {@code setPartitioning})
 * @param replicas vertex copies beyond one per vertex: a vertex held by {@code k} subgraphs
 *     counts {@code k - 1} (0 with one subgraph)
 * @param subgraphs how the subgraph count was chosen ({@code setSubgraphs}): "partitions" or
 *     "engines", and why
 * @param planNanos wall time from validation until the subgraphs were built and cached (reading
 *     and placing the edges, building the subgraphs)
 * @param superstepNanos wall time of the supersteps (the relaxation's jobs)
 */
public record RelaxationReport(RelaxationKind kind, List<String> engines, boolean fellBackToJvm,
    int partitions, long vertices, long edges, int supersteps, boolean converged,
    long boundaryMessages, long transactions, long commits, long aborts, long edgeRelaxations,
    long kernelNanos, long relaxNanos, long wallNanos, String partitioning, long replicas,
    String subgraphs, long planNanos, long superstepNanos)
    implements Serializable {

  @Override
  public String toString() {
    return String.format("%s: engine %s, %d partition(s) (%s, %d replicas), %d vertices, %d edges, "
            + "%d superstep(s)%s,"
            + " %d boundary message(s), %d commits, %d aborts, %d edge relaxations,"
            + " kernel %.3f s, relax %.3f s, wall %.3f s (plan %.3f s, supersteps %.3f s);"
            + " subgraphs: %s",
        kind, String.join(" + ", engines), partitions, partitioning, replicas, vertices, edges,
        supersteps,
        converged ? "" : " (NOT converged: superstep bound)", boundaryMessages, commits, aborts,
        edgeRelaxations, kernelNanos / 1e9, relaxNanos / 1e9, wallNanos / 1e9, planNanos / 1e9,
        superstepNanos / 1e9, subgraphs);
  }
}
