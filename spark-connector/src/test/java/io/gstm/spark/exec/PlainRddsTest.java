package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.spark.SharedSpark;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.RDD;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.Tuple2;

/**
 * The RDD operations and jobs without Spark's closure cleaner give what Spark's own give (seeded
 * random inputs over several partition counts), keep or drop the partitioner as asked, pair
 * zipped partitions by index, survive a local checkpoint, and leave their functions uninspected
 * until a task needs them (the jobs' names: JobCallSiteTest).
 */
class PlainRddsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  private static JavaSparkContext jsc() {
    return JavaSparkContext.fromSparkContext(session.spark().sparkContext());
  }

  private static List<Long> values(long seed, int n) {
    Random r = new Random(seed);
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(r.nextLong() % 1000);
    }
    return out;
  }

  /** An element x, x mod 3 times. */
  private static Iterator<Long> copies(long x) {
    return java.util.Collections.nCopies((int) Math.floorMod(x, 3), x).iterator();
  }

  private static long sum(Iterator<Long> it) {
    long sum = 0;
    while (it.hasNext()) {
      sum += it.next();
    }
    return sum;
  }

  /** A partition's index and the sum of its elements. */
  private static Iterator<long[]> indexAndSum(int partition, Iterator<Long> it) {
    return List.of(new long[] {partition, sum(it)}).iterator();
  }

  /** Partition i of both, as one number (which side is which shows). */
  private static Iterator<Long> bothSums(Iterator<Long> a, Iterator<Long> b) {
    return List.of(sum(a) * 1_000_003L + sum(b)).iterator();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 8})
  void theSameResultsAsSparksOwnOperations(int parts) {
    List<Long> in = values(parts, 5_000);
    JavaRDD<Long> rdd = jsc().parallelize(in, parts);

    assertThat(PlainRdds.collect(PlainRdds.map(rdd.rdd(), x -> x * 3 + 1, Long.class)))
        .isEqualTo(rdd.map(x -> x * 3 + 1).collect());
    assertThat(PlainRdds.collect(PlainRdds.flatMap(rdd.rdd(), PlainRddsTest::copies, Long.class)))
        .isEqualTo(rdd.flatMap(PlainRddsTest::copies).collect());
    assertThat(PlainRdds.collect(PlainRdds.mapPartitions(rdd.rdd(), PlainRddsTest::indexAndSum,
        false, long[].class))).usingRecursiveFieldByFieldElementComparator()
        .isEqualTo(rdd.mapPartitionsWithIndex(PlainRddsTest::indexAndSum, false).collect());
    assertThat(PlainRdds.collect(rdd.rdd(), x -> -x))
        .isEqualTo(rdd.map(x -> -x).collect());
    assertThat(PlainRdds.count(PlainRdds.flatMap(rdd.rdd(),
        x -> List.of(x, x).iterator(), Long.class))).isEqualTo(2L * in.size());
  }

  @Test
  void zippedPartitionsPairByIndexAndMustMatchInNumber() {
    JavaRDD<Long> a = jsc().parallelize(values(1, 1_000), 4);
    JavaRDD<Long> b = jsc().parallelize(values(2, 1_000), 4);
    RDD<Long> zipped = PlainRdds.zipPartitions(a.rdd(), b.rdd(), PlainRddsTest::bothSums,
        Long.class);
    assertThat(PlainRdds.collect(zipped))
        .isEqualTo(a.zipPartitions(b, PlainRddsTest::bothSums).collect());

    JavaRDD<Long> three = jsc().parallelize(values(3, 10), 3);
    assertThatThrownBy(() -> PlainRdds.zipPartitions(a.rdd(), three.rdd(),
        (x, y) -> x, Long.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("4 and 3");
  }

  @Test
  void thePartitionerIsKeptOnlyWhenAsked() {
    List<Tuple2<Long, Long>> pairs = new ArrayList<>();
    for (long v : values(4, 200)) {
      pairs.add(new Tuple2<>(v, v));
    }
    RDD<Tuple2<Long, Long>> byKey = JavaPairRDD.fromJavaRDD(jsc().parallelize(pairs, 3))
        .partitionBy(new HashPartitioner(5)).rdd();
    assertThat(PlainRdds.mapPartitions(byKey, (i, it) -> it, true, Tuple2.class).partitioner()
        .get()).isEqualTo(new HashPartitioner(5));
    assertThat(PlainRdds.mapPartitions(byKey, (i, it) -> it, false, Tuple2.class).partitioner()
        .isEmpty()).isTrue();
  }

  /** The partitions a task computed (a captured list would be a copy of its own). */
  private static final List<Integer> COMPUTED = new CopyOnWriteArrayList<>();

  @Test
  void aLocallyCheckpointedResultIsReadAgainWithoutItsLineage() {
    JavaRDD<Long> in = jsc().parallelize(values(5, 3_000), 3);
    COMPUTED.clear();
    RDD<Long> doubled = PlainRdds.mapPartitions(in.rdd(), (i, it) -> {
      COMPUTED.add(i); // local mode: the task runs in this JVM
      List<Long> out = new ArrayList<>();
      it.forEachRemaining(x -> out.add(2 * x));
      return out.iterator();
    }, true, Long.class);
    doubled.localCheckpoint();
    long n = PlainRdds.count(doubled);
    assertThat(n).isEqualTo(3_000);
    assertThat(doubled.isCheckpointed()).isTrue();
    List<Long> again = PlainRdds.collect(doubled);
    assertThat(again).isEqualTo(in.map(x -> 2 * x).collect());
    assertThat(COMPUTED).as("each partition computed once").hasSize(3);
  }

  /** Not serializable: Spark's own operations refuse a function that captures one at once. */
  private static final class Unserializable {
    final long value = 7;
  }

  @Test
  void theFunctionIsNotInspectedUntilATaskNeedsIt() {
    JavaRDD<Long> in = jsc().parallelize(values(7, 10), 2);
    Unserializable captured = new Unserializable();
    assertThatThrownBy(() -> in.map(x -> x + captured.value))
        .hasMessageContaining("not serializable");
    // No cleaner: built without a look at the function, refused when the job ships it.
    RDD<Long> plain = PlainRdds.map(in.rdd(), x -> x + captured.value, Long.class);
    assertThatThrownBy(() -> PlainRdds.collect(plain))
        .hasMessageContaining("not serializable");
  }
}
