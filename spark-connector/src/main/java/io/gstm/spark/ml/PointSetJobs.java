package io.gstm.spark.ml;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.HubJob;
import io.gstm.spark.exec.PinnedRDD;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskHub;
import io.gstm.spark.exec.ThisExecutor;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * The Spark side of a fit whose points stay on the executors that read them ({@link
 * ResidentPoints}): a point set per engine, each a task pinned to its executor that copies the
 * blocks left there to its engine once, each to its place, and runs every iteration. With one set the
 * task iterates alone; with several, all of them stay in one stage and trade partials for
 * centroids with the driver ({@link CentroidExchange}), so an iteration costs a GPU update and a
 * round trip, not a Spark job.
 */
final class PointSetJobs {
  private static final Logger LOG = LoggerFactory.getLogger(PointSetJobs.class);
  /** How long the point sets' tasks may take to start together. */
  static final long START_TIMEOUT_MILLIS = 300_000;

  private PointSetJobs() {}

  /**
   * One point set: blocks {@code set}, {@code set + sets}, ... of {@code partitions} (the input
   * partitions whose blocks executor {@code executor} holds), as set {@code index} of the fit.
   */
  @DefaultSerializer(JavaSerializer.class)
  record SetSpec(int index, String executor, String host, int[] partitions, int set, int sets)
      implements Serializable {}

  /**
   * The point sets of {@code placed}: per executor holding points, as many as the engines
   * allow ({@code engines} over the executors, at least one), at most one per block.
   */
  static List<SetSpec> sets(List<TxKMeans.Placed> placed, int engines) {
    TreeMap<String, List<TxKMeans.Placed>> byExecutor = new TreeMap<>();
    for (TxKMeans.Placed p : placed) {
      if (p.n() > 0) {
        byExecutor.computeIfAbsent(p.executor(), e -> new ArrayList<>()).add(p);
      }
    }
    int each = Math.max(1, engines / Math.max(1, byExecutor.size()));
    List<SetSpec> specs = new ArrayList<>();
    for (Map.Entry<String, List<TxKMeans.Placed>> e : byExecutor.entrySet()) {
      List<TxKMeans.Placed> blocks = e.getValue();
      int[] partitions = blocks.stream().mapToInt(TxKMeans.Placed::partition).sorted().toArray();
      int sets = Math.min(each, partitions.length);
      for (int s = 0; s < sets; s++) {
        specs.add(new SetSpec(specs.size(), e.getKey(), blocks.get(0).host(), partitions, s,
            sets));
      }
    }
    return specs;
  }

  /** Every iteration over the point sets of {@code placed}, from {@code initial}. */
  static TxKMeans.Progress iterate(SparkContext sc, List<TxKMeans.Placed> placed, long run,
      double[][] initial, int dims, GstmSettings settings, int maxIter, double tolSq,
      int engines, long startTimeoutMillis) {
    List<SetSpec> specs = sets(placed, engines);
    TxKMeans.Progress f = new TxKMeans.Progress(TxKMeans.flatten(initial, dims));
    f.sets = specs.size();
    if (maxIter == 0) {
      return f;
    }
    JavaRDD<SetSpec> rdd = pinned(sc, specs);
    TxKMeans.Loop loop = new TxKMeans.Loop(run, f.centroids, initial.length, dims, settings,
        maxIter, tolSq);
    if (specs.size() == 1) {
      TxKMeans.Progress done = ((TxKMeans.Progress[]) sc.runJob(rdd.rdd(),
          new SetTask(loop, null),
          ClassTag$.MODULE$.apply(TxKMeans.Progress.class)))[0];
      done.sets = 1;
      return done;
    }
    ClassTag<TxKMeans.Progress> tag = ClassTag$.MODULE$.apply(TxKMeans.Progress.class);
    try (CentroidExchange.Hub hub = new CentroidExchange.Hub(sc, specs.size());
        HubJob job = HubJob.start(sc, hub, "gstm-kmeans-" + Long.toHexString(run),
            "TxKMeans: every iteration over " + specs.size() + " point sets",
            () -> sc.runJob(rdd.rdd(), new SetTask(loop, hub.address()), tag))) {
      try {
        hub.awaitAll(job.future(), startTimeoutMillis);
        while (!job.future().isDone() && f.iterations < maxIter && !f.converged) {
          long t0 = System.nanoTime();
          f.advance(hub.gather(), tolSq);
          hub.scatter(f.iterations < maxIter && !f.converged ? f.centroids : null);
          LOG.debug("TxKMeans: iteration {} over {} point sets in {} ms", f.iterations - 1,
              specs.size(), (System.nanoTime() - t0) / 1_000_000);
        }
        Object[] ends = (Object[]) job.join();
        f.dropped = java.util.Arrays.stream(ends)
            .allMatch(d -> ((TxKMeans.Progress) d).dropped);
      } catch (IOException | RuntimeException e) {
        // A set's connection dropped (its executor died), or the job failed. The points of
        // the lost set's executor are gone with it: the fit starts over.
        Throwable failed = job.failed(e, hub);
        Throwable why = failed != null ? failed : e;
        throw new ResidentPoints.PointsLostException("a point set's task was lost ("
            + String.valueOf(why.getMessage()).lines().findFirst().orElse("") + ")", why);
      }
    }
    return f;
  }

