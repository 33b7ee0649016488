package io.gstm.spark.ml;

import java.io.Serializable;
import java.util.List;

/**
 * What a {@link TxKMeans} fit did.
 *
 * @param engines engines the tasks used, with why each was picked
 * @param fellBackToJvm true when some task fell back to the JVM engine for want of a GPU
 * @param points points clustered
 * @param iterations Lloyd iterations run
 * @param converged true when no centroid moved more than tol in the last iteration
 * @param trainingCost sum of squared distances of the points to their nearest centroid at the start
 *     of the last iteration (MLlib's {@code trainingCost} has the same meaning)
 * @param transactions update transactions run
 * @param commits committed transactions
 * @param aborts aborted attempts (conflicts on the accumulators; retried)
 * @param kernelNanos engine time of the update batches (GPU kernel time on a GPU), summed over
 *     tasks
 * @param wallNanos wall time of {@code fit}
 * @param pointSets point sets the iterations ran over (a task each per iteration; with one,
 *     every iteration ran inside one task)
 */
public record TxKMeansReport(List<String> engines, boolean fellBackToJvm, long points,
    int iterations, boolean converged, double trainingCost, long transactions, long commits,
    long aborts, long kernelNanos, long wallNanos, int pointSets) implements Serializable {

  @Override
  public String toString() {
    return String.format("TxKMeans: engine %s, %d points, %d iteration(s)%s, cost %.6g,"
            + " %d commits, %d aborts, kernel %.3f s, wall %.3f s, %d point set(s)",
        String.join(" + ", engines), points, iterations, converged ? " (converged)" : "",
        trainingCost, commits, aborts, kernelNanos / 1e9, wallNanos / 1e9, pointSets);
  }
}
