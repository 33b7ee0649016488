package io.gstm.core.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.engine.Engine;
import io.gstm.core.testing.PublicApi;
import io.gstm.core.testing.fixture.Wide;
import org.junit.jupiter.api.Test;

/**
 * No public constructor or method of core takes more than {@value #MAX} positional parameters
 * (issue 18): past that a call reads as a row of numbers; configurations have builders, results
 * group their fields in small records.
 */
class PublicParametersTest {
  static final int MAX = PublicApi.MAX_PARAMETERS;

  @Test
  void noPublicMemberOfCoreTakesMoreThanSeven() {
    PublicApi.assertNoMemberTakesTooMany("core", Engine.class, "io.gstm");
  }

  @Test
  void theScanFindsPublicMembersOfPublicClassesOnly() {
    assertThat(PublicApi.membersWithMoreThan(MAX, Wide.class, "io.gstm.core.testing.fixture"))
        .containsExactly(
            "8 io.gstm.core.testing.fixture.Wide.<init>(int, int, int, int, int, int, int, int)",
            "8 io.gstm.core.testing.fixture.Wide.eight(int, int, int, int, int, int, int, long)");
  }
}
