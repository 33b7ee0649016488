package io.gstm.core.cuda.ptx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The text-level inliner on small modules written as nvcc writes them. */
class PtxInlinerTest {
  private static final String HEAD = """
      .version 9.0
      .target sm_90
      .address_size 64
      """;

  /** A callee that reads a byte and a 64-bit field of an aggregate and returns a 32-bit sum. */
  private static final String CALLEE = """
      .visible .func (.param .b32 func_retval0) f(
      \t.param .align 8 .b8 f_param_0[16]
      )
      {
      \t.reg .b16 %rs<2>;
      \t.reg .b32 %r<4>;
      \t.reg .b64 %rd<2>;
      \tld.param.u8 %rs1, [f_param_0+13];
      \tld.param.u64 %rd1, [f_param_0+0];
      \tcvt.u32.u16 %r1, %rs1;
      \tcvt.u32.u64 %r2, %rd1;
      \tadd.s32 %r3, %r1, %r2;
      \tst.param.b32 [func_retval0+0], %r3;
      \tret;
      }
      """;

  private static final String KERNEL = """
      .visible .entry k(
      \t.param .u64 k_param_0
      )
      {
      \t.reg .b16 %rs<2>;
      \t.reg .b32 %r<3>;
      \t.reg .b64 %rd<3>;
      \tld.param.u64 %rd1, [k_param_0];
      \tmov.u16 %rs1, 7;
      \t{ // callseq 0, 0
      \t.param .align 8 .b8 param0[16];
      \tst.param.b64 [param0+0], %rd1;
      \tst.param.v2.b8 [param0+12], {0, %rs1};
      \t.param .b32 retval0;
      \tcall.uni (retval0),
      \tf,
      \t(
      \tparam0
      \t);
      \tld.param.b32 %r1, [retval0+0];
      \t} // callseq 0
      \tcvta.to.global.u64 %rd2, %rd1;
      \tst.global.u32 [%rd2], %r1;
      \tret;
      }
      """;

  @Test
  void aCallBecomesTheCalleesBodyWithItsParametersInRegisters() {
    String out = PtxInliner.link(PtxModule.parse(HEAD + CALLEE + KERNEL), List.of("k"));
    assertThat(out).doesNotContain("call").doesNotContain(".param .align")
        .doesNotContain("ld.param.u8").doesNotContain("[param0");
    // The byte at offset 13 is bits 8..15 of word 3, written by an insert and read by an extract.
    assertThat(out).contains("bfi.b32").contains(", 8, 8").contains("bfe.u32");
    // The kernel's own parameter is untouched; the callee's registers are renamed.
    assertThat(out).contains("ld.param.u64 %rd1, [k_param_0]").containsPattern("%i\\d+_r3");
    // The callee's ret jumps to the end of its inlined copy.
    assertThat(out).containsPattern("bra.uni \\$i\\d+_ret;").containsPattern("\\$i\\d+_ret:");
    assertThat(out).doesNotContain(".visible .func");
  }

  @Test
  void aCalleeThatTakesItsParametersAddressIsRefused() {
    String callee = CALLEE.replace("\tld.param.u64 %rd1, [f_param_0+0];",
        "\tmov.b64 %rd1, f_param_0;");
    assertThatThrownBy(() -> PtxInliner.link(PtxModule.parse(HEAD + callee + KERNEL),
        List.of("k"))).isInstanceOf(PtxException.class).hasMessageContaining("address");
  }

  @Test
  void aCallOfAFunctionTheModuleDoesNotDefineIsRefused() {
    assertThatThrownBy(() -> PtxInliner.link(PtxModule.parse(HEAD + KERNEL), List.of("k")))
        .isInstanceOf(PtxException.class).hasMessageContaining("'f'");
  }

  @Test
  void bodiesSplitIntoStatementsLabelsAndBlocks() {
    List<PtxModule.Item> items = PtxModule.items("""
        \tmov.b64 {%r1, %r2}, %rd1;
        $L__BB0_1:
        \t{
        \tbra.uni $L__BB0_1;
        \t}
        """);
    assertThat(items).containsExactly(new PtxModule.Stmt("mov.b64 {%r1, %r2}, %rd1"),
        new PtxModule.Label("$L__BB0_1"), new PtxModule.Open(),
        new PtxModule.Stmt("bra.uni $L__BB0_1"), new PtxModule.Close());
  }
}
