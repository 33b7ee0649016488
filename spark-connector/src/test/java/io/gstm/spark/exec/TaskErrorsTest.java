package io.gstm.spark.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.spark.SparkException;
import org.apache.spark.errors.SparkCoreErrors;
import org.apache.spark.storage.RDDBlockId;
import org.junit.jupiter.api.Test;

class TaskErrorsTest {
  @Test
  void aMissingLocalCheckpointBlockIsALostCheckpointWhereverItIsInTheCauses() {
    Throwable missing = SparkCoreErrors.checkpointRDDBlockIdNotFoundError(new RDDBlockId(7, 2));
    assertThat(TaskErrors.lostCheckpoint(missing))
        .isEqualTo("[CHECKPOINT_RDD_BLOCK_ID_NOT_FOUND] Checkpoint block rdd_7_2 not found!");
    assertThat(TaskErrors.lostCheckpoint(new SparkException("Job aborted due to stage "
        + "failure", new RuntimeException(missing)))).contains("rdd_7_2 not found");
  }

  @Test
  void otherFailuresAreNot() {
    assertThat(TaskErrors.lostCheckpoint(new SparkException("Job aborted: "
        + "Checkpoint block rdd_7_2 not found"))).isNull();
    assertThat(TaskErrors.lostCheckpoint(new IllegalStateException("boom"))).isNull();
  }
}
