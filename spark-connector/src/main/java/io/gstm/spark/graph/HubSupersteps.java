package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.exec.HubJob;
import io.gstm.spark.exec.TaskHold;
import io.gstm.spark.exec.TaskHub;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.runtime.AbstractFunction1;

/**
 * Every superstep of a relaxation inside one Spark stage ({@code spark.gstm.graph.exchange=hub}):
 * a task per subgraph relaxes it, sends its boundary updates straight to the other subgraphs'
 * tasks ({@link BoundaryMesh}) and its counters to the driver's {@link TaskHub}, which tells every
 * task whether to go on (some subgraph sent updates, and the superstep bound is not reached);
 * each then takes the min of what it received and relaxes again. A Spark job per superstep (the
 * {@code jobs} exchange) cost a job, a local checkpoint of every subgraph's values and, past the
 * driver's limit, a shuffle, each superstep; here only the updates cross, once. The stage's
 * output is each subgraph's last values, locally checkpointed as the jobs' are, so the result
 * reads them the same way.
 */
final class HubSupersteps {
  private static final Logger LOG = LoggerFactory.getLogger(HubSupersteps.class);
  static final String OWNER = "GraphRelaxation";
  static final String WHAT = "subgraph";
  /** How long the driver waits for every subgraph's task to start. */
  static final long START_TIMEOUT_MILLIS = 5 * 60_000;

  private HubSupersteps() {}

  /** What the supersteps ended with: each subgraph's last output, and their counters. */
  record Outcome(RDD<StepOutput> last, StepStats total, int supersteps, boolean converged) {}

  /**
   * The hub's supersteps ended without a result because an executor, and its subgraph, was
   * lost: the caller starts over another way.
   */
  static final class SubgraphLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SubgraphLostException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Runs up to {@code maxSteps} supersteps over {@code graphs} (built and cached; one task slot
   * free per subgraph).
   *
   * @throws SubgraphLostException if a subgraph's task or its connection was lost
   * @throws IllegalArgumentException for bad input a task found
   */
  static Outcome run(SparkContext sc, JavaRDD<LocalGraph> graphs, Supersteps.StepContext step,
      long source, int maxSteps, long startTimeoutMillis) {
    int p = graphs.getNumPartitions();
    try (TaskHub hub = TaskHub.onDriver(sc, p, OWNER, WHAT)) {
      RDD<StepOutput> out = graphs.rdd().mapPartitions(new Task(step, source, hub.address()),
          true, Supersteps.STEP_OUTPUT);
      out.localCheckpoint();
      try (HubJob job = HubJob.start(sc, hub, "gstm-graph-" + Long.toHexString(step.run()),
          "GraphRelaxation: every superstep over " + p + " subgraphs",
          () -> sc.runJob(out, new Supersteps.Summary(0, false), Supersteps.STEP_OUTPUT))) {
        return supersteps(hub, job, out, p, maxSteps, startTimeoutMillis);
      }
    }
  }

