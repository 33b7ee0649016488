package io.gstm.dist;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An application of one executor on the standalone cluster (a cluster of one): a one-partition
 * TxState reads every input partition in its one task there, on the executor JVM's pool threads,
 * which must see the task's context and the class loader of the application's jar.
 */
class OneExecutorIT {
  @RegisterExtension
  static final ClusterSession cluster = new ClusterSession(1);

  @Test
  void aOnePartitionStateReadsAShufflesRowsInItsTaskOnTheExecutor() {
    assertThat(cluster.spark().sparkContext().statusTracker().getExecutorInfos())
        .as("the driver and one executor").hasSize(2);
    assertThat(Workloads.rowsOnePartitionRun(cluster.spark()))
        .isEqualTo(Workloads.balancesAfter(0));
    assertThat(Workloads.cachedOnePartitionRun(cluster.spark()))
        .as("and its cached batches decoded there").isEqualTo(Workloads.balancesAfter(0));
  }
}
