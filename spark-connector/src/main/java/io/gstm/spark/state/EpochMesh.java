package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorCoalescer;
import io.gstm.spark.exec.ExecutorSpread;
import io.gstm.spark.exec.HubJob;
import io.gstm.spark.exec.ParallelFrames;
import io.gstm.spark.exec.PinnedRDD;
import io.gstm.spark.exec.PlainRdds;
import io.gstm.spark.exec.TaskHub;
import io.gstm.spark.exec.TaskMesh;
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
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import scala.Tuple2;
import scala.runtime.AbstractFunction1;

/**
 * An epoch of a state of several partitions in one Spark stage ({@code
 * spark.gstm.state.exchange=mesh}): the input is routed into the cache where it is read (one job
 * on every core), then a task per partition, where the partition lives, reads the routed chunks
 * cached on its executor, trades them with the other partitions' tasks over a {@link TaskMesh}
 * (no shuffle), runs the partition's own transactions and then the cross-partition ones: the
 * epoch's coordinator runs them as one batch over the rows it gathers from their owners ({@link
 * CrossBatch}). The {@code jobs} exchange instead runs four jobs and the cross-partition
 * transactions in one task of their own. The driver's {@link TaskHub} only introduces the tasks
 * and hears each one finish; the stage's output (outcomes and counters) is locally checkpointed,
 * and the driver collects the counters.
 */
