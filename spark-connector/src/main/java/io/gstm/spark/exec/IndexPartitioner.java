package io.gstm.spark.exec;

import org.apache.spark.Partitioner;

/**
 * A shuffle partitioner for records keyed by their target partition's index: the graph jobs
 * route vertices and edges with it, the state jobs transactions (their last index being the
 * cross-partition phase). Where a record goes is its producer's business.
 */
public final class IndexPartitioner extends Partitioner {
  private static final long serialVersionUID = 1L;
  private final int partitions;

  /** Over {@code partitions} partitions, keys {@code 0..partitions-1}. */
  public IndexPartitioner(int partitions) {
    this.partitions = partitions;
  }

  @Override
  public int numPartitions() {
    return partitions;
  }

  @Override
  public int getPartition(Object key) {
    return (Integer) key;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof IndexPartitioner b && b.partitions == partitions;
  }

  @Override
  public int hashCode() {
    return partitions;
  }
}
