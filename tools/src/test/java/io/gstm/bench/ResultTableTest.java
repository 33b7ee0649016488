package io.gstm.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultTableTest {
  @TempDir Path dir;

  @Test
  void roundTripsThroughCsv() throws Exception {
    ResultTable t = new ResultTable(List.of("name", "x", "rate", "ok"));
    t.add("a, quoted", 2, 1.5e9, true);
    t.add("b", 4, 0.25, false);
    Path csv = dir.resolve("t.csv");
    t.writeCsv(csv);

    ResultTable back = ResultTable.readCsv(csv);
    assertThat(back.columns()).containsExactly("name", "x", "rate", "ok");
    assertThat(back.value(0, "name")).isEqualTo("a, quoted");
    assertThat(back.number(0, "rate")).isEqualTo(1.5e9);
    assertThat(back.number(1, "x")).isEqualTo(4);
    assertThat(back.value(1, "ok")).isEqualTo("false");
    assertThat(t.toMarkdown()).startsWith("| name | x | rate | ok |\n|---|---|---|---|\n")
        .contains("| b | 4 | 0.2500 | false |");
  }

  @Test
  void badInputNamesWhatIsWrong() {
    ResultTable t = new ResultTable(List.of("a", "b"));
    assertThatThrownBy(() -> t.add(1)).hasMessageContaining("1 values")
        .hasMessageContaining("2 columns");
    t.add("x", 1);
    assertThatThrownBy(() -> t.number(0, "a")).hasMessageContaining("column a, row 0");
    assertThatThrownBy(() -> t.value(0, "c")).hasMessageContaining("no column 'c'");
    assertThatThrownBy(() -> Scale.parse("huge")).hasMessageContaining("size: unknown size "
        + "'huge'");
    assertThatThrownBy(() -> Experiments.byName("nope"))
        .hasMessageContaining("experiment: unknown experiment 'nope'")
        .hasMessageContaining("prstm-size");
  }
}
