package io.gstm.spark.graph;

import org.apache.spark.Partitioner;

/**
 * Where extra vertex ids (the source, {@code setVertices}) go: partition {@code v mod P}; and a
 * partitioner for records keyed by partition index. (Edges stay where they are read.)
 */
final class Partitioning {
  private Partitioning() {}

  static int owner(int vertex, int partitions) {
    return vertex % partitions;
  }

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
