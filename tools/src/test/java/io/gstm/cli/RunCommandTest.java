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
