package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.batch.WithTxCounts;
import io.gstm.spark.exec.WithEngines;
import io.gstm.core.graph.RelaxationKind;
import java.io.Serializable;
import java.util.List;

/**
 * What a {@link GraphRelaxation} run did, built by the connector and read by name: the values every
 * caller reads have accessors of their own ({@link #supersteps()}, {@link #converged()},
 * {@link #engines()}, {@link #commits()}, ...), the rest sit in small groups
 * ({@code placement().replicas()}, {@code progress().boundaryMessages()},
 * {@code timings().wallNanos()}).
 *
 * @param kind shortest paths or connected components
 * @param vertices vertices in the result
 * @param edges edges relaxed over, summed over the subgraphs (after dropping self-loops and, within
 *     a subgraph, duplicates; both directions for components)
 * @param placement where the graph went and which engines relaxed it
 * @param progress supersteps, convergence and the work they did
 * @param tx relaxation transactions run, committed, aborted (conflicts; retried)
 * @param timings where the time went
 */
@DefaultSerializer(JavaSerializer.class)
public record RelaxationReport(RelaxationKind kind, long vertices, long edges, Placement placement,
    Progress progress, TxCounts tx, Timings timings) implements Serializable, WithTxCounts,
    WithEngines {

  /**
   * Where the graph went and which engines relaxed it.
   *
   * @param engines the engines the tasks used, e.g. "jvm (no usable GPU 0 ..., fell back to the
   *     JVM engine)" or "cuda (GPU 0 from TaskContext resources)"
   * @param fellBackToJvm true when some task fell back to the JVM engine for want of a GPU
   * @param partitions subgraphs (parts of the vertex cut)
   * @param partitioning where the edges went: "input" (the partitions they were read in) or
   *     "range" (the owners of their sources by ranges of ids; {@code setPartitioning})
   * @param replicas vertex copies beyond one per vertex: a vertex held by {@code k} subgraphs
   *     counts {@code k - 1} (0 with one subgraph)
   * @param subgraphs how the subgraph count was chosen ({@code setSubgraphs}): "partitions" or
   *     "engines", and why
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Placement(List<String> engines, boolean fellBackToJvm, int partitions,
      String partitioning, long replicas, String subgraphs)
      implements Serializable, WithEngines.Placement {
    public Placement {
      engines = List.copyOf(engines);
    }
  }

  /**
   * The supersteps and the work they did.
   *
   * @param supersteps supersteps run (local fixpoint, then boundary exchange)
   * @param converged false when the superstep bound stopped the run first
   * @param boundaryMessages boundary updates (improved values of vertices that other subgraphs
   *     also hold) sent between supersteps, in all
   * @param edgeRelaxations edge relaxations performed
   * @param exchange how the supersteps traded boundary updates: "none" (one subgraph), "hub"
   *     (every superstep in one stage, through the driver's hub) or "jobs" (a Spark job per
   *     superstep; {@code spark.gstm.graph.exchange})
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Progress(int supersteps, boolean converged, long boundaryMessages,
      long edgeRelaxations, String exchange) implements Serializable {}

  /**
   * Where the time went, in nanoseconds.
   *
   * @param planNanos wall time from validation until the subgraphs were built and cached (reading
   *     and placing the edges, building the subgraphs); a single subgraph is built by the first
   *     superstep's job instead, so its build counts there
   * @param superstepNanos wall time of the supersteps (the relaxation's jobs)
   * @param relaxNanos task time in local relaxation (upload, kernels, download), summed over tasks
   * @param kernelNanos engine time in the relaxation batches (GPU kernel time on a GPU), summed
   *     over tasks
   * @param wallNanos wall time of {@code run()}, from validation to the cached result
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Timings(long planNanos, long superstepNanos, long relaxNanos, long kernelNanos,
      long wallNanos) implements Serializable {}

  /** Subgraphs (parts of the vertex cut). */
  public int partitions() {
    return placement.partitions();
  }

  /** Supersteps run. */
  public int supersteps() {
    return progress.supersteps();
  }

  /** False when the superstep bound stopped the run first. */
  public boolean converged() {
    return progress.converged();
  }

  @Override
  public String toString() {
    return String.format("%s: engine %s, %d partition(s) (%s, %d replicas), %d vertices, %d edges, "
            + "%d superstep(s)%s (exchange: %s),"
            + " %d boundary message(s), %d commits, %d aborts, %d edge relaxations,"
            + " kernel %.3f s, relax %.3f s, wall %.3f s (plan %.3f s, supersteps %.3f s);"
            + " subgraphs: %s",
        kind, String.join(" + ", engines()), partitions(), placement.partitioning(),
        placement.replicas(), vertices, edges, supersteps(),
        converged() ? "" : " (NOT converged: superstep bound)", progress.exchange(),
        progress.boundaryMessages(),
        commits(), aborts(), progress.edgeRelaxations(), timings.kernelNanos() / 1e9,
        timings.relaxNanos() / 1e9, timings.wallNanos() / 1e9, timings.planNanos() / 1e9,
        timings.superstepNanos() / 1e9, placement.subgraphs());
  }
}
