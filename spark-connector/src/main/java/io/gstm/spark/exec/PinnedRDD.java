package io.gstm.spark.exec;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.NarrowDependency;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.rdd.RDD;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;

/**
 * Some partitions of a parent RDD, each pinned to an executor (its preferred location), so that
 * a task runs where its data are resident: a TxState partition's stores, a k-means point set.
 * Partition {@code i} is the parent's partition {@code parentIndex[i]}; {@code locations[i]} may be null
 * (no preference: local mode, or the cross-partition phase).
 */
public final class PinnedRDD<T> extends RDD<T> {
  private static final long serialVersionUID = 1L;
  private final RDD<T> parent;
  private final int[] parentIndex;
  private final String[] locations;

  /**
   * The location that pins a task to executor {@code executorId} on {@code host} (Spark's
   * executor-cache location: the scheduler runs the task there unless that executor stays busy
   * beyond {@code spark.locality.wait}, so a task must still check where it runs).
   */
  public static String location(String host, String executorId) {
    return "executor_" + host + "_" + executorId;
  }

  public PinnedRDD(RDD<T> parent, int[] parentIndex, String[] locations, ClassTag<T> tag) {
    super(parent.context(), seq(List.of(new Select<>(parent, parentIndex))), tag);
    this.parent = parent;
    this.parentIndex = parentIndex.clone();
    this.locations = locations == null ? new String[parentIndex.length] : locations.clone();
  }

  private static final class Select<T> extends NarrowDependency<T> {
    private static final long serialVersionUID = 1L;
    private final int[] parentIndex;

    Select(RDD<T> parent, int[] parentIndex) {
      super(parent);
      this.parentIndex = parentIndex.clone();
    }

    @Override
    public Seq<Object> getParents(int partitionId) {
      return seq(List.of((Object) parentIndex[partitionId]));
    }
  }

  private static final class Pinned implements Partition {
    private static final long serialVersionUID = 1L;
    private final int index;
    final Partition parent;

    Pinned(int index, Partition parent) {
      this.index = index;
      this.parent = parent;
    }

    @Override
    public int index() {
      return index;
    }

    @Override
    public int hashCode() {
      return index;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Pinned p && p.index == index && p.parent.equals(parent);
    }
  }

  @Override
  public scala.collection.Iterator<T> compute(Partition split, TaskContext context) {
    return parent.iterator(((Pinned) split).parent, context);
  }

  @Override
  public Partition[] getPartitions() {
    Partition[] all = parent.partitions();
    Partition[] out = new Partition[parentIndex.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = new Pinned(i, all[parentIndex[i]]);
    }
    return out;
  }

  @Override
  public Seq<String> getPreferredLocations(Partition split) {
    String at = locations[split.index()];
    List<String> l = new ArrayList<>();
    if (at != null) {
      l.add(at);
    }
    return seq(l);
  }

  private static <X> Seq<X> seq(List<X> list) {
    return CollectionConverters.asScala(list).toList();
  }
}
