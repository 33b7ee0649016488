package io.gstm.spark.exec;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;
import org.apache.spark.NarrowDependency;
import org.apache.spark.Partition;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.TaskContext$;
import org.apache.spark.rdd.RDD;
import org.apache.spark.serializer.SerializerInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Every partition of a parent RDD computed inside one task, on the executor's cores at once: a
 * one-partition state's task reads all of its input itself, so that an epoch is one job (no
 * routing job, no routed chunks cached between two jobs). Each parent partition runs on a
 * thread of the common pool, as if it were a task of its own: from its thread's own copy of the
 * parent and with its own context ({@link PartitionContext}: the task's, but for its metrics,
 * added to the task's when it ends), through {@code each}; the results come back in partition
 * order. A task kill reaches every thread through the task's context.
 */
public final class InTaskPartitions<T, R> extends RDD<R> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(InTaskPartitions.class);

  /** What one parent partition becomes, on whichever thread computes it. */
  @FunctionalInterface
  public interface Each<T, R> extends Serializable {
    Iterator<R> apply(int partition, Iterator<T> rows);
  }

  private final RDD<T> parent;
  private final Each<T, R> each;

  public InTaskPartitions(RDD<T> parent, Each<T, R> each, ClassTag<R> tag) {
    super(parent.context(), seq(List.of(new All<>(parent))), tag);
    this.parent = parent;
    this.each = each;
  }

  private static final class All<T> extends NarrowDependency<T> {
    private static final long serialVersionUID = 1L;

    All(RDD<T> parent) {
      super(parent);
    }

    @Override
    public Seq<Object> getParents(int partitionId) {
      List<Object> all = new ArrayList<>();
      for (int k = 0; k < rdd().getNumPartitions(); k++) {
        all.add(k);
      }
      return seq(all);
    }
  }

  /** The one partition: the parent's, as the driver made them (an executor cannot). */
  private record One(int index, Partition[] parents) implements Partition {}

  @Override
  public scala.collection.Iterator<R> compute(Partition split, TaskContext context) {
    Partition[] from = ((One) split).parents();
    @SuppressWarnings("unchecked")
    List<R>[] out = new List[from.length];
    // Each thread reads from a copy of its own, as a task of its own would: the plan's objects
    // (its metrics) written by every row of one copy on several threads at once made reading
    // 2.7 to 5 times slower. A copy per thread, not per partition: an input of thousands of
    // partitions deserializes a copy for each core only.
    ClassTag<RDD<T>> rddTag = ClassTag$.MODULE$.apply(RDD.class);
    long t0 = System.nanoTime();
    ByteBuffer bytes = serializer().serialize(parent, rddTag);
    long serialized = System.nanoTime() - t0;
    long[] took = new long[from.length];
    long[] copying = new long[from.length];
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    Thread taskThread = Thread.currentThread();
    ConcurrentHashMap<Thread, RDD<T>> copies = new ConcurrentHashMap<>();
    IntStream.range(0, from.length).parallel().forEach(k -> {
      long start = System.nanoTime();
      RDD<T> own = Thread.currentThread() == taskThread ? parent
          : copies.computeIfAbsent(Thread.currentThread(),
              t -> serializer().deserialize(bytes.duplicate(), loader, rddTag));
      copying[k] = System.nanoTime() - start;
      // The partition's context and the task's class loader (an executor's, which holds the
      // application's jars: generated code and a user's classes load through it) on this
      // thread while it runs, then the thread's own again: a pool thread may hold another
      // task's (work it stole while that task's work waited).
      PartitionContext pc = new PartitionContext(context);
      TaskContext was = TaskContext.get();
      ClassLoader wasLoader = Thread.currentThread().getContextClassLoader();
      TaskContext$.MODULE$.setTaskContext(pc);
      Thread.currentThread().setContextClassLoader(loader);
      try {
        List<R> results = new ArrayList<>();
        each.apply(k, CollectionConverters.asJava(own.iterator(from[k], pc)))
            .forEachRemaining(results::add);
        out[k] = results;
      } finally {
        took[k] = System.nanoTime() - start;
        pc.addMetricsToTask();
        Thread.currentThread().setContextClassLoader(wasLoader);
        if (was == null) {
          TaskContext$.MODULE$.unset();
        } else {
          TaskContext$.MODULE$.setTaskContext(was);
        }
      }
    });
    if (LOG.isDebugEnabled() && from.length > 0) {
      // The slowest partition is the reading's wall; the copies, what a thread paid to start.
      long[] sorted = took.clone();
      java.util.Arrays.sort(sorted);
      LOG.debug("gstm: {} partitions computed in one task on {} threads in {} ms (the parent "
              + "serialized in {} ms, copied on each thread in at most {} ms); a partition {} ms "
              + "at least, {} ms median, {} ms at most", from.length, copies.size() + 1,
          (System.nanoTime() - t0) / 1_000_000, serialized / 1_000_000,
          java.util.Arrays.stream(copying).max().orElse(0) / 1_000_000,
          sorted[0] / 1_000_000, sorted[sorted.length / 2] / 1_000_000,
          sorted[sorted.length - 1] / 1_000_000);
    }
    List<R> all = new ArrayList<>();
    for (List<R> o : out) {
      all.addAll(o);
    }
    return CollectionConverters.asScala(all.iterator());
  }

  /** Spark's serializer of tasks (an instance per thread: they are not shared). */
  private static SerializerInstance serializer() {
    return SparkEnv.get().closureSerializer().newInstance();
  }

  @Override
  public Partition[] getPartitions() {
    return new Partition[] {new One(0, parent.partitions())};
  }

  private static <X> Seq<X> seq(List<X> list) {
    return CollectionConverters.asScala(list).toList();
  }
}
