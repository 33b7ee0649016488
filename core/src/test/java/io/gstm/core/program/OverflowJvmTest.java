package io.gstm.core.program;

import static io.gstm.core.program.Term.ref;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Outcome;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.testing.OverflowCases;
import io.gstm.core.testing.SharedEngines;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Integer overflow ends the transaction OVERFLOW and changes nothing, under every algorithm of
 * the JVM engine, interpreted and compiled to JVM classes alike; the wrapping functions wrap.
 * {@code CudaOverflowTest} runs the same rows on the GPU.
 */
class OverflowJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  static Stream<Arguments> algorithms() {
    return OverflowCases.algorithms();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("algorithms")
  void overflowEndsTheTransactionAndChangesNothing(Algorithm algorithm) {
    OverflowCases.assertRun(engines.jvm(), algorithm, OverflowCases.rows(7, 400));
  }

  /** The interpreter's dispatch loop gives the same outcomes as the compiled classes. */
  @Test
  void theInterpreterAgreesWithTheCompiledClasses() {
    List<OverflowCases.Row> rows = OverflowCases.rows(11, 200);
    ProgramBatch batch = OverflowCases.batch(rows);
    for (CompiledProgram p : batch.programs().programs()) {
      assertThat(JvmCompiler.of(p)).as("compiled").isNotNull();
    }
    ProgramBinding binding = ProgramBinding.bind(batch, StoreLayout.of(
        new RegionSpec("r", RegionType.INT32, 2, 1)), Algorithm.prStm());
    int n = batch.txCount();
    for (boolean compile : new boolean[] {false, true}) {
      long[] outputs = new long[2 * n];
      Interpreter interpreter = new Interpreter(binding, outputs, new int[n], compile);
      for (int t = 0; t < n; t++) {
        JvmCompilerTest.Recorder tx = new JvmCompilerTest.Recorder(
            new long[][] {{0, 2_147_483_000}}, binding.layout());
        interpreter.run(tx, t);
        OverflowCases.Row row = rows.get(t);
        assertThat(tx.ended == null ? Outcome.COMMITTED : tx.ended)
            .as("%s, compiled=%s", row, compile).isEqualTo(row.outcome());
      }
    }
  }

  /** The builder's wrapping terms compile to what the text's wrapping functions do. */
  @Test
  void theBuilderWrapsLikeTheText() {
    CompiledProgram text = ProgramSet.parse("""
        program h(a: int32, b: int64) outputs o: int64 {
          o = wrapping_sub(wrapping_mul(wrapping_add(a, 7), b), 3L);
        }
        """).get(0);
    CompiledProgram built = Program.builder("h").param("a", ValueType.INT32)
        .param("b", ValueType.INT64).output("o", ValueType.INT64)
        .set("o", ref("a").wrappingAdd(Term.of(7)).wrappingMul(ref("b"))
            .wrappingSub(Term.of(3L)))
        .build().compile();
    assertThat(built.code()).containsExactly(text.code());
    assertThat(built.constants()).containsExactly(text.constants());
  }
}