  /** The driver's side of the supersteps, over the job's tasks. */
  private static Outcome supersteps(TaskHub hub, HubJob job, RDD<StepOutput> out, int p,
      int maxSteps, long startTimeoutMillis) {
    int talking = -1; // the subgraph the driver was reading from or writing to
    try {
      hub.awaitAll(job.future(), startTimeoutMillis, " (or set spark.gstm.graph.exchange=jobs)");
      hub.introduceMesh(); // where each subgraph's task listens for the others' updates
      StepStats total = new StepStats();
      int done = 0;
      boolean converged = false;
      while (!job.future().isDone()) {
        long t0 = System.nanoTime();
        StepStats st = new StepStats();
        for (int q = 0; q < p; q++) {
          talking = q;
          st = st.merge(((StepOutput) hub.read(q)).stats);
        }
        done++;
        total = total.merge(st);
        total.rounds += st.rounds;
        converged = st.messages == 0;
        boolean stop = converged || done == maxSteps;
        for (int q = 0; q < p; q++) {
          talking = q;
          hub.write(q, !stop);
        }
        talking = -1;
        LOG.debug("gstm relaxation: superstep {}: {} active vertices, {} messages (hub), {} "
                + "rounds, {} transactions, {} edges examined, relax {} ms (tasks; kernel {} "
                + "ms), {} ms", done - 1, st.activeVertices, st.messages, st.rounds,
            st.transactions, st.edgeRelaxations, st.relaxNanos / 1_000_000,
            st.kernelNanos / 1_000_000, (System.nanoTime() - t0) / 1_000_000);
        if (stop) {
          break;
        }
      }
      job.join();
      return new Outcome(out, total, done, converged);
    } catch (IOException | RuntimeException e) {
      // A subgraph's connection dropped (its executor died), or the job failed.
      Throwable failed = job.failed(e, hub);
      // A dropped connection names the subgraph; the job's failure is then its cancellation.
      Throwable why = e instanceof IOException || failed == null ? e : failed;
      String whose = e instanceof IOException && talking >= 0
          ? "subgraph " + talking + "'s task was lost" : "a subgraph's task was lost";
      throw new SubgraphLostException(whose + " ("
          + String.valueOf(why.getMessage()).lines().findFirst().orElse("") + ")", why);
    }
  }

  /**
   * A subgraph's task: superstep 0, then each later superstep with the updates the hub sends,
   * until it sends none (null); returns the last output. A named class, so that Spark's
   * closure cleaner does not analyse its bytecode.
   */
  @DefaultSerializer(JavaSerializer.class)
  static final class Task
      extends AbstractFunction1<scala.collection.Iterator<LocalGraph>,
          scala.collection.Iterator<StepOutput>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Supersteps.StepContext c;
    private final long source;
    private final TaskHub.Address hub;

    Task(Supersteps.StepContext c, long source, TaskHub.Address hub) {
      this.c = c;
      this.source = source;
      this.hub = hub;
    }

    @Override
    public scala.collection.Iterator<StepOutput> apply(scala.collection.Iterator<LocalGraph> gi) {
      LocalGraph g = gi.next();
      Replicas replicas = c.replicas().value();
      try (TaskHub.Link link = new TaskHub.Link(hub, g.partition, OWNER, WHAT);
          BoundaryMesh mesh = BoundaryMesh.open(link, hub.token(), g.partition, g.partitions)) {
        long t0 = System.nanoTime();
        StepOutput o = Supersteps.firstStep(c.run(), g, replicas, c.kind(), source,
            c.settings());
        for (int step = 0; ; step++) {
          long t1 = System.nanoTime();
          mesh.send(o); // the others' updates, before the counters: they decide on them
          link.write(o.summary(0, false));
          long t2 = System.nanoTime();
          boolean more = (Boolean) link.read();
          long t3 = System.nanoTime();
          List<StepOutput.Messages> in = more ? mesh.receive() : List.of();
          long t4 = System.nanoTime();
          if (LOG.isDebugEnabled()) {
            LOG.debug("gstm relaxation: subgraph {} superstep {}: step {} ms (relax {} ms), "
                    + "{} updates sent in {} ms, the others waited {} ms, {} received in {} ms",
                g.partition, step, (t1 - t0) / 1_000_000, o.stats.relaxNanos / 1_000_000,
                o.stats.messages, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000,
                in.stream().mapToLong(m -> m.ids() == null ? 0 : m.ids().length).sum(),
                (t4 - t3) / 1_000_000);
          }
          if (!more) {
            break;
          }
          // Where the cluster suite kills an executor in the middle of the supersteps.
          TaskHold.at("graph.hubStep", g.partition);
          t0 = System.nanoTime();
          o = Supersteps.nextStep(c.run(), g, replicas, new Supersteps.StepInput(o, in),
              c.kind(), c.settings(), true);
        }
        return scala.collection.Iterator$.MODULE$.single(o);
      } catch (IOException e) {
        throw new UncheckedIOException(OWNER + ": subgraph " + g.partition + " lost the "
            + "driver's hub or another subgraph: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(OWNER + ": subgraph " + g.partition + "'s task was "
            + "interrupted", e);
      }
    }
  }
}
