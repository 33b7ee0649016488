package io.gstm.spark.graph;

import java.io.Serializable;

/**
 * What one partition's superstep leaves: its values (one per local vertex), the boundary
 * updates it sends (one chunk per target partition) and its counters.
 */
final class StepOutput implements Serializable {
  private static final long serialVersionUID = 1L;

  final int partition;
  final double[] values;
  /**
   * Per target partition: global ids and values of the vertices that improved here and that
   * partition also holds (or null).
   */
  final int[][] messageIds;
  final double[][] messageValues;
  final StepStats stats;

  StepOutput(int partition, double[] values, int[][] messageIds, double[][] messageValues,
      StepStats stats) {
    this.partition = partition;
    this.values = values;
    this.messageIds = messageIds;
    this.messageValues = messageValues;
    this.stats = stats;
  }

  /** A packed batch of boundary updates for one partition. */
  record Messages(int[] ids, double[] values) implements Serializable {}
}
