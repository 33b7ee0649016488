package io.gstm.core.program;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The image format and its verifier: a round trip keeps a program, and every kind of damage
 * (magic, version, unknown opcode, a register, constant, slot, region or jump target out of
 * range, code that runs off its end, a cut image) is refused with the word it is at. Also: the
 * CUDA interpreter's opcode numbers, end codes and format version are the Java ones.
 */
class BytecodeTest {
  private static final CompiledProgram P = ProgramSet.parse("""
      program p(a: int32, b: int32[2])
          regions r: int32
          outputs o: int64
      {
        for i in 0 .. 2 { r[b[i]] = r[a] + i; }
        o = int64(a) * 3L;
      }
      """).get(0);

  @Test
  void roundTripKeepsTheProgram() {
    CompiledProgram back = CompiledProgram.decode(P.encode());
    assertThat(back.name()).isEqualTo("p");
    assertThat(back.code()).containsExactly(P.code());
    assertThat(back.constants()).containsExactly(P.constants());
    assertThat(back.registers()).isEqualTo(P.registers());
    assertThat(back.outputRegisters()).containsExactly(P.outputRegisters());
    assertThat(back.columnNames()).containsExactly("a", "b[0]", "b[1]");
    assertThat(back.analysis()).isEqualTo(P.analysis());
  }

  /** The image with word {@code at} changed by {@code change}. */
  private static int[] patched(int at, IntUnaryOperator change) {
    int[] image = P.encode();
    image[at] = change.applyAsInt(image[at]);
    return image;
  }

  /** The image with word {@code at} (counted from the start of the code) replaced. */
  private static int[] patchedCode(int at, int word) {
    return patched(P.encode().length - P.code().length + at, w -> word);
  }

  /** Decoding {@code image} fails with a ProgramException whose message holds {@code message}. */
  private static void assertRefused(int[] image, String message) {
    assertThatThrownBy(() -> CompiledProgram.decode(image))
        .isInstanceOf(ProgramException.class).hasMessageContaining(message);
  }

  private static int pcOf(int op) {
    for (int pc = 0; pc < P.code().length; pc += Opcodes.length(P.code()[pc] & 0xff)) {
      if ((P.code()[pc] & 0xff) == op) {
        return pc;
      }
    }
    throw new AssertionError("no opcode " + op);
  }

  @Test
  void damagedImagesAreRefused() {
    assertRefused(patched(0, w -> 0x12345678), "not the magic word");
    assertRefused(patched(1, w -> 99), "version 99 is not supported");
    assertRefused(patchedCode(0, 19), "instruction at word 0: unknown opcode 19");
    assertRefused(patchedCode(0, 200), "unknown opcode 200");
    int mov = Opcodes.encode(Opcodes.MOV, 63, 0, 0);
    assertRefused(patchedCode(0, mov), "register 63 of " + P.registers());
    int ldk = Opcodes.encode(Opcodes.LDK, 0, 250, 0);
    assertRefused(patchedCode(0, ldk), "constant 250 of");
    int ldp = Opcodes.encode(Opcodes.LDP, 0, 3, 0);
    assertRefused(patchedCode(0, ldp), "column slot 3 of 3");
    int rd = Opcodes.encode(Opcodes.RD, 0, 1, 0);
    assertRefused(patchedCode(0, rd), "region 1 of 1");
    int ldpa = Opcodes.encode(Opcodes.LDPA, 0, 0, 0);
    assertRefused(patchedCode(0, ldpa), "parameter 0 is not an array parameter");
    int jmp = Opcodes.JMP | 5000 << 8;
    assertRefused(patchedCode(0, jmp), "jump target 5000 is not an instruction of this program");
    int last = P.code().length - 1;
    assertRefused(patchedCode(last, mov & ~0xff00), "may run past its end");
    int[] cut = java.util.Arrays.copyOf(P.encode(), P.encode().length - 3);
    assertRefused(cut, "ends before");
    assertThat(pcOf(Opcodes.RD)).isGreaterThanOrEqualTo(0);
  }

  /** Fields an instruction does not use must be 0, and a branch's register must exist. */
  @Test
  void strayOperandsAreRefused() {
    int neg = Opcodes.encode(Opcodes.NEG, 0, 0, 200);
    assertRefused(patchedCode(0, neg), "instruction at word 0: an unused operand field holds 200");
    int ret = Opcodes.encode(Opcodes.RET, 1, 0, 0);
    assertRefused(patchedCode(P.code().length - 1, ret), "unused operand field holds 1");
    int jz = Opcodes.encode(Opcodes.JZ, 99, 0, 0);
    assertRefused(patchedCode(0, jz), "register 99 of " + P.registers());
  }

  /** Words 4..15 hold the analysis bounds (low word first), word 16 its flags. */
  @Test
  void anAnalysisThatPromisesLessThanTheCodeIsRefused() {
    assertRefused(patched(16, w -> w | 1), "says read-only but the code writes");
    assertRefused(patched(10, w -> 0), "bounds no writes");
    assertRefused(patched(4, w -> 0), "bounds no reads");
    assertRefused(patched(8, w -> 0), "bounds no writes");
    assertRefused(patched(8, w -> w + 100), "lock entries under shared locks, outside 0..");
    CompiledProgram retrying = ProgramSet.parse(
        "program q(a: int32) regions r: int32 { if (r[a] < 1) { retry; } r[a] = r[a] - 1; }")
        .get(0);
    int[] noRetry = retrying.encode();
    noRetry[16] &= ~2;
    assertRefused(noRetry, "never retries but the code can");
    assertThat(CompiledProgram.decode(retrying.encode()).analysis().retries()).isTrue();
  }

  /** The CUDA header's Op enum lists the numbers of {@link Opcodes}. */
  @Test
  void cudaOpcodesMatchJava() throws IOException, ReflectiveOperationException {
    Path header = Path.of("..", "kernels", "src", "main", "cuda", "include", "gstm",
        "program.cuh");
    String text = Files.readString(header);
    Matcher m = Pattern.compile("k([A-Z][a-z]+) = (\\d+)").matcher(
        text.substring(text.indexOf("enum Op"), text.indexOf("};", text.indexOf("enum Op"))));
    int checked = 0;
    while (m.find()) {
      String name = m.group(1).toUpperCase();
      if (name.equals("OPCOUNT")) {
        name = "COUNT";
      }
      int value = Integer.parseInt(m.group(2));
      int java = Opcodes.class.getField(name).getInt(null);
      assertThat(value).as("opcode %s", name).isEqualTo(java);
      checked++;
    }
    assertThat(checked).isGreaterThan(35);
    assertThat(text).contains("kUserAbort = " + io.gstm.core.batch.Outcome.USER_ABORT.code());
    assertThat(text).contains("kLoopLimit = " + io.gstm.core.batch.Outcome.LOOP_LIMIT.code());
    assertThat(text).contains("kOverflow = " + io.gstm.core.batch.Outcome.OVERFLOW.code());
    assertThat(text).contains("kVersion = " + Opcodes.VERSION + ";");
  }
}
