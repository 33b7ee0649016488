package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.StoreContents;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.SeedTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gstm run --record-order}: on random program sets run concurrently (sometimes pre-sorted,
 * sometimes in several batches), replaying the committed transactions one at a time in the
 * recorded serial order, from the initial state, on one thread, commits every one of them again
 * with the outputs the run wrote, and ends in exactly the state it wrote.
 */
class RecordOrderTest {
  /** One worker and one thread in the grid: the transactions run in the batch's order. */
  private static final JvmEngine SERIAL = new JvmEngine(1);

  @AfterAll
  static void close() {
    SERIAL.close();
  }

  /** A row of the outcomes file, by the header's column names. */
  private record Row(List<String> header, String[] cells) {
    String get(String column) {
      return cells[header.indexOf(column)];
    }
  }

  @SeedTest(seeds = 30)
  void theRecordedOrderReplaysToTheWrittenStateAndOutputs(long seed, @TempDir Path dir)
      throws IOException {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 300, 8, 2, false);
    Path program = Files.writeString(dir.resolve("p.gstm"), c.text());
    Path state = Files.writeString(dir.resolve("state.csv"), RandomCaseCsv.state(c));
    Path txs = Files.writeString(dir.resolve("txs.csv"), RandomCaseCsv.transactions(c, true));
    Path outState = dir.resolve("out.csv");
    Path outcomes = dir.resolve("outcomes.csv");
    List<String> args = new ArrayList<>(List.of("run", "--engine", "jvm", "--program",
        program.toString(), "--state", state.toString(), "--transactions", txs.toString(),
        "--out-state", outState.toString(), "--outcomes", outcomes.toString(),
        "--threads-per-block", "8", "--semantic-limit", "4", "--record-order"));
    if (seed % 2 == 0) {
      args.add("--presort");
    }
    if (seed % 3 == 0) {
      args.addAll(List.of("--batch-size", "70")); // one order across five batches
    }
    CliRun.run(0, args.toArray(new String[0]));

    List<String> lines = Files.readAllLines(outcomes);
    List<String> header = List.of(lines.get(0).split(",", -1));
    assertThat(header).containsSubsequence("abort_code", "serial");
    List<Row> committed = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      Row row = new Row(header, line.split(",", -1));
      boolean isCommitted = row.get("outcome").equals(Outcome.COMMITTED.name());
      assertThat(row.get("serial").isEmpty()).as(line).isEqualTo(!isCommitted);
      if (isCommitted) {
        committed.add(row);
      }
    }
    committed.sort(Comparator.comparingLong(r -> Long.parseLong(r.get("serial"))));
    assertThat(committed).extracting(r -> r.get("serial")).doesNotHaveDuplicates();

    long[][] written = ProgramCsv.readState(outState, c.programs(), 1).contents();
    int m = committed.size();
    if (m == 0) { // nothing committed (every program faults early, say): nothing changed
      assertThat(StoreContents.firstDifference(c.layout(), written, c.initial())).isNull();
      return;
    }
    // The committed transactions as a batch in the recorded order, on one thread.
    int[] rowOf = new int[m];
    int[] types = new int[m];
    for (int i = 0; i < m; i++) {
      rowOf[i] = Integer.parseInt(committed.get(i).get("tx"));
      types[i] = c.programs().type(committed.get(i).get("program"));
    }
    ProgramBatch.Builder b = ProgramBatch.builder(c.programs()).types(types).grid(1, 1);
    for (Column col : c.batch().columns()) {
      long[] bits = new long[m];
      for (int i = 0; i < m; i++) {
        bits[i] = col.bits(rowOf[i]);
      }
      b.column(Column.ofBits(col.name(), col.type(), bits));
    }
    try (TxStore store = SERIAL.createStore(c.layout())) {
      StoreContents.write(store, c.initial());
      ProgramResult replay = SERIAL.run(store, b.build(), RunOptions.defaults());
      for (int i = 0; i < m; i++) {
        String what = "serial " + committed.get(i).get("serial") + ", tx " + rowOf[i] + "\n"
            + c.text();
        assertThat(replay.outcome(i)).as(what).isEqualTo(Outcome.COMMITTED);
        assertThat(replay.postponements(i)).as(what).isZero();
        CompiledProgram p = c.programs().get(types[i]);
        for (var out : p.outputs()) {
          assertThat(ProgramCsv.format(replay.outputBits(i, out.name()), out.type()))
              .as("output %s of %s", out.name(), what)
              .isEqualTo(committed.get(i).get(out.name()));
        }
      }
      assertThat(StoreContents.firstDifference(c.layout(), written, StoreContents.read(store)))
          .as("the state gstm run wrote vs the serial replay\n%s", c.text()).isNull();
    }
  }

  /**
   * The warehouse example: its committed transactions are numbered from 0, one each; the audit
   * {@code count} uses sum(), whose range read the history does not record, so it has no place.
   */
  @Test
  void warehouseCommitsAreNumberedAndTheAuditHasNoPlace(@TempDir Path dir) throws IOException {
    Path outcomes = dir.resolve("outcomes.csv");
    CliRun.run(0, CliRun.warehouse(dir.resolve("state.csv"), outcomes, "--record-order"));
    List<String> lines = Files.readAllLines(outcomes);
    assertThat(lines.get(0)).isEqualTo("tx,program,outcome,semantic_conflicts,abort_code,serial,"
        + "left,total");
    List<Long> places = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] cells = line.split(",", -1);
      boolean placed = cells[2].equals("COMMITTED") && !cells[1].equals("count");
      assertThat(cells[5].isEmpty()).as(line).isEqualTo(!placed);
      if (placed) {
        places.add(Long.parseLong(cells[5]));
      }
    }
    assertThat(places).hasSize(6);
    long[] sorted = places.stream().mapToLong(Long::longValue).sorted().toArray();
    assertThat(Arrays.stream(sorted).allMatch(p -> p >= 0 && p <= 6)).isTrue();
  }
}
