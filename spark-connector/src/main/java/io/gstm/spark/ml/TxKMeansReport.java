package io.gstm.spark.ml;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.batch.WithTxCounts;
import io.gstm.spark.exec.WithEngines;
import java.io.Serializable;
import java.util.List;

/**
 * What a {@link TxKMeans} fit did, built by the connector and read by name: the fit's own values
 * and the ones every caller reads have accessors ({@link #iterations()}, {@link #trainingCost()},
 * {@link #engines()}, {@link #commits()}, ...), the rest sit in small groups
 * ({@code timings().wallNanos()}).
 *
 * @param placement where the fit ran: engines and point sets
 * @param points points clustered
 * @param iterations Lloyd iterations run
 * @param converged true when no centroid moved more than tol in the last iteration
 * @param trainingCost sum of squared distances of the points to their nearest centroid at the start
 *     of the last iteration (MLlib's {@code trainingCost} has the same meaning)
 * @param tx update transactions run, committed, aborted (conflicts on the accumulators; retried)
 * @param timings where the time went
 */
@DefaultSerializer(JavaSerializer.class)
public record TxKMeansReport(Placement placement, long points, int iterations, boolean converged,
    double trainingCost, TxCounts tx, Timings timings) implements Serializable, WithTxCounts,
    WithEngines {

  /**
   * Where the fit ran.
   *
   * @param engines engines the tasks used, with why each was picked
   * @param fellBackToJvm true when some task fell back to the JVM engine for want of a GPU
   * @param pointSets point sets the iterations ran over (a task each per iteration; with one,
   *     every iteration ran inside one task)
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Placement(List<String> engines, boolean fellBackToJvm, int pointSets)
      implements Serializable, WithEngines.Placement {
    public Placement {
      engines = List.copyOf(engines);
    }
  }

  /**
   * Where the time went, in nanoseconds.
   *
   * @param kernelNanos engine time of the update batches (GPU kernel time on a GPU), summed over
   *     tasks
   * @param prepareNanos wall time of reading and checking the points and choosing the initial
   *     centroids
   * @param iterateNanos wall time of the iterations, with the first one's merging of the point
   *     sets and their copy to the engines
   * @param wallNanos wall time of {@code fit}
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Timings(long kernelNanos, long prepareNanos, long iterateNanos, long wallNanos)
      implements Serializable {}

  /** Point sets the iterations ran over. */
  public int pointSets() {
    return placement.pointSets();
  }

  @Override
  public String toString() {
    return String.format("TxKMeans: engine %s, %d points, %d iteration(s)%s, cost %.6g,"
            + " %d commits, %d aborts, kernel %.3f s, wall %.3f s (prepare %.3f s, iterations"
            + " %.3f s), %d point set(s)",
        String.join(" + ", engines()), points, iterations, converged ? " (converged)" : "",
        trainingCost, commits(), aborts(), timings.kernelNanos() / 1e9, timings.wallNanos() / 1e9,
        timings.prepareNanos() / 1e9, timings.iterateNanos() / 1e9, pointSets());
  }
}
