package io.gstm.cli;

import static io.gstm.cli.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.bench.ProgramTrials;
import org.junit.jupiter.api.Test;

/** {@code gstm bench-ds}: a table per structure, every row verified; bad input is status 2. */
class BenchDsCommandTest {
  @Test
  void printsATablePerStructureWithEveryRowVerified() {
    String out = run(0, "bench-ds", "--engine", "jvm", "--transactions", "2000", "--reps", "1",
        "--warmups", "0", "--blocks", "4", "--threads-per-block", "32", "--history");
    assertThat(out).contains("bound: ", "### queue", "### hashmap", "### tree", "### skiplist",
        "| full | prstm |", "| low | csmv/4v |", "| full | gpu-stm |", "| low | blocking |",
        "| full | obstruction-free |", "aborts per tx").doesNotContain("FAILED");
    // Every structure on all five algorithms, at full and low contention.
    assertThat(out.lines().filter(l -> l.endsWith("| OK |")).count()).isEqualTo(40);
    assertThat(out).contains("aborts per tx by cause");
  }

  /** The paper's figures: the Cederman STMs once per backoff; the others once. */
  @Test
  void backoffsGiveTheCedermanStmsARowEach() {
    String out = run(0, "bench-ds", "--engine", "jvm", "--structures", "queue",
        "--contention", "full", "--algorithms", "prstm,blocking,obstruction-free",
        "--backoffs", "none,linear,exponential:10:1000", "--transactions", "1000", "--reps",
        "1", "--warmups", "0", "--blocks", "4", "--threads-per-block", "32");
    for (String a : new String[] {"prstm", "blocking:none", "blocking:linear",
        "blocking:exponential:10:1000", "obstruction-free:none", "obstruction-free:linear",
        "obstruction-free:exponential:10:1000"}) {
      assertThat(out).contains("| full | " + a + " |");
    }
    assertThat(out.lines().filter(l -> l.endsWith("| OK |")).count()).isEqualTo(7);
    assertThat(run(2, "bench-ds", "--engine", "jvm", "--backoffs", "cubic"))
        .contains("backoffs: unknown backoff 'cubic'").doesNotContain("bound:");
  }

  @Test
  void causesArePerTransactionAndLeaveOutTheRare() {
    long[] c = new long[io.gstm.core.batch.Counter.COUNT];
    c[io.gstm.core.batch.Counter.ABORT_VALIDATION.ordinal()] = 120;
    c[io.gstm.core.batch.Counter.ABORT_KILLED.ordinal()] = 10;
    c[io.gstm.core.batch.Counter.ABORT_READ_LOCKED.ordinal()] = 0;
    c[io.gstm.core.batch.Counter.LOCKS_STOLEN.ordinal()] = 3;
    c[io.gstm.core.batch.Counter.COMMITS.ordinal()] = 1000;
    assertThat(ProgramTrials.byCause(c, 1000)).isEqualTo(
        "validation 0.120, killed 0.010, locks stolen 0.003");
    assertThat(ProgramTrials.byCause(new long[c.length], 1000)).isEqualTo("-");
  }

  @Test
  void badInputNamesTheParameterBeforeAnythingRuns() {
    String[][] cases = {
        {"--structures", "heap", "structures: unknown structure 'heap'"},
        {"--algorithms", "tl2", "algorithms: unknown algorithm 'tl2'"},
        {"--contention", "medium", "contention: unknown level 'medium'"},
        {"--transactions", "0", "transactions must be in 1.."},
        {"--local-work", "-1", "local-work must be in 0.."},
        {"--reps", "0", "reps must be at least 1"},
        {"--blocks", "0", "blocks must be at least 1"},
        {"--urgent-after", "0", "urgent-after must be at least 1"}};
    for (String[] c : cases) {
      assertThat(run(2, "bench-ds", "--engine", "jvm", c[0], c[1])).as(c[0]).contains(c[2])
          .doesNotContain("bound:");
    }
  }
}
