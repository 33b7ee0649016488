package io.gstm.core.workload.ds;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code examples/data-structures/*.gstm} are the programs the low-contention configs run. */
class DsExamplesTest {
  @ParameterizedTest
  @EnumSource(DsKind.class)
  void theExampleFileIsTheGeneratedText(DsKind kind) throws IOException {
    String file = Files.readString(Path.of("..", "examples", "data-structures",
        kind.label() + ".gstm"));
    String body = file.substring(file.indexOf('\n') + 1); // after the header comment
    DsConfig cfg = DsConfig.lowContention(kind, 1000, 256, 64, 1).withMaxWork(256);
    assertThat(body).isEqualTo(DsPrograms.text(cfg));
  }
}
