package io.gstm.spark.exec;

import java.io.Closeable;
import java.util.Properties;
import org.apache.spark.TaskContext;
import org.apache.spark.executor.ShuffleReadMetrics;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.executor.TempShuffleReadMetrics;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.metrics.source.Source;
import org.apache.spark.resource.ResourceInformation;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.util.AccumulatorV2;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.TaskFailureListener;
import scala.Function0;
import scala.Option;
import scala.collection.immutable.Map;
import scala.collection.immutable.Seq;

/**
 * The context of one partition that a task computes on a thread of its own ({@link
 * InTaskPartitions}): everything is the task's (its identity, listeners, kill flag, memory
 * manager, local properties), except its metrics, which are the partition's own while it runs
 * and are added to the task's when it ends ({@link #addMetricsToTask}). Spark's generated code
 * counts every row it hands over in the input metrics; sixteen threads writing one task's
 * counters made reading a generated input five times slower.
 */
final class PartitionContext extends TaskContext {
  private static final long serialVersionUID = 1L;
  private final TaskContext task;
  private final TaskMetrics own = new TaskMetrics();

  PartitionContext(TaskContext task) {
    this.task = task;
  }

  /** This partition's input, shuffle reads and spills, added to the task's metrics. */
  void addMetricsToTask() {
    TaskMetrics to = task.taskMetrics();
    to.inputMetrics().incRecordsRead(own.inputMetrics().recordsRead());
    to.inputMetrics().incBytesRead(own.inputMetrics().bytesRead());
    to.incMemoryBytesSpilled(own.memoryBytesSpilled());
    to.incDiskBytesSpilled(own.diskBytesSpilled());
    own.mergeShuffleReadMetrics();
    ShuffleReadMetrics r = own.shuffleReadMetrics();
    if (r.totalBlocksFetched() > 0 || r.recordsRead() > 0) {
      TempShuffleReadMetrics t = to.createTempShuffleReadMetrics();
      t.incRemoteBlocksFetched(r.remoteBlocksFetched());
      t.incLocalBlocksFetched(r.localBlocksFetched());
      t.incRemoteBytesRead(r.remoteBytesRead());
      t.incRemoteBytesReadToDisk(r.remoteBytesReadToDisk());
      t.incLocalBytesRead(r.localBytesRead());
      t.incFetchWaitTime(r.fetchWaitTime());
      t.incRecordsRead(r.recordsRead());
      to.mergeShuffleReadMetrics(); // as a shuffle's reader does when it has read all
    }
  }

  @Override
  public TaskMetrics taskMetrics() {
    return own;
  }

  @Override
  public boolean isCompleted() {
    return task.isCompleted();
  }

  @Override
  public boolean isFailed() {
    return task.isFailed();
  }

  @Override
  public boolean isInterrupted() {
    return task.isInterrupted();
  }

  @Override
  public TaskContext addTaskCompletionListener(TaskCompletionListener listener) {
    task.addTaskCompletionListener(listener);
    return this;
  }

  @Override
  public TaskContext addTaskFailureListener(TaskFailureListener listener) {
    task.addTaskFailureListener(listener);
    return this;
  }

  @Override
  public int stageId() {
    return task.stageId();
  }

  @Override
  public int stageAttemptNumber() {
    return task.stageAttemptNumber();
  }

  @Override
  public int partitionId() {
    return task.partitionId();
  }

  @Override
  public int numPartitions() {
    return task.numPartitions();
  }

  @Override
  public int attemptNumber() {
    return task.attemptNumber();
  }

  @Override
  public long taskAttemptId() {
    return task.taskAttemptId();
  }

  @Override
  public String getLocalProperty(String key) {
    return task.getLocalProperty(key);
  }

  @Override
  public int cpus() {
    return task.cpus();
  }

  @Override
  public Map<String, ResourceInformation> resources() {
    return task.resources();
  }

  @Override
  public java.util.Map<String, ResourceInformation> resourcesJMap() {
    return task.resourcesJMap();
  }

  @Override
  public Seq<Source> getMetricsSources(String sourceName) {
    return task.getMetricsSources(sourceName);
  }

  @Override
  public void killTaskIfInterrupted() {
    task.killTaskIfInterrupted();
  }

  @Override
  public Option<String> getKillReason() {
    return task.getKillReason();
  }

  @Override
  public TaskMemoryManager taskMemoryManager() {
    return task.taskMemoryManager();
  }

  @Override
  public void registerAccumulator(AccumulatorV2<?, ?> a) {
    task.registerAccumulator(a);
  }

  @Override
  public void setFetchFailed(FetchFailedException fetchFailed) {
    task.setFetchFailed(fetchFailed);
  }

  @Override
  public void markInterrupted(String reason) {
    task.markInterrupted(reason);
  }

  @Override
  public void markTaskFailed(Throwable error) {
    task.markTaskFailed(error);
  }

  @Override
  public void markTaskCompleted(Option<Throwable> error) {
    task.markTaskCompleted(error);
  }

  @Override
  public Option<FetchFailedException> fetchFailed() {
    return task.fetchFailed();
  }

  @Override
  public Properties getLocalProperties() {
    return task.getLocalProperties();
  }

  @Override
  public boolean interruptible() {
    return task.interruptible();
  }

  @Override
  public void pendingInterrupt(Option<Thread> threadToInterrupt, String reason) {
    task.pendingInterrupt(threadToInterrupt, reason);
  }

  @Override
  public <T extends Closeable> T createResourceUninterruptibly(Function0<T> resourceBuilder) {
    return task.createResourceUninterruptibly(resourceBuilder);
  }
}
