package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxStats;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.Chunks;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskHold;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;

/**
 * The executor side of {@link GraphRelaxation}'s supersteps: what a task does with its subgraph
 * (relax to the local fixpoint from the values and updates it is given, then address the
 * improved replicated vertices to the partitions that need them), the driver's min-combining of
 * a small exchange, and the result's rows. The superstep loop itself runs on the driver, in
 * {@link GraphRelaxation#run()}.
 *
 * <p>The functions of a superstep's jobs are named classes on Spark's Scala API: its closure
 * cleaner reads and analyses the class file behind every lambda (the Java API wraps even a
 * named function in one) on every job, tens of ms per superstep on a 2-core machine.
 */
final class Supersteps {
  private Supersteps() {}


  static final ClassTag<StepOutput> STEP_OUTPUT = ClassTag$.MODULE$.apply(StepOutput.class);
  static final ClassTag<StepInput> STEP_INPUT = ClassTag$.MODULE$.apply(StepInput.class);

  /** What every superstep's function carries: the run, where vertices live, kind, settings. */
  @DefaultSerializer(JavaSerializer.class)
  record StepContext(long run, Broadcast<Replicas> replicas, RelaxationKind kind,
      GstmSettings settings) implements Serializable {}

  /** Superstep 0 of a partition. */
  @DefaultSerializer(JavaSerializer.class)
  static final class FirstStep
      extends AbstractFunction1<scala.collection.Iterator<LocalGraph>,
          scala.collection.Iterator<StepOutput>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StepContext c;
    private final long source;

    FirstStep(StepContext c, long source) {
      this.c = c;
      this.source = source;
    }