final class EpochMesh {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EpochMesh.class);
  static final String OWNER = "TxState";
  static final String WHAT = "partition";
  /** How long the driver waits for every partition's task to start. */
  static final long START_TIMEOUT_MILLIS = 5 * 60_000;

  /** Epochs run in one stage, and the cross-partition batches of the last one (for tests). */
  static final java.util.concurrent.atomic.AtomicLong EPOCHS =
      new java.util.concurrent.atomic.AtomicLong();
  static final java.util.concurrent.atomic.AtomicLong LAST_CROSS_BATCHES =
      new java.util.concurrent.atomic.AtomicLong();

  private EpochMesh() {}

  /** The epoch in one stage broke off (a task or its connection lost); see its cause. */
  static final class BrokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BrokenException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Why a partition's task failed, as it tells the driver before it ends: the driver would
   * otherwise see the other tasks' lost connections, or Spark's retries, first.
   */
  @DefaultSerializer(JavaSerializer.class)
  record Failure(String message, boolean badInput, boolean fatal) implements Serializable {
    static Failure of(Throwable t) {
      String m = String.valueOf(t.getMessage());
      for (Throwable c = t; c != null; c = c.getCause()) {
        if (c instanceof io.gstm.core.cuda.CudaFatalException) {
          return new Failure(String.valueOf(c.getMessage()), false, true);
        }
        if (c instanceof IllegalArgumentException) {
          return new Failure(String.valueOf(c.getMessage()), true, false);
        }
      }
      return new Failure(m, false, false);
    }

    /** Bad input or a lost GPU context, as the caller sees it; null for anything else. */
    RuntimeException asInputOrFatal() {
      return badInput ? new IllegalArgumentException(message)
          : fatal ? new io.gstm.core.cuda.CudaFatalException(message, null) : null;
    }
  }

  /**
   * Whether {@code plan}'s epochs over {@code p} partitions, placed at {@code locations} (null
   * in local mode), run in one stage: asked for, or {@code auto} and every partition's task can
   * run at once (the executor holding the most partitions has a task slot for each).
   */
  static boolean wanted(SparkContext sc, ApplyPlan plan, int p, String[] locations) {
    if (p < 2) {
      return false;
    }
    String asked = plan.exchange != null ? plan.exchange
        : GstmConf.STATE_EXCHANGE.parse(sc.getConf().get(GstmConf.STATE_EXCHANGE.key(), null));
    return switch (asked) {
      case "mesh" -> true;
      case "jobs" -> false;
      default -> {
        int slots = TaskHub.taskSlots(sc);
        if (locations == null) {
          yield p <= slots;
        }
        Map<String, Integer> held = new java.util.HashMap<>();
        int most = 0;
        for (String l : locations) {
          most = Math.max(most, held.merge(l, 1, Integer::sum));
        }
        int executors = Math.max(1, ExecutorSpread.registered(sc).size());
        yield p <= slots && most <= slots / executors;
      }
    };
  }

  /**
   * Which cached input partitions each state partition's task reads: those cached on its own
   * executor, shared out evenly among the partitions there; any other (on an executor holding
   * no partition, or no longer cached) to the partition with the fewest. In local mode, all
   * evenly.
   */
  static int[][] groups(SparkContext sc, RDD<?> routed, String[] locations, int p) {
    String[] blockAt = new String[routed.getNumPartitions()];
    for (int k = 0; k < blockAt.length && locations != null; k++) {
      blockAt[k] = ExecutorCoalescer.place(sc.getPreferredLocs(routed, k));
    }
    return groups(blockAt, locations, p);
  }

  /** As above, input partition k cached at {@code blockAt[k]} (null: anywhere). */
  static int[][] groups(String[] blockAt, String[] locations, int p) {
    List<List<Integer>> g = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      g.add(new ArrayList<>());
    }
    for (int k = 0; k < blockAt.length; k++) {
      String at = locations == null ? null : blockAt[k];
      int best = -1;
      for (int pass = 0; pass < 2 && best < 0; pass++) {
        for (int i = 0; i < p; i++) {
          boolean here = pass == 1 || at == null || at.equals(locations[i]);
          if (here && (best < 0 || g.get(i).size() < g.get(best).size())) {
            best = i;
          }
        }
      }
      g.get(best).add(k);
    }
    int[][] out = new int[p][];
    for (int i = 0; i < p; i++) {
      out[i] = g.get(i).stream().mapToInt(Integer::intValue).toArray();
    }
    return out;
  }

  /** The chunks one partition's task hands another, read from the input partitions it read. */
  record Routed(List<TxChunk> chunks) {}

  /**
   * What the tasks trade over the mesh: first each other's routed chunks ({@link Routed}, each
   * chunk encoded and decoded on all cores), then the cross-partition batch's frames ({@link
   * CrossBatch.Frame}).
   */
  static final TaskMesh.Codec<Object> CODEC = new TaskMesh.Codec<>() {
    @Override
    public void write(java.io.DataOutputStream out, Object m) throws IOException {
      if (m instanceof Routed r) {
        out.writeByte(1);
        ParallelFrames.write(out, r.chunks(), (o, c) -> c.write(o));
      } else {
        out.writeByte(0);
        CrossBatch.CODEC.write(out, (CrossBatch.Frame) m);
      }
    }

    @Override
    public Object read(java.io.DataInputStream in) throws IOException {
      if (in.readByte() == 1) {
        return new Routed(ParallelFrames.read(in, TxChunk::read));
      }
      return CrossBatch.CODEC.read(in);
    }
  };

  /** What one partition's task gives back: its own and its coordinated transactions' results. */
  @DefaultSerializer(JavaSerializer.class)
  record Part(Exchange.LocalResult local, OutcomeChunk cross, Exchange.TaskStats crossStats,
      int batches) implements Serializable {
    Summary summary() {
      Map<String, Long> counts = new TreeMap<>();
      cross.count(counts);
      return new Summary(local.summary(), cross.n, counts, crossStats, batches);
    }
  }

  /** A partition's part as the driver sees it. */
  @DefaultSerializer(JavaSerializer.class)
  record Summary(Exchange.LocalSummary local, long crossTransactions,
      Map<String, Long> crossCounts, Exchange.TaskStats crossStats, int batches)
      implements Serializable {}

  /**
   * Epoch {@code epoch} over {@code routed}, the input partitions' chunks (each keyed by the
   * partition that runs it, marked cross when it coordinates them) cached where they were
   * routed: partition i's task reads the input partitions {@code groups[i]} and trades the
   * chunks with the other tasks over the mesh, instead of a shuffle.
   */
  static StateJobs.Applied apply(SparkSession spark, TxState.Ref ref, ApplyPlan plan, long epoch,
      long base, GstmSettings settings, RDD<Tuple2<Integer, TxChunk>> routed, int[][] groups) {
    SparkContext sc = spark.sparkContext();
    int p = plan.state.partitions();
    long t0 = System.nanoTime();
    try (TaskHub hub = TaskHub.onDriver(sc, p, OWNER, WHAT)) {
      RDD<Tuple2<Integer, TxChunk>> pinned = new PinnedRDD<>(routed, groups, ref.locations(),
          StateJobs.tag(Tuple2.class));
      RDD<Part> out = pinned.mapPartitions(
          new Task(ref, plan, epoch, base, settings, hub.address()), true,
          StateJobs.tag(Part.class));
      out.localCheckpoint();
      Object[] parts;
      try (HubJob job = HubJob.start(sc, hub, "gstm-state-" + ref.id() + "-epoch-" + epoch,
          "TxState '" + plan.state.name() + "' epoch " + epoch + " in one stage over " + p
              + " partitions",
          () -> sc.runJob(out, new Summarize(), StateJobs.tag(Summary.class)))) {
        parts = (Object[]) run(hub, job, p);
      }
      List<Exchange.LocalSummary> local = new ArrayList<>();
      Map<String, Long> counts = new TreeMap<>();
      long crossed = 0;
      long ran = 0;
      long kernel = 0;
      long task = 0;
      String engine = null;
      boolean gpu = false;
      int batches = 0;
      for (Object o : parts) {
        Summary s = (Summary) o;
        ref.check(s.local().placement());
        local.add(s.local());
        s.crossCounts().forEach((k, v) -> counts.merge(k, v, Long::sum));
        crossed += s.crossTransactions();
        ran += s.crossStats().transactions();
        kernel += s.crossStats().kernelNanos();
        task += s.crossStats().taskNanos();
        engine = engine != null ? engine : s.crossStats().engine();
        gpu |= s.crossStats().gpu();
        batches += s.batches();
      }
      EPOCHS.incrementAndGet();
      LAST_CROSS_BATCHES.set(batches);
      Exchange.CrossSummary cross = new Exchange.CrossSummary(crossed, counts,
          new Exchange.TaskStats(ran, kernel, task, engine, gpu, false));
      LOG.debug("gstm state '{}' epoch {}: one stage over {} partitions, {} cross-partition "
          + "transactions in {} batch(es), {} ms", plan.state.name(), epoch, p, crossed, batches,
          (System.nanoTime() - t0) / 1_000_000);
      JavaRDD<InternalRow> rows = JavaRDD.fromRDD(PlainRdds.flatMap(out,
          part -> new Rows(part, plan), InternalRow.class), StateJobs.tag(InternalRow.class));
      return new StateJobs.Applied(() -> StateJobs.frame(spark, rows, OutcomeChunk.schema(plan)),
          local, crossed > 0 ? cross : null, crossed, "mesh");
    }
  }

  /** The driver's side: introduces the tasks to each other, then hears each one finish. */
  private static Object run(TaskHub hub, HubJob job, int p) {
    long t0 = System.nanoTime();
    try {
      try {
        hub.awaitAll(job.future(), START_TIMEOUT_MILLIS,
            " (or set spark.gstm.state.exchange=jobs)");
      } catch (IllegalStateException e) {
        throw new IOException(e.getMessage(), e); // broken: the epoch runs again with jobs
      }
      long t1 = System.nanoTime();
      hub.introduceMesh();
      // Each task says it is done, or why it failed; a connection that drops: it was lost.
      Object[] ends = new Object[p];
      IOException dropped = null;
      for (int q = 0; q < p; q++) {
        try {
          ends[q] = hub.read(q);
        } catch (IOException e) {
          dropped = dropped != null ? dropped : new IOException("partition " + q
              + "'s task was lost: " + e.getMessage(), e);
          ends[q] = dropped;
        }
      }
      Failure failure = null;
      for (Object end : ends) {
        if (end instanceof Failure f && (failure == null || f.asInputOrFatal() != null)) {
          failure = f;
        }
      }
      if (failure != null && failure.asInputOrFatal() != null) {
        job.failed(new IOException(failure.message()), hub); // cancels the job
        throw failure.asInputOrFatal();
      }
      if (dropped != null) {
        throw dropped;
      }
      if (failure != null) {
        throw new IOException(failure.message()); // a task failed: the epoch broke off
      }
      long t2 = System.nanoTime();
      Object done = job.join();
      LOG.debug("one stage over {} partitions: every task started {} ms after the job, ran {} "
          + "ms, results {} ms", p, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000,
          (System.nanoTime() - t2) / 1_000_000);
      return done;
    } catch (IOException | RuntimeException e) {
      Throwable failed = job.failed(e, hub);
      Throwable why = e instanceof IOException || failed == null ? e : failed;
      String whose = e instanceof IOException ? "a partition's task was lost"
          : "a partition's task failed";
      throw new BrokenException("the epoch in one stage broke off: " + whose + " ("
          + String.valueOf(why.getMessage()).lines().findFirst().orElse("") + ")",
          failed != null ? failed : e);
    }
  }

  /** A partition's outcome rows: its own transactions', then its coordinated ones'. */
  private static final class Rows implements java.util.Iterator<InternalRow> {
    private final java.util.Iterator<InternalRow> own;
    private final java.util.Iterator<InternalRow> cross;

    Rows(Part part, ApplyPlan plan) {
      own = part.local().outcomes().rows(plan);
      cross = part.cross().rows(plan);
    }

    @Override
    public boolean hasNext() {
      return own.hasNext() || cross.hasNext();
    }

    @Override
    public InternalRow next() {
      return own.hasNext() ? own.next() : cross.next();
    }
  }

  /** The driver's summary of a task's part (a named class: no closure analysis per job). */
  @DefaultSerializer(JavaSerializer.class)
  static final class Summarize
      extends AbstractFunction1<scala.collection.Iterator<Part>, Summary>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Summary apply(scala.collection.Iterator<Part> it) {
      return it.next().summary();
    }
  }

  /** A partition's task: its own transactions, then its part in the cross-partition batch. */
  @DefaultSerializer(JavaSerializer.class)
  static final class Task
      extends AbstractFunction1<scala.collection.Iterator<Tuple2<Integer, TxChunk>>,
          scala.collection.Iterator<Part>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final TxState.Ref ref;
    private final ApplyPlan plan;
    private final long epoch;
    private final long base;
    private final GstmSettings settings;
    private final TaskHub.Address hub;

    Task(TxState.Ref ref, ApplyPlan plan, long epoch, long base, GstmSettings settings,
        TaskHub.Address hub) {
      this.ref = ref;
      this.plan = plan;
      this.epoch = epoch;
      this.base = base;
      this.settings = settings;
      this.hub = hub;
    }

    /**
     * Waits for the cross-partition batch's start beside the own transactions (the keys sent or
     * received, their rows found); its failure is the task's.
     */
    private static void awaitSent(java.util.concurrent.FutureTask<Void> sending)
        throws IOException, InterruptedException {
      try {
        sending.get();
      } catch (java.util.concurrent.ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof IOException io) {
          throw io;
        }
        if (c instanceof RuntimeException re) {
          throw re;
        }
        if (c instanceof Error err) {
          throw err;
        }
        throw new IllegalStateException(c);
      }
    }

    /** Tells the driver why this task fails (if it can still be reached). */
    private static void tell(TaskHub.Link link, Exception e) {
      try {
        link.write(Failure.of(e));
      } catch (IOException | RuntimeException ignored) {
        // the driver is gone or closed the hub: it knows
      }
    }

    @Override
    public scala.collection.Iterator<Part> apply(
        scala.collection.Iterator<Tuple2<Integer, TxChunk>> it) {
      long t0 = System.nanoTime();
      int i = TaskContext.getPartitionId();
      if (TaskContext.get().attemptNumber() > 0) {
        // The other tasks and the hub moved on without it (the first attempt met them, or its
        // executor went after it finished): it cannot rejoin, and the epoch runs again.
        throw new IllegalStateException(OWNER + " '" + plan.state.name() + "' epoch " + epoch
            + ": partition " + i + "'s task was retried; an epoch in one stage runs again "
            + "as a whole");
      }
      int p = plan.state.partitions();
      List<List<TxChunk>> byTask = new ArrayList<>();
      for (int q = 0; q < p; q++) {
        byTask.add(new ArrayList<>());
      }
      while (it.hasNext()) {
        Tuple2<Integer, TxChunk> c = it.next();
        byTask.get(c._1()).add(c._2());
      }
      long t1 = System.nanoTime();
      try (TaskHub.Link link = new TaskHub.Link(hub, i, OWNER, WHAT)) {
        Part part;
        try (TaskMesh<Object> mesh = TaskMesh.open(link, hub.token(), i, p, WHAT, CODEC)) {
          long t2 = System.nanoTime();
          List<TxChunk> all = new ArrayList<>(byTask.get(i));
          for (int q = 0; q < p; q++) {
            if (q != i) {
              mesh.send(q, new Routed(byTask.get(q)));
            }
          }
          long sent = System.nanoTime();
          for (int q = 0; q < p; q++) {
            if (q != i) {
              all.addAll(((Routed) mesh.receive(q)).chunks());
            }
          }
          long received = System.nanoTime();
          byTask = null;
          // In input order, whichever task read them: the epoch's order does not depend on it.
          all.sort(java.util.Comparator.comparingInt((TxChunk c) -> c.source));
          List<TxChunk> own = new ArrayList<>();
          List<TxChunk> coordinated = new ArrayList<>();
          for (TxChunk c : all) {
            (c.cross ? coordinated : own).add(c);
          }
          int slots = plan.slots.length;
          TxChunk mine = own.isEmpty() ? new TxChunk(slots, 1) : TxChunk.concat(own, slots);
          TxChunk cross = coordinated.isEmpty() ? new TxChunk(slots, 1)
              : TxChunk.concat(coordinated, slots);
          cross.cross = true;
          long t3 = System.nanoTime();
          PartitionStore ps = StateRegistry.get(ref.id(), i, ref.incarnation(i), ref.name());
          CrossBatch crossing = new CrossBatch(ps, plan, settings, epoch, i, cross, mesh);
          // The coordinator's keys go to their owners while the own transactions run, and each
          // partition finds the rows of those it holds.
          java.util.concurrent.FutureTask<Void> sending = new java.util.concurrent.FutureTask<>(
              () -> {
                crossing.start();
                return null;
              });
          Thread sender = new Thread(sending, "gstm-cross-keys-" + i);
          sender.setDaemon(true);
          sender.start();
          Exchange.LocalResult local = StateJobs.local(ref, i, epoch, base, mine, plan,
              settings);
          awaitSent(sending);
          LOG.debug("gstm state '{}' epoch {} partition {}: {} own and {} coordinated "
                  + "transactions read in {} ms, the other tasks met in {} ms, traded in {} ms "
                  + "(sent {} ms, the others' received {} ms, in order {} ms), own run in {} ms",
              plan.state.name(), epoch, i, mine.n, cross.n, (t1 - t0) / 1_000_000,
              (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, (sent - t2) / 1_000_000,
              (received - sent) / 1_000_000, (t3 - received) / 1_000_000,
              (System.nanoTime() - t3) / 1_000_000);
          CrossBatch.Result r = crossing.run();
          part = new Part(local, r.outcomes(), r.stats(), r.batches());
        } catch (IOException | RuntimeException e) {
          tell(link, e);
          throw e;
        }
        link.write(Boolean.TRUE);
        return scala.collection.Iterator$.MODULE$.single(part);
      } catch (IOException e) {
        throw new UncheckedIOException(OWNER + " '" + plan.state.name() + "' epoch " + epoch
            + ": partition " + i + " lost the driver's hub or another partition: "
            + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(OWNER + ": partition " + i + "'s task was interrupted",
            e);
      }
    }
  }
}
