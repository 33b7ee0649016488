package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.program.ProgramSet;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.kmeans.KMeansPrograms;
import io.gstm.core.workload.pc.ProducerConsumerPrograms;
import io.gstm.core.workload.vacation.VacationPrograms;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gstm run} on the warehouse example, its bad inputs, and the example files. */
class RunCommandTest {
  private static final Path EXAMPLES = Path.of("..", "examples");

  private static String run(int expectedStatus, String... args) {
    return CliRun.run(expectedStatus, args);
  }


  @Test
  void warehouseRunsAndWritesStateAndOutcomes(@TempDir Path dir) throws IOException {
    Path state = dir.resolve("state.csv");
    Path outcomes = dir.resolve("outcomes.csv");
    String out = run(0, CliRun.warehouse(state, outcomes));
    assertThat(out).contains("engine: jvm", "history checker: OK", "serial replay: OK",
        "COMMITTED=7", "USER_ABORT=1");
    List<String> stock = Files.readAllLines(state);
    assertThat(stock.get(0)).isEqualTo("stock");
    // Moves conserve stock; two restocks add 3 + 20 to the 35 there were.
    assertThat(stock.subList(1, stock.size()).stream().mapToInt(Integer::parseInt).sum())
        .isEqualTo(58);
    List<String> rows = Files.readAllLines(outcomes);
    assertThat(rows.get(0)).isEqualTo("tx,program,outcome,semantic_conflicts,abort_code,left,"
        + "total");
    assertThat(rows).hasSize(9);
    assertThat(rows.get(4)).startsWith("3,move,USER_ABORT,0,1,");
    assertThat(rows.get(1)).isEqualTo("0,move,COMMITTED,0,,6,");
  }

