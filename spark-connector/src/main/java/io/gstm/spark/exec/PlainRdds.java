package io.gstm.spark.exec;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.OneToOneDependency;
import org.apache.spark.Partition;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * Per-partition RDD operations and jobs that do not go through Spark's closure cleaner. Each of
 * Spark's own ({@code map}, {@code mapPartitionsWithIndex}, {@code zipPartitions}, {@code
 * flatMap}, {@code collect}, {@code count}) hands its function to the cleaner, which reads and
 * parses the class file that defines the function's lambda (for {@code collect} and {@code
 * count}, Spark's own RDD and SparkContext classes) and serializes it to check it: 1-5 ms an
 * operation on 2 cores, 10-15 ms of a small TxState epoch (docs/benchmark-log.md). These take
 * functions of gstm's own serializable interfaces, which Spark never inspects; they must not
 * capture what cannot be serialized (the cleaner would not have fixed that either: gstm's
 * functions are static or capture only their arguments).
 */
public final class PlainRdds {
  private PlainRdds() {}

  /** What one partition becomes: its index and its elements in, the results out. */
  @FunctionalInterface
  public interface EachPartition<T, U> extends Serializable {
    Iterator<U> apply(int partition, Iterator<T> in);
  }

  /** What partition i of two RDDs of as many partitions becomes. */
  @FunctionalInterface
  public interface BothPartitions<A, B, U> extends Serializable {
    Iterator<U> apply(Iterator<A> a, Iterator<B> b);
  }

  /** One element to one result. */
  @FunctionalInterface
  public interface Each<T, U> extends Serializable {
    U apply(T t);
  }

  /** One element to any number of results. */
  @FunctionalInterface
  public interface EachToMany<T, U> extends Serializable {
    Iterator<U> apply(T t);
  }

  /**
   * {@code parent}'s partitions through {@code f} (Spark's {@code mapPartitionsWithIndex});
   * {@code keepsPartitioner}: the results keep the parent's partitioner.
   */
  public static <T, U> RDD<U> mapPartitions(RDD<T> parent, EachPartition<T, U> f,
      boolean keepsPartitioner, Class<?> resultClass) {
    return new Mapped<>(parent, f, keepsPartitioner, tag(resultClass));
  }

  /** Each element through {@code f}. */
  public static <T, U> RDD<U> map(RDD<T> parent, Each<T, U> f, Class<?> resultClass) {
    return mapPartitions(parent, new EachElement<>(f), false, resultClass);
  }

  /** Each element through {@code f}, its results one after another. */
  public static <T, U> RDD<U> flatMap(RDD<T> parent, EachToMany<T, U> f, Class<?> resultClass) {
    return mapPartitions(parent, new EachFlattened<>(f), false, resultClass);
  }

  /**
   * Partition i of {@code a} and of {@code b} together through {@code f} (Spark's {@code
   * zipPartitions}: both must have as many partitions; a task prefers where both parents'
   * partition i are, else where either's is).
   */
  public static <A, B, U> RDD<U> zipPartitions(RDD<A> a, RDD<B> b, BothPartitions<A, B, U> f,
      Class<?> resultClass) {
    return new Zipped<>(a, b, f, tag(resultClass));
  }

  /** Every element of {@code rdd}, in partition order: one job. */
  public static <T> List<T> collect(RDD<T> rdd) {
    return collect(rdd, null);
  }

  /** Every element of {@code rdd} through {@code f} on the executors, in partition order. */
  public static <T, U> List<U> collect(RDD<T> rdd, Each<T, U> f) {
    Object parts = JobCallSite.around(rdd.context(), "collect", PlainRdds.class,
        () -> rdd.context().runJob(rdd, new ToList<T, U>(f), indices(rdd.partitions().length),
            tag(ArrayList.class)));
    List<U> all = new ArrayList<>();
    for (Object p : (Object[]) parts) {
      @SuppressWarnings("unchecked")
      List<U> l = (List<U>) p;
      all.addAll(l);
    }
    return all;
  }

  /** How many elements {@code rdd} has: one job (each partition computed, as Spark's count). */
  public static long count(RDD<?> rdd) {
    long[] counts = (long[]) JobCallSite.around(rdd.context(), "count", PlainRdds.class,
        () -> rdd.context().runJob(rdd, new Count<>(), indices(rdd.partitions().length),
            ClassTag$.MODULE$.Long()));
    long n = 0;
    for (long c : counts) {
      n += c;
    }
    return n;
  }

  @SuppressWarnings("unchecked")
  public static <X> ClassTag<X> tag(Class<?> c) {
    return (ClassTag<X>) ClassTag$.MODULE$.apply(c);
  }

