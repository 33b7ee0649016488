package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.spark.SharedSpark;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import scala.reflect.ClassTag$;

/**
 * Every partition of a parent computed in one task: the results in partition order whatever
 * thread computed each, the parent's own code run with the task's context and class loader (a
 * whole-stage generated plan and a shuffle's read need them), and a partition's failure failing
 * the task.
 */
class InTaskPartitionsTest {
  @RegisterExtension
  static final SharedSpark session = new SharedSpark();

  private static final InTaskPartitions.Each<Long, long[]> SUMMARY = (k, it) -> {
    long count = 0;
    long sum = 0;
    while (it.hasNext()) {
      sum += it.next();
      count++;
    }
    TaskContext tc = TaskContext.get();
    return List.of(new long[] {k, count, sum, tc == null ? -1 : tc.stageId(),
        Thread.currentThread().getId(),
        System.identityHashCode(Thread.currentThread().getContextClassLoader())}).iterator();
  };

  private static <T, R> List<R> collect(JavaRDD<T> parent, InTaskPartitions.Each<T, R> each) {
    return new JavaRDD<R>(new InTaskPartitions<>(parent.rdd(), each,
        ClassTag$.MODULE$.apply(Object.class)), ClassTag$.MODULE$.apply(Object.class)).collect();
  }

  @Test
  void everyPartitionInOrderInOneTaskWithItsContext() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(session.spark().sparkContext());
    int parts = 24;
    List<Long> values = LongStream.range(0, 100_000).boxed().toList();
    JavaRDD<Long> parent = jsc.parallelize(values, parts);
    List<long[]> out = collect(parent, SUMMARY);
    assertThat(out).hasSize(parts);
    List<Long> counts = new ArrayList<>();
    long total = 0;
    java.util.Set<Long> threads = new java.util.HashSet<>();
    java.util.Set<Long> loaders = new java.util.HashSet<>();
    for (int k = 0; k < parts; k++) {
      assertThat(out.get(k)[0]).as("partition order").isEqualTo(k);
      assertThat(out.get(k)[3]).as("the task's context on its thread").isGreaterThanOrEqualTo(0);
      counts.add(out.get(k)[1]);
      total += out.get(k)[2];
      threads.add(out.get(k)[4]);
      loaders.add(out.get(k)[5]);
    }
    assertThat(loaders).as("the task's class loader on every thread").hasSize(1);
    assertThat(counts.stream().mapToLong(Long::longValue).sum()).isEqualTo(100_000);
    assertThat(total).isEqualTo(100_000L * 99_999 / 2);
    // The machine's cores share the partitions (one thread where there is one core).
    assertThat(threads.size()).isBetween(1,
        java.util.concurrent.ForkJoinPool.getCommonPoolParallelism() + 1);
  }

  @Test
  void aShufflesOutputAndGeneratedCodeAreReadOnThePoolsThreads() throws Exception {
    // A whole-stage generated plan over a shuffle: both ask for the task's context, and count
    // what they read in its metrics (each partition in its own, added to the task's at its end).
    JavaRDD<InternalRow> rows = session.spark().range(0, 50_000, 1, 3).repartition(7)
        .selectExpr("id * 2 as twice").queryExecution().toRdd().toJavaRDD();
    java.util.concurrent.atomic.AtomicLong shuffleRecords = new java.util.concurrent.atomic
        .AtomicLong();
    org.apache.spark.scheduler.SparkListener listener =
        new org.apache.spark.scheduler.SparkListener() {
          @Override
          public void onTaskEnd(org.apache.spark.scheduler.SparkListenerTaskEnd end) {
            if (end.taskMetrics() != null) {
              shuffleRecords.addAndGet(end.taskMetrics().shuffleReadMetrics().recordsRead());
            }
          }
        };
    session.spark().sparkContext().addSparkListener(listener);
    List<Long> sums;
    try {
      sums = collect(rows, (InTaskPartitions.Each<InternalRow, Long>) (k, it) -> {
        long s = 0;
        while (it.hasNext()) {
          s += it.next().getLong(0);
        }
        return List.of(s).iterator();
      });
      session.spark().sparkContext().listenerBus().waitUntilEmpty();
    } finally {
      session.spark().sparkContext().removeSparkListener(listener);
    }
    assertThat(sums).hasSize(7);
    assertThat(sums.stream().mapToLong(Long::longValue).sum()).isEqualTo(50_000L * 49_999);
    assertThat(shuffleRecords.get()).as("the shuffle's records, in the one task's metrics")
        .isEqualTo(50_000);
  }

  @Test
  void aPartitionThatFailsFailsTheTaskWithItsError() {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(session.spark().sparkContext());
    JavaRDD<Long> parent = jsc.parallelize(LongStream.range(0, 1_000).boxed().toList(), 8);
    InTaskPartitions.Each<Long, Long> failing = (k, it) -> {
      if (k == 5) {
        throw new IllegalArgumentException("partition 5 refused");
      }
      Iterator<Long> none = List.<Long>of().iterator();
      return none;
    };
    assertThatThrownBy(() -> collect(parent, failing)).hasStackTraceContaining(
        "partition 5 refused");
    // The pool's threads hold no context afterwards: a later run sees only its own.
    assertThat(collect(parent, SUMMARY)).hasSize(8);
  }
}