    @Override
    public scala.collection.Iterator<StepOutput> apply(scala.collection.Iterator<LocalGraph> g) {
      return one(firstStep(c.run(), g.next(), c.replicas().value(), c.kind(), source,
          c.settings()));
    }
  }

  /** Driver-exchanged updates up to which they travel in the tasks rather than a broadcast. */
  static final int MAIL_IN_TASKS = 16_384;

  /**
   * A later superstep of a partition: its subgraph zipped with what brings its updates
   * ({@code T}).
   */
  @DefaultSerializer(JavaSerializer.class)
  abstract static class LaterStep<T>
      extends AbstractFunction2<scala.collection.Iterator<LocalGraph>,
          scala.collection.Iterator<T>, scala.collection.Iterator<StepOutput>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StepContext c;

    LaterStep(StepContext c) {
      this.c = c;
    }

    /** The superstep's input for subgraph {@code g}, from the element zipped with it. */
    abstract StepInput input(LocalGraph g, T zipped);

    @Override
    public final scala.collection.Iterator<StepOutput> apply(
        scala.collection.Iterator<LocalGraph> gi, scala.collection.Iterator<T> zipped) {
      LocalGraph g = gi.next();
      // Where the cluster suite kills an executor: its earlier supersteps' outputs go with it.
      TaskHold.at("graph.laterStep", g.partition);
      return one(nextStep(c.run(), g, c.replicas().value(), input(g, zipped.next()), c.kind(),
          c.settings()));
    }
  }

  /**
   * A later superstep whose updates came through the driver: in this function ({@code mail}) or
   * in a broadcast ({@code broadcastMail}); zipped with the partition's last output.
   */
  static final class DriverStep extends LaterStep<StepOutput> {
    private static final long serialVersionUID = 1L;
    private final StepOutput.Messages[] mail;
    private final Broadcast<StepOutput.Messages[]> broadcastMail;

    DriverStep(StepContext c, StepOutput.Messages[] mail,
        Broadcast<StepOutput.Messages[]> broadcastMail) {
      super(c);
      this.mail = mail;
      this.broadcastMail = broadcastMail;
    }

    @Override
    StepInput input(LocalGraph g, StepOutput last) {
      StepOutput.Messages m = (mail != null ? mail : broadcastMail.value())[g.partition];
      return new StepInput(last, m == null ? List.of() : List.of(m));
    }
  }

  /** A later superstep whose updates came through a shuffle, already as its input. */
  static final class ShuffleStep extends LaterStep<StepInput> {
    private static final long serialVersionUID = 1L;

    ShuffleStep(StepContext c) {
      super(c);
    }

    @Override
    StepInput input(LocalGraph g, StepInput shuffled) {
      return shuffled;
    }
  }

  /** What the driver collects after a superstep ({@link StepOutput#summary}). */
  @DefaultSerializer(JavaSerializer.class)
  static final class Summary
      extends AbstractFunction2<TaskContext, scala.collection.Iterator<StepOutput>, StepOutput>
      implements Serializable {
    private static final long serialVersionUID = 2L;
    private final int limit;
    private final boolean withValues;

    /** See {@link StepOutput#summary}. */
    Summary(int limit, boolean withValues) {
      this.limit = limit;
      this.withValues = withValues;
    }

    @Override
    public StepOutput apply(TaskContext task, scala.collection.Iterator<StepOutput> out) {
      return out.next().summary(limit, withValues);
    }
  }

  private static <T> scala.collection.Iterator<T> one(T value) {
    return scala.collection.Iterator$.MODULE$.single(value);
  }

  /** {@link #relaxOptions(GstmSettings)} for {@code kind}'s subgraphs. */
  static RelaxOptions relaxOptions(GstmSettings s, RelaxationKind kind) {
    // A components subgraph holds every edge both ways (LocalGraph's undirected build).
    return relaxOptions(s).withSymmetric(kind == RelaxationKind.CONNECTED_COMPONENTS);
  }

  static RelaxOptions relaxOptions(GstmSettings s) {
    return new RelaxOptions(s.graph().threadsPerBlock(), s.transactions().lockCoverage(),
        s.graph().maxLocalRounds(),
        RunOptions.defaults().withMaxRetries(s.transactions().retryLimit()));
  }

  /**
   * Superstep 0: the source (shortest paths, at every partition that holds it) or every vertex
   * (components) starts active.
   */
  static StepOutput firstStep(long run, LocalGraph g, Replicas replicas, RelaxationKind kind,
      long source, GstmSettings settings) {
    double[] values = new double[g.size()];
    int[] active = null; // every vertex
    if (kind == RelaxationKind.SHORTEST_PATHS) {
      Arrays.fill(values, Double.POSITIVE_INFINITY);
      int s = source <= GraphRelaxation.MAX_VERTEX_ID ? g.local((int) source) : -1;
      if (s >= 0) {
        values[s] = 0;
        active = new int[] {s};
      } else {
        active = new int[0];
      }
    } else {
      for (int i = 0; i < values.length; i++) {
        values[i] = g.globalIds[i];
      }
    }
    StepOutput out = relax(run, g, replicas, values, active, kind, settings);
    out.stats.vertices = g.size();
    out.stats.edges = g.edgeCount();
    return out;
  }

  /** A partition's previous output and the boundary updates addressed to it. */
  record StepInput(StepOutput previous, List<StepOutput.Messages> messages) {}

  static Iterator<StepInput> gather(Iterator<StepOutput> prev,
      Iterator<Tuple2<Integer, StepOutput.Messages>> msgs) {
    List<StepOutput.Messages> list = new ArrayList<>();
    msgs.forEachRemaining(t -> list.add(t._2()));
    return List.of(new StepInput(prev.next(), list)).iterator();
  }

  /** Updates applied, or changed vertices addressed, per unit of parallel work. */
  private static final int APPLY_SLICE = 1 << 16;

  /** Applies the min of the incoming values; the local vertices that improved become active. */
  static StepOutput nextStep(long run, LocalGraph g, Replicas replicas, StepInput in,
      RelaxationKind kind, GstmSettings settings) {
    return nextStep(run, g, replicas, in, kind, settings, false);
  }

  /**
   * As above; with {@code reuse} the previous output's values are updated in place (its caller
   * keeps no other reference to them), else copied.
   */
  static StepOutput nextStep(long run, LocalGraph g, Replicas replicas, StepInput in,
      RelaxationKind kind, GstmSettings settings, boolean reuse) {
    double[] values = reuse ? in.previous().values : in.previous().values.clone();
    int[] table = g.localTable();
    IntUnaryOperator localOf = id -> {
      int local = table != null ? (id < table.length ? table[id] : -1) : g.local(id);
      if (local < 0) {
        throw new IllegalStateException("partition " + g.partition + " got an update for vertex "
            + id + ", which it does not hold");
      }
      return local;
    };
    int[] active = applyUpdates(values, localOf, in.messages(), APPLY_SLICE);
    return relax(run, g, replicas, values, active, kind, settings);
  }

  /**
   * Lowers {@code values} (by local id, {@code localOf} of a global id) to the updates' values
   * where they are lower; returns the local ids lowered, each once, in the order of the updates.
   * One sender's list after another (a vertex may come from several); within a list every
   * vertex once, so a list's slices of {@code slice} updates apply on all cores (9.6 M updates
   * in one superstep at 2^24).
   */
  static int[] applyUpdates(double[] values, IntUnaryOperator localOf,
      List<StepOutput.Messages> messages, int slice) {
    boolean[] mark = new boolean[values.length];
    List<int[]> improved = new ArrayList<>();
    int n = 0;
    for (StepOutput.Messages m : messages) {
      int[] ids = m.ids();
      double[] vals = m.values();
      if (ids == null) {
        continue;
      }
      int[][] bySlice = Chunks.of(ids.length, slice).mapToObj(c -> {
        int[] found = new int[16];
        int k = 0;
        for (int i = Chunks.from(c, slice), end = Chunks.to(c, ids.length, slice); i < end;
            i++) {
          int local = localOf.applyAsInt(ids[i]);
          if (vals[i] < values[local]) {
            values[local] = vals[i];
            if (!mark[local]) {
              mark[local] = true;
              if (k == found.length) {
                found = Arrays.copyOf(found, k * 2);
              }
              found[k++] = local;
            }
          }
        }
        return Arrays.copyOf(found, k);
      }).toArray(int[][]::new);
      for (int[] f : bySlice) {
        improved.add(f);
        n += f.length;
      }
    }
    int[] active = new int[n];
    int at = 0;
    for (int[] f : improved) {
      System.arraycopy(f, 0, active, at, f.length);
      at += f.length;
    }
    return active;
  }

  /**
   * Relaxes to the local fixpoint from {@code active} (null: every vertex); every vertex that
   * improved here becomes a message to each other partition that needs it ({@link
   * Replicas#needs}: it has out-edges there, or that partition reports it).
   */
  static StepOutput relax(long run, LocalGraph g, Replicas replicas, double[] values,
      int[] active, RelaxationKind kind, GstmSettings settings) {
    StepStats st = new StepStats();
    int activeCount = active == null ? g.size() : active.length;
    if (activeCount > 0) {
      st.activePartitions = 1;
      st.activeVertices = activeCount;
      long t0 = System.nanoTime();
      RelaxResult res;
      try (ResidentCache.Handle<GraphRelaxer> h = ResidentCache.acquire(run, g.partition,
          settings, engine -> new GraphRelaxer(engine, g.csr(), kind,
              relaxOptions(settings, kind)))) {
        res = active == null ? h.value().relaxAll(values) : h.value().relax(values, active);
        st.engines.add(h.lease().engine().name() + " (" + h.lease().reason() + ")");
        st.fellBack = !h.lease().gpu() && settings.executors().engine() != EngineChoice.JVM;
      }
      st.relaxNanos = System.nanoTime() - t0;
      values = res.values();
      RelaxStats rs = res.stats();
      st.rounds = rs.rounds();
      st.transactions = rs.transactions();
      st.commits = rs.commits();
      st.aborts = rs.aborts();
      st.edgeRelaxations = rs.edgeRelaxations();
      st.improvedWrites = rs.improvedWrites();
      st.kernelNanos = rs.kernelNanos();
      // A single subgraph sends no messages: its changed vertices are never listed.
      int[] changed = g.partitions > 1 ? res.changedVertices() : null;
      if (changed != null && changed.length > 0) {
        return addressed(g, replicas, values, changed, st);
      }
    }
    return new StepOutput(g.partition, values, null, null, st, g.globalIds);
  }

  /** Whether partition {@code q} needs the update of local vertex {@code c}. */
  @FunctionalInterface
  interface Needs {
    boolean test(int q, int c);
  }

  /**
   * The output of a relaxation whose {@code changed} vertices go to every other partition that
   * needs them, in the order of {@code changed}: by the subgraph's {@link Replicas#needMasks}
   * bits, or (beyond 32 partitions) by {@link Replicas#needs}.
   */
  private static StepOutput addressed(LocalGraph g, Replicas replicas, double[] values,
      int[] changed, StepStats st) {
    int partitions = g.partitions;
    int[] masks = g.needMasks(replicas);
    Needs needs = masks != null ? (q, c) -> (masks[c] & (1 << q)) != 0
        : (q, c) -> q != g.partition && replicas.needs(q, g.globalIds[c]);
    Lists lists = address(changed, partitions, needs, g.globalIds, values, APPLY_SLICE);
    for (int[] l : lists.ids()) {
      st.messages += l == null ? 0 : l.length;
    }
    int[][] ids = lists.ids();
    double[][] vals = lists.values();
    return new StepOutput(g.partition, values, ids, vals, st, g.globalIds);
  }

  /** Per target partition, the global ids and values it is sent (null: none). */
  record Lists(int[][] ids, double[][] values) {}

  /**
   * The lists of {@link #addressed}: every changed vertex (local id) to each partition that
   * {@code needs} it, in the order of {@code changed}. Counted per slice of {@code slice}
   * vertices, then placed per slice from its offsets, on all cores.
   */
  static Lists address(int[] changed, int partitions, Needs needs, int[] globalIds,
      double[] values, int slice) {
    int n = changed.length;
    int[][] sliceCounts = new int[Chunks.count(n, slice)][partitions];
    Chunks.of(n, slice).forEach(sl -> {
      int[] cnt = sliceCounts[sl];
      for (int i = Chunks.from(sl, slice), end = Chunks.to(sl, n, slice); i < end; i++) {
        for (int q = 0; q < partitions; q++) {
          if (needs.test(q, changed[i])) {
            cnt[q]++;
          }
        }
      }
    });
    int[] counts = new int[partitions];
    for (int[] cnt : sliceCounts) {
      for (int q = 0; q < partitions; q++) {
        int k = cnt[q];
        cnt[q] = counts[q]; // the slice's first place in q's list
        counts[q] += k;
      }
    }
    int[][] ids = new int[partitions][];
    double[][] vals = new double[partitions][];
    for (int q = 0; q < partitions; q++) {
      if (counts[q] > 0) {
        ids[q] = new int[counts[q]];
        vals[q] = new double[counts[q]];
      }
    }
    Chunks.of(n, slice).forEach(sl -> {
      int[] fill = sliceCounts[sl];
      for (int i = Chunks.from(sl, slice), end = Chunks.to(sl, n, slice); i < end; i++) {
        int c = changed[i];
        for (int q = 0; q < partitions; q++) {
          if (counts[q] > 0 && needs.test(q, c)) {
            ids[q][fill[q]] = globalIds[c];
            vals[q][fill[q]++] = values[c];
          }
        }
      }
    });
    return new Lists(ids, vals);
  }

  /**
   * The driver's side of a small exchange: per target partition, the min value of each vertex
   * over every partition that sent it (as the receiving partition would take it after a
   * shuffle); ids ascending where several partitions sent updates, else in the sender's order.
   */
  static StepOutput.Messages[] minCombine(List<StepOutput> summaries, int partitions) {
    StepOutput.Messages[] mail = new StepOutput.Messages[partitions];
    for (int q = 0; q < partitions; q++) {
      int n = 0;
      for (StepOutput o : summaries) {
        if (o.messageIds != null && o.messageIds[q] != null) {
          n += o.messageIds[q].length;
        }
      }
      if (n == 0) {
        continue;
      }
      StepOutput single = null;
      int senders = 0;
      for (StepOutput o : summaries) {
        if (o.messageIds != null && o.messageIds[q] != null) {
          single = o;
          senders++;
        }
      }
      if (senders == 1) {
        // One sender names each vertex once: nothing to combine (the usual case with two
        // partitions), so its updates go on as they are, in its order.
        mail[q] = new StepOutput.Messages(single.messageIds[q], single.messageValues[q]);
        continue;
      }
      long[] keyed = new long[n];
      double[] vals = new double[n];
      int f = 0;
      for (StepOutput o : summaries) {
        if (o.messageIds != null && o.messageIds[q] != null) {
          int[] ids = o.messageIds[q];
          for (int i = 0; i < ids.length; i++) {
            vals[f] = o.messageValues[q][i];
            keyed[f] = ((long) ids[i] << 32) | f; // ids are non-negative ints
            f++;
          }
        }
      }
      Arrays.sort(keyed);
      int[] outIds = new int[n];
      double[] outVals = new double[n];
      int m = 0;
      for (long kv : keyed) {
        int id = (int) (kv >>> 32);
        double v = vals[(int) kv];
        if (m > 0 && outIds[m - 1] == id) {
          outVals[m - 1] = Math.min(outVals[m - 1], v);
        } else {
          outIds[m] = id;
          outVals[m++] = v;
        }
      }
      mail[q] = new StepOutput.Messages(Arrays.copyOf(outIds, m), Arrays.copyOf(outVals, m));
    }
    return mail;
  }

  static Iterator<Tuple2<Integer, StepOutput.Messages>> outgoing(StepOutput o,
      int partitions) {
    List<Tuple2<Integer, StepOutput.Messages>> list = new ArrayList<>();
    if (o.messageIds != null) {
      for (int q = 0; q < partitions; q++) {
        if (o.messageIds[q] != null) {
          list.add(new Tuple2<>(q, new StepOutput.Messages(o.messageIds[q], o.messageValues[q])));
        }
      }
    }
    return list.iterator();
  }

  /**
   * One row (id: long, value: double) per vertex of which this partition is the lowest holder,
   * made as the consumer asks for it in one reused UnsafeRow (Spark's operators copy a row they
   * keep).
   */
  static Iterator<InternalRow> rows(StepOutput o, Replicas replicas) {
    int[] ids = o.globalIds;
    double[] values = o.values;
    java.util.function.IntPredicate reports = replicas.reporter(o.partition);
    UnsafeRow row = new UnsafeRow(2);
    row.pointTo(new byte[24], 24);
    return new Iterator<>() {
      private int next = advance(0);

      private int advance(int from) {
        int i = from;
        while (i < ids.length && !reports.test(ids[i])) {
          i++;
        }
        return i;
      }

      @Override
      public boolean hasNext() {
        return next < ids.length;
      }

      @Override
      public InternalRow next() {
        if (next >= ids.length) {
          throw new java.util.NoSuchElementException();
        }
        row.setLong(0, ids[next]);
        row.setDouble(1, values[next]);
        next = advance(next + 1);
        return row;
      }
    };
  }}
