package io.gstm.core.batch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Abort causes are a typed kind; the names only spell it for people. */
class CounterKindTest {
  @Test
  void theAbortCausesAreTheAbortKindAndAreNamedSo() {
    for (Counter c : Counter.values()) {
      assertThat(c.isAbort()).as(c.name()).isEqualTo(c.kind() == Counter.Kind.ABORT);
      assertThat(c.name().startsWith("ABORT_")).as(c.name()).isEqualTo(c.isAbort());
    }
    assertThat(Counter.ABORT_KILLED.label()).isEqualTo("killed");
    assertThat(Counter.ABANDONED.kind()).isEqualTo(Counter.Kind.GIVEN_UP);
    assertThat(Counter.COMMITS.kind()).isEqualTo(Counter.Kind.COMMIT);
  }
}
