package io.gstm.core.program;

import static io.gstm.core.program.Term.of;
import static io.gstm.core.program.Term.read;
import static io.gstm.core.program.Term.ref;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every program the checker must refuse is refused before anything runs, with an error that
 * names the program and the line and column (text) or the builder call. Each case fails if its
 * check is removed: the program would otherwise compile.
 */
class ProgramCheckTest {
  private static String wrap(String body) {
    return "program p(a: int32, f: float64)\n    regions r: int32, s: int64\n{\n" + body + "\n}\n";
  }

  private static ProgramException refuse(String text) {
    try {
      ProgramSet.parse(text);
    } catch (ProgramException e) {
      return e;
    }
    throw new AssertionError("accepted:\n" + text);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // body | expected message part | line | column
      "let x = 1.5L; | L marks an int64, not a floating-point number | 4 | 9",
      "let x = 010; | starts with 0: octal is not supported | 4 | 9",
      "let x = 0x; | hex digits must follow 0x | 4 | 9",
      "if (false) { let y: int32 = f; } | must be int32, got float64 | 4 | 29",
      "if (true) { } else { r[a] = true; } | must be int32, got bool | 4 | 29",
      "for i in 0 .. 0 { r[i] = f; } | must be int32, got float64 | 4 | 26",
      "let b = false && (a + 1); | '&&' needs bools, got int32 | 4 | 21",
      "let b = false && q; | 'q' is not declared | 4 | 18",
      "let x: int32 = f; | must be int32, got float64 (narrowing | 4 | 16",
      "r[a] = f; | must be int32, got float64 | 4 | 8",
      "if (a) { return; } | condition of 'if' must be bool, got int32 | 4 | 5",
      "let x = q + 1; | 'q' is not declared | 4 | 9",
      "t[0] = 1; | 't' is not declared | 4 | 1",
      "let x = t[0]; | 't' is not declared | 4 | 9",
      "let x = r; | region 'r' needs an index | 4 | 9",
      "for i in 0 .. a { r[i] = 1; } | loop without a bound | 4 | 1",
      "a = 1; | cannot be assigned: it is a parameter | 4 | 1",
      "let x = 1; x = 2; | declared with let | 4 | 12",
      "let x = 1; let x = 2; | 'x' is already declared | 4 | 12",
      "let x = r[f]; | the index into 'r' must be int32, got float64 | 4 | 11",
      "let x = r[int64(a)]; | must be int32, got int64 (convert it with int32 | 4 | 11",
      "let x = sqrt(a); | sqrt needs float32 or float64 | 4 | 9",
      "let x = a && true; | '&&' needs bools, got int32 | 4 | 9",
      "let x = f << 1; | '<<' needs integers | 4 | 11",
      "let x = min(a); | min takes 2 arguments | 4 | 9",
      "let x = foo(a); | unknown function 'foo' | 4 | 9",
      "let x = wrapping_add(f, 1); | wrapping_add needs integers, got float64 and int32 | 4 | 9",
      "let x = wrapping_mul(a); | wrapping_mul takes 2 arguments | 4 | 9",
      "let x = sum(r, 0, 1); r[0] = 1; | sum() reads a range for a read-only program | 1 | 1",
      "for i in 0 .. 2 { let t = sum(s, i, 1); } | sum() may run 2 times | 1 | 1",
      "for i in 0 .. 70 { r[i] = 1; } | more than the largest transaction set, 64 | 1 | 1",
      "for i in 0 .. a max -1 { } | max -1 is out of range | 4 | 1",
      "let x = 1 +; | expected an expression but found ';' | 4 | 12",
      "let x = 1 | expected ';' but found '}' | 5 | 1",
      "let x = 0x1FFFFFFFFFFFFFFFFF; | does not fit in int32 (nor in int64) | 4 | 9",
      "let x = 0x1FFFFFFFFFFFFFFFFFL; | '0x1FFFFFFFFFFFFFFFFFL' does not fit in int64 | 4 | 9",
      "let x = 2147483648; | '2147483648' does not fit in int32: write 2147483648L | 4 | 9",
      "let x = a + 3000000000; | '3000000000' does not fit in int32 | 4 | 13",
      "let x = 0x100000000; | '0x100000000' does not fit in int32: write 0x100000000L | 4 | 9",
      "let x = 0xFFFFFFFFFFFFFFFF; | does not fit in int32: write 0xFFFFFFFFFFFFFFFFL | 4 | 9",
      "let x = int64(3000000000); | '3000000000' does not fit in int32 | 4 | 15",
      "let x = -2147483649; | '2147483649' does not fit in int32 | 4 | 10",
      "let x = 12abc; | malformed number | 4 | 9",
      "let x = 1 # 2; | unexpected character '#' | 4 | 11",
      "retry | expected ';' but found '}' | 5 | 1",
      "let max = 1; | expected a variable name but found 'max' (a keyword) | 4 | 5",
  })
  void refusedWithItsLocation(String body, String message, int line, int column) {
    ProgramException e = refuse(wrap(body));
    assertThat(e.getMessage()).contains(message);
    // Errors of the lexer come before the program's name is known.
    assertThat(e.getMessage()).containsAnyOf("program 'p'", "line " + line);
    assertThat(e.where()).isEqualTo("line " + line + ", column " + column);
  }

  /** Unreachable code is checked, but adds nothing to the code or the bounds. */
  @Test
  void unreachableCodeIsCheckedAndDropped() {
    CompiledProgram live = ProgramSet.parse(wrap("r[a] = 1;")).get(0);
    CompiledProgram dead = ProgramSet.parse(wrap(
        "if (false) { r[a + 1] = 2; retry; } for i in 0 .. 0 { s[i] = 3L; } r[a] = 1;")).get(0);
    assertThat(dead.code()).containsExactly(live.code());
    assertThat(dead.analysis()).isEqualTo(live.analysis());
  }

  /**
   * Java's literals: -2147483648 is an int32, -9223372036854775808L an int64, a hex literal of
   * up to 32 bits names an int32's bits, and only the L suffix makes an int64.
   */
  @Test
  void theSmallestIntegersAreLiterals() {
    ProgramSet.parse("program p() outputs o: int32 { o = -2147483648; }");
    ProgramSet.parse("program p() outputs o: int64 { o = -9223372036854775808L; }");
    ProgramSet.parse("program p() outputs o: int32 { o = 0xFFFFFFFF; }");
    ProgramSet.parse("program p() outputs o: int64 { o = 3000000000L + 0x100000000L; }");
    assertThat(refuse("program p() outputs o: int64 { o = 3000000000; }").getMessage())
        .contains("does not fit in int32: write 3000000000L for an int64");
  }

  /**
   * Constant indices are one word however they are written; different constants are different
   * words, even when one's bits read as the other (1.0f is 0x3f800000).
   */
  @Test
  void constantIndicesAreKeyedByValue() {
    CompiledProgram same = ProgramSet.parse(wrap(
        "let k = 3; r[k] = 1; r[1 + 2] = 2; r[3] = 3;")).get(0);
    assertThat(same.analysis().writeEntries()).isEqualTo(1);
    CompiledProgram different = ProgramSet.parse(wrap(
        "let g = 1.0f; r[int32(g)] = 1; r[int32(1065353216)] = 2;")).get(0);
    assertThat(different.analysis().writeEntries()).isEqualTo(2);
  }

  @Test
  void tooManyRegistersIsRefused() {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < 70; i++) {
      body.append("var v").append(i).append(" = a + ").append(i).append(";\n");
    }
    ProgramException e = refuse(wrap(body.toString()));
    assertThat(e.getMessage()).contains("more than 64 registers");
    assertThat(e.where()).startsWith("line ");
  }

  @Test
  void badHeadersAreRefused() {
    assertThat(refuse("program p(x: bool) { }").getMessage())
        .contains("'x' must have a numeric type (int32, int64, float32, float64)");
    assertThat(refuse("program p(x: int32[0]) { }").getMessage())
        .contains("an array needs at least 1 element");
    assertThat(refuse("program p() outputs o: int32, o: int64 { }").getMessage())
        .contains("'o' is already declared");
    assertThat(refuse("program p(x: int32) regions x: int32 { }").getMessage())
        .contains("'x' is already declared");
    assertThat(refuse("").getMessage()).contains("holds no program");
    assertThat(refuse("program p() colours red { }").getMessage())
        .contains("expected 'regions', 'outputs', 'tag' or '{'");
    assertThatThrownBy(() -> ProgramSet.parse("program p() { }\nprogram p() { }"))
        .hasMessageContaining("two programs are named 'p'");
  }

  @Test
  void builderErrorsNameTheBuilderCall() {
    Program p = Program.builder("move").param("src", ValueType.INT32)
        .region("stock", ValueType.INT32)
        .let("have", read("stock", ref("src")))
        .write("stok", ref("src"), ref("have").sub(1))
        .build();
    assertThatThrownBy(p::compile).isInstanceOf(ProgramException.class)
        .hasMessageContaining("program 'move', builder: statement 2, write(\"stok\", ...)")
        .hasMessageContaining("'stok' is not declared");
    Program q = Program.builder("q").param("x", ValueType.FLOAT64)
        .region("r", ValueType.INT32)
        .write("r", of(0), ref("x"))
        .build();
    assertThatThrownBy(q::compile).hasMessageContaining("builder: ref(\"x\")")
        .hasMessageContaining("must be int32, got float64");
  }

  private static final StoreLayout LAYOUT = StoreLayout.of(
      new RegionSpec("r", RegionType.INT32, 8, 1), new RegionSpec("s", RegionType.INT64, 8, 1));

  private static ProgramBatch batch(String text, int n) {
    ProgramSet set = ProgramSet.parse(text);
    ProgramBatch.Builder b = ProgramBatch.builder(set).types(new int[n]);
    for (String c : set.get(0).columnNames()) {
      b.int32(c, new int[n]);
    }
    return b.grid(1, 1).build();
  }

  @Test
  void bindingNamesTheRegionColumnOrAlgorithm() {
    assertThatThrownBy(() -> ProgramBinding.bind(
        batch("program p() regions q: int32 { q[0] = 1; }", 2), LAYOUT, Algorithm.prStm()))
        .hasMessageContaining("program 'p' uses region 'q', which the store lacks (its regions: "
            + "[r INT32, s INT64])");
    assertThatThrownBy(() -> ProgramBinding.bind(
        batch("program p() regions s: int32 { s[0] = 1; }", 2), LAYOUT, Algorithm.prStm()))
        .hasMessageContaining("program 'p': region 's': region 1 ('s') holds INT64, expected "
            + "INT32");
    assertThatThrownBy(() -> ProgramBinding.bind(
        batch("program p() regions r: int32 { retry; }", 2), LAYOUT, Algorithm.csmv(4)))
        .hasMessageContaining("uses retry, but CSMV stores have no semantic contention manager");
    assertThatThrownBy(() -> ProgramBinding.bind(
        batch("program p() regions s: int64 { s[0] = 1L; }", 2), LAYOUT, Algorithm.csmv(4)))
        .hasMessageContaining("CSMV stores hold 32-bit words");
    assertThatThrownBy(() -> ProgramBinding.bind(batch("program p() regions r: int32 {"
        + " for i in 0 .. 9 { r[i % 8] = i; } }", 2), LAYOUT, Algorithm.csmv(4)))
        .hasMessageContaining("may write up to 9 words, more than the 8");
    ProgramSet two = ProgramSet.parse("program a() regions shared r: int32 { let x = r[0]; }\n"
        + "program b() regions r: int32 { r[0] = 1; }");
    assertThatThrownBy(() -> ProgramBinding.bind(ProgramBatch.builder(two)
        .types(new int[] {0, 1}).build(), LAYOUT, Algorithm.prStm()))
        .hasMessageContaining("region 'r' is shared in program 'a'")
        .hasMessageContaining("program 'b' writes it");
    assertThatThrownBy(() -> ProgramSet.parse("program p() regions shared r: int32 "
        + "{ r[0] = 1; }")).hasMessageContaining("is declared shared");
  }

  @Test
  void batchesNameTheMissingOrMistypedColumn() {
    ProgramSet set = ProgramSet.parse("program p(x: int32, y: float32[2]) { }");
    assertThatThrownBy(() -> ProgramBatch.builder(set).all("p", 2).int32("x", new int[2])
        .build()).hasMessageContaining("column 'y[0]' is missing: program 'p' reads it");
    assertThatThrownBy(() -> ProgramBatch.builder(set).all("p", 2).float32("x", new float[2])
        .build()).hasMessageContaining("column 'x' holds float32 but program 'p' reads it as "
            + "int32");
    assertThatThrownBy(() -> ProgramBatch.builder(set).all("p", 2).int32("x", new int[3])
        .build()).hasMessageContaining("column 'x' has 3 values, expected one per transaction");
    assertThatThrownBy(() -> ProgramBatch.builder(set).types(new int[] {0, 1}).build())
        .hasMessageContaining("types[1] = 1 names no program");
    assertThatThrownBy(() -> ProgramBatch.builder(set).all("q", 2))
        .hasMessageContaining("program 'q' is not in this set");
    assertThatThrownBy(() -> ProgramBatch.builder(set).all("p", 1).int32("x", new int[1])
        .float32("y[0]", new float[1]).float32("y[1]", new float[1]).grid(300, 1).build())
        .hasMessageContaining("threadsPerBlock must be in 1..256");
  }
}
