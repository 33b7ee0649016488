package io.gstm.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Each {@code withX} changes its own option and keeps the others. */
class RunOptionsTest {
  @Test
  void resultsAreBroughtBackUnlessLeftOut() {
    assertThat(RunOptions.defaults().results()).isTrue();
    assertThat(new RunOptions(5, true, SemanticPolicy.RETRY_IN_PLACE, 3, 7).results()).isTrue();
    RunOptions without = RunOptions.defaults().withMaxRetries(9).withoutResults();
    assertThat(without.results()).isFalse();
    assertThat(without.maxRetries()).isEqualTo(9);
    RunOptions changed = without.withHistory(true).withPolicy(SemanticPolicy.RETRY_IN_PLACE)
        .withSemanticLimit(4).withUrgentAfter(3).withMaxRetries(2);
    assertThat(changed.results()).as("kept through every other change").isFalse();
    assertThat(changed).isEqualTo(new RunOptions(2, true, SemanticPolicy.RETRY_IN_PLACE, 4, 3,
        false));
  }

  @Test
  void everyOutputIsBroughtBackUnlessOnlyTheCommittedOnesAreAsked() {
    assertThat(RunOptions.defaults().allOutputs()).isTrue();
    assertThat(RunOptions.defaults().withoutResults().allOutputs()).isTrue();
    RunOptions committed = RunOptions.defaults().withCommittedOutputsOnly();
    assertThat(committed.allOutputs()).isFalse();
    RunOptions changed = committed.withoutResults().withHistory(true).withSemanticLimit(4)
        .withPolicy(SemanticPolicy.RETRY_IN_PLACE).withUrgentAfter(3).withMaxRetries(2);
    assertThat(changed.allOutputs()).as("kept through every other change").isFalse();
    assertThat(changed.results()).isFalse();
  }
}
