package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.soak.RandomPrograms;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.testing.SeedTest;
import io.gstm.core.workload.TxContext;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Programs compiled to JVM classes do exactly what the interpreter does: for random programs,
 * transaction by transaction over the same evolving state, the same reads, writes, ends, codes
 * and outputs. A forged image that loops for ever stops at its step bound compiled too.
 */
class JvmCompilerTest {
  /** Records everything a body does; writes apply to the state only when asked. */
  static final class Recorder implements TxContext {
    final long[][] state;
    final StoreLayout layout;
    final List<String> log = new ArrayList<>();
    final List<long[]> writes = new ArrayList<>();
    boolean semantic;
    Outcome ended;

    Recorder(long[][] state, StoreLayout layout) {
      this.state = state;
      this.layout = layout;
    }

    @Override
    public long read(int region, int index) {
      for (int i = writes.size() - 1; i >= 0; i--) {
        if (writes.get(i)[0] == region && writes.get(i)[1] == index) {
          log.add("read-buffered " + region + ":" + index);
          return writes.get(i)[2];
        }
      }
      log.add("read " + region + ":" + index);
      return state[region][index];
    }

    @Override
    public long readShared(int region, int index) {
      log.add("shared " + region + ":" + index);
      return state[region][index];
    }

    @Override
    public void write(int region, int index, long bits) {
      long v = layout.region(region).type().wordBytes() == 4 ? (long) (int) bits : bits;
      log.add("write " + region + ":" + index + "=" + v);
      writes.add(new long[] {region, index, v});
    }

    @Override
    public void semanticConflict() {
      log.add("retry");
      semantic = true;
    }

    @Override
    public void end(Outcome outcome) {
      log.add("end " + outcome);
      ended = outcome;
    }

    void apply() {
      if (!semantic && ended == null) {
        for (long[] w : writes) {
          state[(int) w[0]][(int) w[1]] = w[2];
        }
      }
    }
  }

  @SeedTest(seeds = 300)
  void compiledProgramsDoWhatTheInterpreterDoes(long seed) {
    RandomPrograms.Case c = RandomPrograms.generate(seed, 150, 1, 1, true);
    for (CompiledProgram p : c.programs().programs()) {
      assertThat(JvmCompiler.of(p)).as("compiled: %s", p.name()).isNotNull();
    }
    ProgramBinding binding = ProgramBinding.bind(c.batch(), c.layout(), Algorithm.prStm());
    int n = c.batch().txCount();
    int slots = Math.max(1, c.programs().maxOutputs());
    long[] outI = new long[slots * n];
    long[] outC = new long[slots * n];
    int[] codesI = new int[n];
    int[] codesC = new int[n];
    Interpreter interpreted = new Interpreter(binding, outI, codesI, false);
    Interpreter compiled = new Interpreter(binding, outC, codesC, true);
    long[][] stateI = copy(c.initial());
    long[][] stateC = copy(c.initial());
    for (int t = 0; t < n; t++) {
      Recorder ri = new Recorder(stateI, c.layout());
      Recorder rc = new Recorder(stateC, c.layout());
      long resultI = interpreted.run(ri, t);
      long resultC = compiled.run(rc, t);
      assertThat(rc.log).as("transaction %d of seed %d:%n%s", t, seed, c.text())
          .isEqualTo(ri.log);
      assertThat(resultC).isEqualTo(resultI);
      assertThat(codesC[t]).isEqualTo(codesI[t]);
      for (int s = 0; s < slots; s++) {
        assertThat(outC[s * n + t]).as("output %d of %d", s, t).isEqualTo(outI[s * n + t]);
      }
      ri.apply();
      rc.apply();
    }
  }

  @Test
  void aForgedEndlessLoopStopsAtItsStepBound() {
    CompiledProgram p = ProgramSet.parse("program p() regions r: int32 { r[0] = 1; }").get(0);
    int[] image = p.encode();
    int[] code = p.code();
    // Replace the last instruction (RET) by a jump to itself.
    image[image.length - 1] = Opcodes.JMP | (code.length - 1) << 8;
    CompiledProgram forged = CompiledProgram.decode(image);
    assertThat(JvmCompiler.of(forged)).isNotNull();
    ProgramBatch batch = ProgramBatch.builder(ProgramSet.of(forged)).all("p", 1).grid(1, 1)
        .build();
    StoreLayout layout = StoreLayout.of(new io.gstm.core.store.RegionSpec("r",
        io.gstm.core.store.RegionType.INT32, 2, 1));
    ProgramBinding binding = ProgramBinding.bind(batch, layout, Algorithm.prStm());
    for (boolean compile : new boolean[] {false, true}) {
      Recorder r = new Recorder(new long[][] {new long[2]}, layout);
      new Interpreter(binding, new long[1], new int[1], compile).run(r, 0);
      assertThat(r.ended).as("compiled=%s", compile).isEqualTo(Outcome.LOOP_LIMIT);
    }
  }

  private static long[][] copy(long[][] a) {
    long[][] out = new long[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i].clone();
    }
    return out;
  }
}
