package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.SharedSpark;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.apache.spark.Partition;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.PartitionGroup;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import scala.jdk.javaapi.CollectionConverters;

class ExecutorCoalescerTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  /** A stand-in partition of index {@code i}. */
  private record Part(int index) implements Partition {}

  private static List<Partition> parts(int from, int to) {
    List<Partition> out = new ArrayList<>();
    IntStream.range(from, to).forEach(i -> out.add(new Part(i)));
    return out;
  }

  private static List<List<Integer>> indices(List<PartitionGroup> groups) {
    List<List<Integer>> out = new ArrayList<>();
    for (PartitionGroup g : groups) {
      out.add(CollectionConverters.asJava(g.partitions()).stream().map(Partition::index)
          .toList());
    }
    return out;
  }

  @Test
  void eachGroupHoldsOneExecutorsPartitionsInProportion() {
    TreeMap<String, List<Partition>> byPlace = new TreeMap<>();
    byPlace.put("executor_h_1", parts(0, 6));
    byPlace.put("executor_h_2", parts(6, 8));
    assertThat(indices(ExecutorCoalescer.groups(byPlace, 2, 8)))
        .containsExactly(List.of(0, 1, 2, 3, 4, 5), List.of(6, 7));
    assertThat(indices(ExecutorCoalescer.groups(byPlace, 4, 8)))
        .containsExactly(List.of(0, 1), List.of(2, 3), List.of(4, 5), List.of(6, 7));
    List<PartitionGroup> g = ExecutorCoalescer.groups(byPlace, 2, 8);
    assertThat(g.get(0).prefLoc().get()).isEqualTo("executor_h_1");
    assertThat(g.get(1).prefLoc().get()).isEqualTo("executor_h_2");
  }

  @Test
  void morePlacesThanGroupsShareGroupsWhole() {
    TreeMap<String, List<Partition>> byPlace = new TreeMap<>();
    byPlace.put("a", parts(0, 2));
    byPlace.put("b", parts(2, 4));
    byPlace.put("c", parts(4, 5));
    assertThat(indices(ExecutorCoalescer.groups(byPlace, 2, 5)))
        .containsExactly(List.of(0, 1, 4), List.of(2, 3));
  }

  @Test
  void aCachedRddMergesIntoContiguousPartitionsInOrder() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(session.spark().sparkContext());
    JavaRDD<Integer> cached = jsc.parallelize(IntStream.range(0, 100).boxed().toList(), 10)
        .persist(StorageLevel.MEMORY_ONLY());
    cached.count();
    JavaRDD<Integer> merged = ExecutorCoalescer.coalesce(cached, 3);
    assertThat(merged.getNumPartitions()).isEqualTo(3);
    assertThat(merged.collect()).isEqualTo(IntStream.range(0, 100).boxed().toList());
    assertThat(merged.glom().collect()).extracting(List::size).containsExactly(30, 30, 40);
    assertThat(ExecutorCoalescer.coalesce(cached, 10)).isSameAs(cached);
    cached.unpersist(false);
  }
}
