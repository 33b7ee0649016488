package io.gstm.spark.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.engine.EngineChoice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GstmConfTest {

  @Test
  void defaultsParseAndEveryKeyIsDocumented() {
    GstmSettings s = GstmConf.defaults();
    assertThat(s.executors().engine()).isEqualTo(EngineChoice.AUTO);
    assertThat(s.executors().requireGpu()).isFalse();
    assertThat(s.transactions().threadsPerBlock()).isEqualTo(256);
    for (ConfEntry<?> e : GstmConf.entries()) {
      assertThat(e.key()).startsWith(GstmConf.PREFIX);
      assertThat(e.doc()).isNotBlank();
      assertThat(GstmConf.markdown()).contains("`" + e.key() + "`");
    }
  }

  @Test
  void valuesAreParsedCaseInsensitively() {
    GstmSettings s = GstmConf.settings(Map.of("spark.gstm.engine", "JVM",
        "spark.gstm.concurrentGpuTasks", " 4 ", "spark.other", "ignored"));
    assertThat(s.executors().engine()).isEqualTo(EngineChoice.JVM);
    assertThat(s.executors().concurrentGpuTasks()).isEqualTo(4);
  }

  @Test
  void badValuesNameTheKeyAndTheLimit() {
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.threadsPerBlock", "100")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spark.gstm.threadsPerBlock")
        .hasMessageContaining("multiple of 32 between 32 and 1024")
        .hasMessageContaining("'100'");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.concurrentGpuTasks", "0")))
        .hasMessageContaining("spark.gstm.concurrentGpuTasks: must be between 1 and 64");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.retryLimit", "many")))
        .hasMessageContaining("spark.gstm.retryLimit: cannot parse 'many' as int");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.requireGpu", "yes")))
        .hasMessageContaining("spark.gstm.requireGpu");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.engine", "tpu")))
        .hasMessageContaining("spark.gstm.engine").hasMessageContaining("'tpu'");
    // The graph kernels are PR-STM's alone: no algorithm setting, so setting one is an error.
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.algorithm", "prstm")))
        .hasMessageContaining("unknown gstm setting(s) [spark.gstm.algorithm]");
    assertThatThrownBy(() -> GstmConf.settings(
        Map.of("spark.gstm.graph.driverExchangeLimit", "-1")))
        .hasMessageContaining("spark.gstm.graph.driverExchangeLimit: must be between 0 and "
            + "10000000");
    assertThatThrownBy(() -> GstmConf.settings(
        Map.of("spark.gstm.graph.driverExchangeLimit", "lots")))
        .hasMessageContaining("spark.gstm.graph.driverExchangeLimit: cannot parse 'lots'");
    org.assertj.core.api.Assertions.assertThat(GstmConf.settings(
        Map.of("spark.gstm.graph.driverExchangeLimit", "0")).graph().driverExchangeLimit())
        .isZero();
    org.assertj.core.api.Assertions.assertThat(GstmConf.defaults().graph().driverExchangeLimit())
        .isEqualTo(1_000_000);
    org.assertj.core.api.Assertions.assertThat(GstmConf.defaults().graph().threadsPerBlock())
        .isEqualTo(64);
    org.assertj.core.api.Assertions.assertThat(GstmConf.defaults().graph().vertexOrder())
        .isEqualTo("auto");
    org.assertj.core.api.Assertions.assertThat(GstmConf.settings(
        Map.of("spark.gstm.graph.vertexOrder", " Degree")).graph().vertexOrder())
        .isEqualTo("degree");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.graph.vertexOrder", "random")))
        .hasMessageContaining("spark.gstm.graph.vertexOrder")
        .hasMessageContaining("expected auto, degree or input");
    assertThatThrownBy(() -> GstmConf.settings(
        Map.of("spark.gstm.graph.threadsPerBlock", "48")))
        .hasMessageContaining("spark.gstm.graph.threadsPerBlock: must be a multiple of 32 "
            + "between 32 and 256");
  }

  @Test
  void unknownKeysAndContradictionsAreErrors() {
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.enigne", "gpu")))
        .hasMessageContaining("spark.gstm.enigne").hasMessageContaining("spark.gstm.engine");
    assertThatThrownBy(() -> GstmConf.settings(Map.of("spark.gstm.requireGpu", "true",
        "spark.gstm.engine", "jvm")))
        .hasMessageContaining("spark.gstm.requireGpu=true contradicts spark.gstm.engine=jvm");
  }

  @Test
  void checkedInConfigurationPageIsCurrent() throws Exception {
    Path page = Path.of(System.getProperty("gstm.docs.configuration",
        "../docs/configuration.md"));
    String expected = GstmConf.markdown();
    if (Boolean.getBoolean("gstm.regenerateDocs")) {
      Files.writeString(page, expected);
    }
    assertThat(Files.exists(page)).as(page + " exists").isTrue();
    assertThat(Files.readString(page))
        .as(page + " is generated from GstmConf; regenerate it with -Dgstm.regenerateDocs=true "
            + "(see the comment at its top)")
        .isEqualTo(expected);
  }
}
