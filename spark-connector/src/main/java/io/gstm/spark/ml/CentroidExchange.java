package io.gstm.spark.ml;

import io.gstm.spark.exec.TaskHub;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.Future;
import org.apache.spark.SparkContext;

/**
 * Every iteration of a fit over several point sets inside one Spark stage: the point sets'
 * tasks stay running and trade each iteration's partials for the next centroids with the driver
 * over a {@link TaskHub} ({@link Hub}), instead of one Spark job per iteration. Only the k
 * partial sums and counts cross, a few KB an iteration.
 */
final class CentroidExchange {
  private CentroidExchange() {}

  private static final String OWNER = "TxKMeans";
  private static final String WHAT = "point set";

  /** The driver's end: takes one connection per point set, merges partials, hands out centroids. */
  static final class Hub implements Closeable {
    private final TaskHub hub;

    /** A hub for {@code sets} point-set tasks, listening on {@code host}. */
    Hub(String host, int sets) {
      hub = new TaskHub(host, host, sets, OWNER, WHAT);
    }

    /** A hub for {@code sets} point-set tasks on the driver of {@code sc}. */
    Hub(SparkContext sc, int sets) {
      hub = TaskHub.onDriver(sc, sets, OWNER, WHAT);
    }

    TaskHub.Address address() {
      return hub.address();
    }

    /** See {@link TaskHub#awaitAll}. */
    void awaitAll(Future<?> job, long timeoutMillis) throws IOException {
      hub.awaitAll(job, timeoutMillis, " (or use setPointSets(\"partitions\"))");
    }

    /** Every set's partial of this iteration, merged in set order. */
    TxKMeans.Partial gather() throws IOException {
      TxKMeans.Partial total = null;
      for (int s = 0; s < hub.tasks(); s++) {
        TxKMeans.Partial partial = (TxKMeans.Partial) hub.read(s);
        total = total == null ? partial : TxKMeans.Partial.merge(total, partial);
      }
      return total;
    }

    /** Sends the next iteration's centroids, or null: stop. */
    void scatter(double[] centroids) throws IOException {
      for (int s = 0; s < hub.tasks(); s++) {
        hub.write(s, centroids);
      }
    }

    @Override
    public void close() {
      hub.close();
    }
  }

  /** A task's end: sends its partials, receives centroids. */
  static final class Link implements Closeable {
    private final TaskHub.Link link;

    /** Connects point set {@code set}'s task to the hub at {@code to}. */
    Link(TaskHub.Address to, int set) {
      link = new TaskHub.Link(to, set, OWNER, WHAT);
    }

    /** Sends this iteration's partial; the next centroids, or null when the fit is done. */
    double[] exchange(TxKMeans.Partial partial) throws IOException {
      link.write(partial);
      return (double[]) link.read();
    }

    @Override
    public void close() {
      link.close();
    }
  }
}
