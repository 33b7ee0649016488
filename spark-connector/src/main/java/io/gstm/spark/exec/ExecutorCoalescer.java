package io.gstm.spark.exec;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.Partition;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.PartitionCoalescer;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.rdd.RDD;
import org.apache.spark.scheduler.ExecutorCacheTaskLocation;
import org.apache.spark.scheduler.TaskLocation;
import scala.Option;
import scala.collection.Seq;

/**
 * Merges the partitions of a cached RDD without a shuffle, each merged partition made of
 * partitions cached on one executor and pinned to it, so that merging moves no data between
 * executors. Spark's own {@code coalesce} groups partitions by host: with several executors on
 * one host (workers sharing a machine of several GPUs) it mixes their partitions, and half of the
 * data then crosses between executors through the block manager (10 s for 100 M k-means points on
 * two executors of one node). Executors get merged partitions in proportion to the partitions
 * they hold, at least one each while there are enough; within an executor, neighbouring
 * partitions stay together, in order. Partitions not cached anywhere are grouped by their host
 * preference, else spread evenly.
 */
@DefaultSerializer(JavaSerializer.class)
public final class ExecutorCoalescer implements PartitionCoalescer, Serializable {
  private static final long serialVersionUID = 1L;

  /** {@code rdd} (cached, or its placement is not known) merged into {@code partitions}. */
  public static <T> JavaRDD<T> coalesce(JavaRDD<T> rdd, int partitions) {
    if (partitions >= rdd.getNumPartitions()) {
      return rdd;
    }
    RDD<T> merged = rdd.rdd().coalesce(partitions, false,
        Option.apply(new ExecutorCoalescer()), null);
    return new JavaRDD<>(merged, rdd.classTag());
  }

  @Override
  public PartitionGroup[] coalesce(int maxPartitions, RDD<?> parent) {
    Partition[] parts = parent.partitions();
    SparkContext sc = parent.context();
    TreeMap<String, List<Partition>> byPlace = new TreeMap<>();
    for (Partition p : parts) {
      byPlace.computeIfAbsent(place(sc.getPreferredLocs(parent, p.index())),
          k -> new ArrayList<>()).add(p);
    }
    return groups(byPlace, maxPartitions, parts.length).toArray(PartitionGroup[]::new);
  }

  /**
   * Where a partition is: its executor's location ("executor_HOST_ID"), else its first host,
   * else "" (anywhere).
   */
  public static String place(Seq<TaskLocation> locations) {
    String host = "";
    for (int i = 0; i < locations.size(); i++) {
      TaskLocation l = locations.apply(i);
      if (l instanceof ExecutorCacheTaskLocation e) {
        return PinnedRDD.location(e.host(), e.executorId());
      }
      if (host.isEmpty()) {
        host = l.host();
      }
    }
    return host;
  }

  /**
   * The groups: each place gets a share of {@code max} proportional to its partitions (at least
   * one), its partitions split into that many contiguous runs; with more places than groups,
   * places share groups.
   */
  static List<PartitionGroup> groups(TreeMap<String, List<Partition>> byPlace, int max,
      int total) {
    List<PartitionGroup> out = new ArrayList<>();
    if (byPlace.size() > max) {
      for (int g = 0; g < max; g++) {
        out.add(new PartitionGroup(Option.empty()));
      }
      int g = 0;
      for (List<Partition> ps : byPlace.values()) { // whole places, round-robin
        for (Partition p : ps) {
          out.get(g).partitions().addOne(p);
        }
        g = (g + 1) % max;
      }
      return out;
    }
    int left = max;
    int placesLeft = byPlace.size();
    int partsLeft = total;
    for (Map.Entry<String, List<Partition>> e : byPlace.entrySet()) {
      List<Partition> ps = e.getValue();
      // Proportional share, leaving at least one group for each place still to come.
      int share = (int) Math.round((double) left * ps.size() / partsLeft);
      share = Math.max(1, Math.min(share, Math.min(ps.size(), left - (placesLeft - 1))));
      Option<String> at = e.getKey().isEmpty() ? Option.empty() : Option.apply(e.getKey());
      for (int g = 0; g < share; g++) {
        PartitionGroup group = new PartitionGroup(at);
        int from = (int) ((long) ps.size() * g / share);
        int to = (int) ((long) ps.size() * (g + 1) / share);
        for (int i = from; i < to; i++) {
          group.partitions().addOne(ps.get(i));
        }
        out.add(group);
      }
      left -= share;
      placesLeft--;
      partsLeft -= ps.size();
    }
    return out;
  }
}