  @Test
  void badInputsNameTheFileLineAndColumn(@TempDir Path dir) throws IOException {
    Path program = EXAMPLES.resolve("warehouse/warehouse.gstm");
    Path stock = EXAMPLES.resolve("warehouse/stock.csv");
    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "program,src,dst,qty\nmove,0,1,four\n");
    assertThat(run(2, "run", "--engine", "jvm", "--program", program.toString(),
        "--state", stock.toString(), "--transactions", bad.toString()))
        .contains("bad.csv, line 2, column 'qty': 'four' is not a int32");
    Files.writeString(bad, "program,src,dst,qty\nship,0,1,4\n");
    assertThat(run(2, "run", "--engine", "jvm", "--program", program.toString(),
        "--state", stock.toString(), "--transactions", bad.toString()))
        .contains("bad.csv, line 2: program 'ship' is not in this set");
    Files.writeString(bad, "program,src,qty\nmove,0,4\n");
    assertThat(run(2, "run", "--engine", "jvm", "--program", program.toString(),
        "--state", stock.toString(), "--transactions", bad.toString()))
        .contains("column 'dst' is empty or missing, and program 'move' reads it");
    Path noRegion = dir.resolve("state.csv");
    Files.writeString(noRegion, "shelf\n1\n2\n");
    assertThat(run(2, "run", "--engine", "jvm", "--program", program.toString(),
        "--state", noRegion.toString(), "--transactions",
        EXAMPLES.resolve("warehouse/moves.csv").toString()))
        .contains("no column for region 'stock'");
    Path broken = dir.resolve("broken.gstm");
    Files.writeString(broken, "program p(x: int32) regions stock: int32 {\n  stock[x] = y;\n}\n");
    assertThat(run(2, "run", "--engine", "jvm", "--program", broken.toString(),
        "--state", stock.toString(), "--transactions", bad.toString()))
        .contains("gstm: program 'p', line 2, column 14: 'y' is not declared");
  }

  /**
   * Inputs that used to be read silently or with a misleading error: each is refused with status
   * 2 and one line naming the file and the place (without its check, the first two ran with exit
   * 0, and the empty files were blamed on a missing column).
   */
  @Test
  void strictInputsAreRefused(@TempDir Path dir) throws IOException {
    String program = EXAMPLES.resolve("warehouse/warehouse.gstm").toString();
    String stock = EXAMPLES.resolve("warehouse/stock.csv").toString();
    String moves = EXAMPLES.resolve("warehouse/moves.csv").toString();
    Path bad = dir.resolve("bad.csv");
    Files.writeString(bad, "program,src,dst,qty\nmove,0,1,4\nmove,1,3,6,9\n");
    assertOneLine(run(2, "run", "--engine", "jvm", "--program", program, "--state", stock,
        "--transactions", bad.toString()))
        .contains("bad.csv, line 3: 5 cells but the header has 4 columns");
    Path wideState = dir.resolve("state.csv");
    Files.writeString(wideState, "stock\n10\n0,7\n");
    assertOneLine(run(2, "run", "--engine", "jvm", "--program", program, "--state",
        wideState.toString(), "--transactions", moves))
        .contains("state.csv, line 3: 2 cells but the header has 1 column");
    Path empty = dir.resolve("empty.csv");
    Files.writeString(empty, "");
    // warehouse.gstm holds two programs: the old error asked for a 'program' column.
    assertOneLine(run(2, "run", "--engine", "jvm", "--program", program, "--state", stock,
        "--transactions", empty.toString()))
        .contains("empty.csv: the file is empty (expected a header row: 'program'")
        .doesNotContain("is needed to choose");
    assertOneLine(run(2, "run", "--engine", "jvm", "--program", program, "--state",
        empty.toString(), "--transactions", moves))
        .contains("empty.csv: the file is empty (expected a header row: a column per region");
    Path big = dir.resolve("big.gstm");
    Files.writeString(big, "program p(x: int32) regions stock: int32 {\n"
        + "  stock[x] = stock[x] + 3000000000;\n}\n");
    assertOneLine(run(2, "run", "--engine", "jvm", "--program", big.toString(), "--state",
        stock, "--transactions", moves))
        .contains("gstm: program 'p', line 2, column 25: integer literal '3000000000' does not "
            + "fit in int32: write 3000000000L for an int64");
  }

  /** The output of a refused run: one line, no stack trace. */
  private static org.assertj.core.api.AbstractStringAssert<?> assertOneLine(String out) {
    assertThat(out.strip().lines()).as(out).hasSize(1);
    return assertThat(out);
  }

  @Test
  void benchProgramsComparesBothSidesAndVerifies() {
    String out = run(0, "bench-programs", "--engine", "jvm", "--accounts", "2000",
        "--customers", "500", "--threads-per-block", "32", "--blocks", "2", "--tx-per-thread",
        "2", "--reps", "1", "--warmups", "0", "--algorithms", "prstm,csmv");
    assertThat(out).contains("| bank k=2 | prstm |", "| bank k=2, checked | prstm |",
        "| vacation | prstm |", "| bank k=2 | csmv/4v |", "attempts/commit")
        .doesNotContain("FAILED");
  }

  /** The example files compile and are what the built-in generators write. */
  @Test
  void exampleProgramsCompileAndAreCurrent() throws IOException {
    // Each file is a header comment and then what its generator writes.
    assertThat(body("bank/bank.gstm")).endsWith(BankPrograms.text(2, false, 0));
    assertThat(body("vacation/vacation.gstm")).endsWith(VacationPrograms.text(1, 1000));
    assertThat(body("producer-consumer/producer-consumer.gstm"))
        .endsWith(ProducerConsumerPrograms.text(1024));
    assertThat(body("kmeans/kmeans.gstm")).endsWith(KMeansPrograms.text(2, 4, 1024));
    for (String f : List.of("bank/bank.gstm", "vacation/vacation.gstm",
        "producer-consumer/producer-consumer.gstm", "kmeans/kmeans.gstm",
        "warehouse/warehouse.gstm")) {
      assertThat(ProgramSet.parse(Files.readString(EXAMPLES.resolve(f))).size()).isPositive();
    }
  }

  private static String body(String file) throws IOException {
    return Files.readString(EXAMPLES.resolve(file));
  }
}
