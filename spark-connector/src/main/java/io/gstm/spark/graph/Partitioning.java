package io.gstm.spark.graph;

import org.apache.spark.Partitioner;

/**
 * A partitioner for records keyed by partition index (where a vertex or an edge goes is
 * {@link VertexPlacement}'s and {@link EdgePlacement}'s business).
 */
final class Partitioning {
  private Partitioning() {}

  /** Routes a record keyed by its target partition index to that partition. */
  static final class ByIndex extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int partitions;

    ByIndex(int partitions) {
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
      return o instanceof ByIndex b && b.partitions == partitions;
    }

    @Override
    public int hashCode() {
      return partitions;
    }
  }
}
