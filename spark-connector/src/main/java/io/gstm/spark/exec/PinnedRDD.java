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
 * Partition {@code i} is the parent's partitions {@code groups[i]}, read in turn (usually one);
 * {@code locations[i]} may be null (no preference: local mode, or the cross-partition phase).
 */
public final class PinnedRDD<T> extends RDD<T> {
  private static final long serialVersionUID = 1L;
  private final RDD<T> parent;
  private final int[][] groups;
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
    this(parent, singles(parentIndex), locations, tag);
  }

  /** Partition {@code i} reads the parent's partitions {@code groups[i]} in turn. */
  public PinnedRDD(RDD<T> parent, int[][] groups, String[] locations, ClassTag<T> tag) {
    super(parent.context(), seq(List.of(new Select<>(parent, groups))), tag);
    this.parent = parent;
    this.groups = groups.clone();
    this.locations = locations == null ? new String[groups.length] : locations.clone();
  }

  private static int[][] singles(int[] parentIndex) {
    int[][] g = new int[parentIndex.length][];
    for (int i = 0; i < g.length; i++) {
      g[i] = new int[] {parentIndex[i]};
    }
    return g;
  }

  private static final class Select<T> extends NarrowDependency<T> {
    private static final long serialVersionUID = 1L;
    private final int[][] groups;

    Select(RDD<T> parent, int[][] groups) {
      super(parent);
      this.groups = groups.clone();
    }

    @Override
    public Seq<Object> getParents(int partitionId) {
      List<Object> l = new ArrayList<>();
      for (int g : groups[partitionId]) {
        l.add(g);
      }
      return seq(l);
    }
  }

  private static final class Pinned implements Partition {
    private static final long serialVersionUID = 1L;
    private final int index;
    final Partition[] parents;

    Pinned(int index, Partition[] parents) {
      this.index = index;
      this.parents = parents;
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
      return o instanceof Pinned p && p.index == index
          && java.util.Arrays.equals(p.parents, parents);
    }
  }

  @Override
  public scala.collection.Iterator<T> compute(Partition split, TaskContext context) {
    Partition[] from = ((Pinned) split).parents;
    if (from.length == 1) {
      return parent.iterator(from[0], context);
    }
    List<Partition> l = java.util.Arrays.asList(from);
    return CollectionConverters.asScala(l.iterator()).flatMap(
        new scala.runtime.AbstractFunction1<Partition, scala.collection.IterableOnce<T>>() {
          @Override
          public scala.collection.IterableOnce<T> apply(Partition p) {
            return parent.iterator(p, context);
          }
        });
  }

  @Override
  public Partition[] getPartitions() {
    Partition[] all = parent.partitions();
    Partition[] out = new Partition[groups.length];
    for (int i = 0; i < out.length; i++) {
      Partition[] from = new Partition[groups[i].length];
      for (int k = 0; k < from.length; k++) {
        from[k] = all[groups[i][k]];
      }
      out[i] = new Pinned(i, from);
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