  private static Seq<Object> indices(int n) {
    List<Object> l = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      l.add(i);
    }
    return CollectionConverters.asScala(l).toList();
  }

  private static <X> Seq<X> seq(List<X> list) {
    return CollectionConverters.asScala(list).toList();
  }

  // A job's function is a named class: the cleaner leaves anything that is not a lambda or an
  // anonymous Scala function alone (and does not serialize it to check it).

  private static final class ToList<T, U>
      extends AbstractFunction2<TaskContext, scala.collection.Iterator<T>, ArrayList<U>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Each<T, U> f;

    ToList(Each<T, U> f) {
      this.f = f;
    }

    @Override
    @SuppressWarnings("unchecked")
    public ArrayList<U> apply(TaskContext context, scala.collection.Iterator<T> it) {
      ArrayList<U> out = new ArrayList<>();
      while (it.hasNext()) {
        T t = it.next();
        out.add(f == null ? (U) t : f.apply(t));
      }
      return out;
    }
  }

  private static final class Count<T>
      extends AbstractFunction2<TaskContext, scala.collection.Iterator<T>, Object>
      implements Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Object apply(TaskContext context, scala.collection.Iterator<T> it) {
      long n = 0;
      while (it.hasNext()) {
        it.next();
        n++;
      }
      return n;
    }
  }

  private record EachElement<T, U>(Each<T, U> f) implements EachPartition<T, U> {
    @Override
    public Iterator<U> apply(int partition, Iterator<T> in) {
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return in.hasNext();
        }

        @Override
        public U next() {
          return f.apply(in.next());
        }
      };
    }
  }

  private record EachFlattened<T, U>(EachToMany<T, U> f) implements EachPartition<T, U> {
    @Override
    public Iterator<U> apply(int partition, Iterator<T> in) {
      return new Iterator<>() {
        private Iterator<U> current = java.util.Collections.emptyIterator();

        @Override
        public boolean hasNext() {
          while (!current.hasNext() && in.hasNext()) {
            current = f.apply(in.next());
          }
          return current.hasNext();
        }

        @Override
        public U next() {
          if (!hasNext()) {
            throw new java.util.NoSuchElementException();
          }
          return current.next();
        }
      };
    }
  }

  /** Spark's MapPartitionsRDD, less the cleaning. */
  private static final class Mapped<T, U> extends RDD<U> {
    private static final long serialVersionUID = 1L;
    private RDD<T> parent;
    private EachPartition<T, U> f;
    private final scala.Option<org.apache.spark.Partitioner> kept;

    Mapped(RDD<T> parent, EachPartition<T, U> f, boolean keepsPartitioner, ClassTag<U> tag) {
      super(parent.context(), seq(List.of(new OneToOneDependency<>(parent))), tag);
      this.parent = parent;
      this.f = f;
      this.kept = keepsPartitioner ? parent.partitioner() : scala.Option.empty();
    }

    @Override
    public scala.Option<org.apache.spark.Partitioner> partitioner() {
      return kept == null ? scala.Option.empty() : kept;
    }

    @Override
    public Partition[] getPartitions() {
      return parent.partitions();
    }

    @Override
    public scala.collection.Iterator<U> compute(Partition split, TaskContext context) {
      Iterator<T> in = CollectionConverters.asJava(parent.iterator(split, context));
      return CollectionConverters.asScala(f.apply(split.index(), in));
    }

    @Override
    public void clearDependencies() {
      super.clearDependencies();
      parent = null;
      f = null;
    }
  }

  /** Spark's ZippedPartitionsRDD2, less the cleaning. */
  private static final class Zipped<A, B, U> extends RDD<U> {
    private static final long serialVersionUID = 1L;
    private RDD<A> a;
    private RDD<B> b;
    private BothPartitions<A, B, U> f;

    Zipped(RDD<A> a, RDD<B> b, BothPartitions<A, B, U> f, ClassTag<U> tag) {
      super(a.context(), seq(List.of(new OneToOneDependency<>(a), new OneToOneDependency<>(b))),
          tag);
      if (a.partitions().length != b.partitions().length) {
        throw new IllegalArgumentException("zipped RDDs need as many partitions: "
            + a.partitions().length + " and " + b.partitions().length);
      }
      this.a = a;
      this.b = b;
      this.f = f;
    }

    /** Partition i of both parents (resolved on the driver, as an executor cannot). */
    private record Pair(int index, Partition a, Partition b) implements Partition {}

    @Override
    public Partition[] getPartitions() {
      Partition[] pa = a.partitions();
      Partition[] pb = b.partitions();
      Partition[] out = new Partition[pa.length];
      for (int i = 0; i < out.length; i++) {
        out[i] = new Pair(i, pa[i], pb[i]);
      }
      return out;
    }

    @Override
    public Seq<String> getPreferredLocations(Partition split) {
      Pair p = (Pair) split;
      List<String> la = CollectionConverters.asJava(a.preferredLocations(p.a()));
      List<String> lb = CollectionConverters.asJava(b.preferredLocations(p.b()));
      List<String> both = new ArrayList<>(la);
      both.retainAll(lb);
      if (both.isEmpty()) {
        both.addAll(la);
        for (String l : lb) {
          if (!both.contains(l)) {
            both.add(l);
          }
        }
      }
      return seq(both);
    }

    @Override
    public scala.collection.Iterator<U> compute(Partition split, TaskContext context) {
      Pair p = (Pair) split;
      return CollectionConverters.asScala(f.apply(
          CollectionConverters.asJava(a.iterator(p.a(), context)),
          CollectionConverters.asJava(b.iterator(p.b(), context))));
    }

    @Override
    public void clearDependencies() {
      super.clearDependencies();
      a = null;
      b = null;
      f = null;
    }
  }
}