  /**
   * Drops fit {@code run}'s points and engine state on the executors of {@code placed}
   * (best effort: an executor lost took its own with it).
   */
  static void release(JavaSparkContext jsc, long run, List<TxKMeans.Placed> placed) {
    ResidentCache.release(run);
    ResidentPoints.release(run);
    if (jsc.sc().isLocal() || placed.isEmpty()) {
      return;
    }
    TreeMap<String, TxKMeans.Placed> executors = new TreeMap<>();
    placed.forEach(p -> executors.putIfAbsent(p.executor(), p));
    List<SetSpec> each = new ArrayList<>();
    executors.values().forEach(p -> each.add(new SetSpec(each.size(), p.executor(), p.host(),
        new int[0], 0, 1)));
    try {
      pinned(jsc.sc(), each).foreach(s -> {
        ResidentCache.release(run);
        ResidentPoints.release(run);
      });
    } catch (RuntimeException e) {
      LOG.debug("TxKMeans: releasing the points of a fit", e);
    }
  }

  /** A partition per set, pinned to its executor (no preference in local mode). */
  private static JavaRDD<SetSpec> pinned(SparkContext sc, List<SetSpec> specs) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
    RDD<SetSpec> parent = jsc.parallelize(specs, specs.size()).rdd();
    int[] index = new int[specs.size()];
    String[] at = sc.isLocal() ? null : new String[specs.size()];
    for (int i = 0; i < index.length; i++) {
      index[i] = i;
      if (at != null) {
        at[i] = PinnedRDD.location(specs.get(i).host(), specs.get(i).executor());
      }
    }
    ClassTag<SetSpec> tag = ClassTag$.MODULE$.apply(SetSpec.class);
    return new JavaRDD<>(new PinnedRDD<>(parent, index, at, tag), tag);
  }

  /**
   * A point set's task: its blocks, then every iteration, alone or through the hub. A
   * named class, so that Spark's closure cleaner does not analyse its bytecode.
   */
  @DefaultSerializer(JavaSerializer.class)
  static final class SetTask
      extends AbstractFunction2<TaskContext, Iterator<SetSpec>, TxKMeans.Progress>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final TxKMeans.Loop loop;
    private final TaskHub.Address hub;

    /** With {@code hub} null the set iterates alone. */
    SetTask(TxKMeans.Loop loop, TaskHub.Address hub) {
      this.loop = loop;
      this.hub = hub;
    }

    @Override
    public TxKMeans.Progress apply(TaskContext task, Iterator<SetSpec> specs) {
      SetSpec spec = specs.next();
      if (!spec.executor().equals(ThisExecutor.id())) {
        throw new ResidentPoints.PointsLostException("point set " + spec.index() + " was "
            + "pinned to executor " + spec.executor() + " but runs on " + ThisExecutor.id());
      }
      List<TxKMeans.Block> b = ResidentPoints.take(loop.run(), spec.partitions(), spec.set(),
          spec.sets());
      LOG.debug("TxKMeans: point set {}: {} points in {} blocks", spec.index(),
          TxKMeans.Block.points(b), b.size());
      TxKMeans.Progress done;
      if (hub == null) {
        done = loop.runHere(spec.index(), b);
      } else {
        try (CentroidExchange.Link link = new CentroidExchange.Link(hub, spec.index())) {
          double[] c = loop.centroids();
          while (c != null) {
            c = link.exchange(loop.update(spec.index(), b, c));
          }
        } catch (IOException e) {
          throw new UncheckedIOException("TxKMeans: point set " + spec.index() + " lost the "
              + "driver's hub: " + e.getMessage(), e);
        }
        done = new TxKMeans.Progress(loop.centroids()); // the driver has every partial
      }
      if (spec.sets() == 1) {
        // The executor's only set of the fit: its points and engine state go now, which saves
        // the driver a job to drop them (0.4 s on two executors).
        ResidentCache.release(loop.run());
        ResidentPoints.release(loop.run());
        done.dropped = true;
      }
      return done;
    }
  }
}
