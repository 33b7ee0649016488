package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.cuda.ptx.ProgramPtx;
import io.gstm.core.graph.ProgramRelaxationTest;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Program;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.graph.GraphPrograms;
import org.junit.jupiter.api.Test;

/**
 * Where compiled programs lay their sets out at compile time (ProgramPtx's fixed slots): each
 * access's slots, read from the program's code alone, and the programs left to the general
 * code. No GPU and no template: the layout is the generator's decision.
 */
class FixedSlotsTest {
  /** The layout of {@code text}'s first program over {@code layout}, at its binding's capacity. */
  private static String fixed(String text, StoreLayout layout) {
    return fixed(text, layout, false);
  }

  /** {@link #fixed(String, StoreLayout)}, as a relaxation's ordinary attempt when {@code
   *  relaxation} (its first column the edge's source). */
  private static String fixed(String text, StoreLayout layout, boolean relaxation) {
    CompiledProgram program = Program.parse(text).get(0).compile();
    ProgramBatch.Builder batch =
        ProgramBatch.builder(ProgramSet.of(program)).all(program.name(), 1);
    for (Program.Param p : program.params()) {
      batch.column(Column.ofBits(p.name(), p.type(), new long[Math.max(1, p.length())]));
    }
    ProgramBinding binding = ProgramBinding.bind(batch.build(), layout, Algorithm.prStm());
    return ProgramPtx.fixedSlots(ProgramImage.build(binding).words(), binding.capacity(),
        relaxation).get(0);
  }

  private static StoreLayout words(String... names) {
    RegionSpec[] specs = new RegionSpec[names.length];
    for (int i = 0; i < names.length; i++) {
      specs[i] = new RegionSpec(names[i], RegionType.INT64, 64, 1);
    }
    return StoreLayout.of(specs);
  }

  @Test
  void shortestPathsUnderRowLocksHoldTwoLocksAndWriteThreeWords() {
    // dist[src], dist[dst]; then dist, parent and hops of dst under dst's lock, hops[src] under
    // src's: the source's and the target's locks in one row, told apart at run time. The jump
    // past the update (pc 9) commits there, read-only; the update at its RET. hops[src], read
    // after the comparison under a lock the set holds, is loaded with dist[src].
    assertThat(fixed(GraphPrograms.PATHS, ProgramRelaxationTest.pathsLayout(8))).isEqualTo("""
        5 read: lock 0 new
        7 read: lock 1 new
        9 commit: 2 locks, written 0, 0 words
        10 write: lock 1, word 0 new
        11 write: lock 1, word 1 new
        12 read: lock 0 held, loaded at 5
        14 write: lock 1, word 2 new
        16 commit: 2 locks, written 10, 3 words
        row 0: column 0, column 1
        """);
  }

  @Test
  void shortestPathsWithALockAWordHoldFiveLocksInThreeRows() {
    assertThat(fixed(GraphPrograms.PATHS, ProgramRelaxationTest.pathsLayout(8, false)))
        .isEqualTo("""
            5 read: lock 0 new
            7 read: lock 1 new
            9 commit: 2 locks, written 0, 0 words
            10 write: lock 1, word 0 new
            11 write: lock 2 new, word 1 new
            12 read: lock 3 new
            14 write: lock 4 new, word 2 new
            16 commit: 5 locks, written 10110, 3 words
            row 0: column 0, column 1
            row 1: column 1
            row 2: column 0, column 1
            """);
  }

  @Test
  void aRelaxationThatWritesTakesTheLocksItOnlyReadsAtItsSourceAsInputs() {
    // Under row locks the source's lock (slot 0) is its only read-only one; with a lock a word,
    // dist[src]'s and hops[src]'s (slots 0 and 3). The read-only commit at pc 9 has none.
    assertThat(fixed(GraphPrograms.PATHS, ProgramRelaxationTest.pathsLayout(8), true))
        .contains("9 commit: 2 locks, written 0, 0 words\n")
        .contains("16 commit: 2 locks, written 10, 3 words, inputs 1\n");
    assertThat(fixed(GraphPrograms.PATHS, ProgramRelaxationTest.pathsLayout(8, false), true))
        .contains("16 commit: 5 locks, written 10110, 3 words, inputs 1001\n");
    // A lock read at the target and not written is no input (the commit then validates every
    // read lock after taking its written one, the source's too: PrStmTx::commit).
    String readsTarget = """
        program peek(src: int32, dst: int32) regions d: int64, seen: int64
            outputs changed: int32 {
          let x = d[src] + d[dst];
          seen[src] = x;
          changed = 1;
        }
        """;
    assertThat(fixed(readsTarget, words("d", "seen"), true))
        .contains("commit: 3 locks, written 100, 1 words, inputs 1\n");
  }

  @Test
  void aWordReadAfterItsWriteIsTheWrittenValueAndASecondWriteReplacesIt() {
    String text = """
        program twice(a: int32) regions x: int64 outputs seen: int64 {
          x[a] = x[a] + 1;
          x[a] = x[a] * 2;
          seen = x[a];
        }
        """;
    String layout = fixed(text, words("x"));
    assertThat(layout).contains(": lock 0 new\n").contains("write: lock 0, word 0 new\n")
        .contains("read: word 0 written\n").contains("write: lock 0, word 0\n")
        .endsWith("row 0: column 0\n");
  }

  @Test
  void aBranchThatLeavesTheSetsOneWayOrAnotherBeforeAnAccessLeavesTheGeneralCode() {
    String text = """
        program branchy(a: int32, b: int32) regions x: int64 {
          if (a > 3) { x[a] = 1; }
          x[b] = 2;
        }
        """;
    assertThat(fixed(text, words("x"))).isNull();
    // Both ways to the access with the same sets: fixed.
    String same = """
        program same(a: int32, b: int32) regions x: int64 {
          if (a > 3) { x[a] = 1; } else { x[a] = 2; }
          x[b] = 2;
        }
        """;
    assertThat(fixed(same, words("x"))).isEqualTo("""
        7 write: lock 0 new, word 0 new
        9 write: lock 0 new, word 0 new
        10 write: lock 1 new, word 1 new
        11 commit: 2 locks, written 11, 2 words
        row 0: column 0, column 1
        """);
  }

  @Test
  void computedIndicesLoopsAndRangesLeaveTheGeneralCode() {
    assertThat(fixed("""
        program next(a: int32) regions x: int64 { x[a + 1] = x[a]; }
        """, words("x"))).isNull();
    assertThat(fixed("""
        program loop(a: int32, n: int32) regions x: int64 {
          for i in 0 .. n max 4 { x[a] = x[a] + 1; }
        }
        """, words("x"))).isNull();
    assertThat(fixed(BankPrograms.KEYED_TRANSFER, words("balance"))).isNotNull();
  }

  @Test
  void constantIndicesAreNames() {
    String text = """
        program counter(a: int32) regions x: int64, total: int64 {
          x[a] = x[a] + 1;
          total[0] = total[0] + 1;
        }
        """;
    assertThat(fixed(text, words("x", "total"))).isNotNull()
        .endsWith("row 0: column 0\nrow 1: constant 0\n");
  }
}
