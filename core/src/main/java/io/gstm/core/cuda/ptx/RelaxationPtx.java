package io.gstm.core.cuda.ptx;

import io.gstm.core.program.Opcodes;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a program relaxation's kernel ({@code relax_loop} of the template) adds to the compiled
 * bodies: the edge's columns the kernel hands its looks and transactions ({@link
 * #edgeColumns}), a look's reads issued as it begins ({@link #earlyReads}), and a look's loads
 * as a function of their own ({@link #lookLoads}), so that a lane may have two edges' loads in
 * flight before either look decides.
 */
final class RelaxationPtx extends PtxWriter {
  /** The 64-bit words of a look's loads (the template's {@code LookPre}, kLookPreWords). */
  static final int LOOK_PRE_WORDS = 8;
  /** Whether a look issues its column-indexed reads as it begins ({@link #earlyReads}); off
   *  with {@code -Dgstm.jit.earlyReads=false} (with {@code -Dgstm.jit.cache=off}), to compare. */
  private static final boolean EARLY_READS =
      Boolean.parseBoolean(System.getProperty("gstm.jit.earlyReads", "true"));
  /** Whether a relaxation's looks and transactions take their edge's columns from the kernel
   *  ({@link #edgeColumns}); off with {@code -Dgstm.jit.edgeColumns=false} (with {@code
   *  -Dgstm.jit.cache=off}), to compare: each loads them. */
  private static final boolean EDGE_COLUMNS =
      Boolean.parseBoolean(System.getProperty("gstm.jit.edgeColumns", "true"));
  /** The widths of {@link ProgramPtx#RELAX_COLUMNS}' words, as the kernel's {@code RelaxEdge}
   *  holds them. */
  private static final int[] RELAX_COLUMN_BYTES = {4, 4, 8};

  private final String sfx;
  private int earlyCount;

  /** The look loads of the relaxation's program (an image of one) for transaction type sfx. */
  RelaxationPtx(int[] image, String sfx) {
    super(image, true);
    this.sfx = sfx;
  }

  /** A look's read issued early: at pc, of store region {@code storeRegion} (the program's
   *  {@code bb}, of {@code wordBytes} words: 4, 8, or 0 where the image does not say) at the
   *  value of column {@code column}. */
  record Early(int pc, int column, int bb, int storeRegion, int wordBytes) {}

  /**
   * A look's reads in the program's straight-line start (which every look that gets that far
   * runs) whose index is a column's value (a register only an LDP there writes), issued
   * together as the look begins. The look (a ProbeTx) reads plain values with no order among
   * them, and run in program order its second read waited for the first (the paths program:
   * dist[dst] after dist[src] + weight). What a read sees earlier a later one could only see
   * improved (a relaxation's values only improve, and a source improved after the look runs its
   * edges again), as the look's contract allows. Each is loaded only within its region's
   * bounds; the read's own bounds check stays where it was. The program: the one at directory
   * entry {@code dir}.
   */
  static List<Early> earlyReads(int[] img, int dir) {
    int code = img[dir];
    int codeLen = img[dir + 1];
    int slots = img[dir + 4];
    int regions = img[dir + 8];
    int wordBytes = img[dir + 16];
    if (!EARLY_READS) {
      return List.of();
    }
    int prefix = straightLine(img, code, codeLen);
    Map<Integer, Integer> writers = new LinkedHashMap<>(); // register -> writes of it
    Map<Integer, Integer> ldp = new LinkedHashMap<>();     // register -> the LDP's pc
    for (int pc = 0; pc < codeLen; pc += length(img[code + pc])) {
      int w = img[code + pc];
      int op = w & 0xff;
      // Every instruction but these writes register a (LOOP counted as a write, to be safe).
      boolean writesA = !flow(op) && op != Opcodes.WR || op == Opcodes.LOOP;
      if (writesA) {
        int a = (w >>> 8) & 0xff;
        writers.merge(a, 1, Integer::sum);
        if (op == Opcodes.LDP && pc < prefix) {
          ldp.put(a, pc);
        }
      }
    }
    List<Early> early = new ArrayList<>();
    for (int pc = 0; pc < codeLen; pc += length(img[code + pc])) {
      int w = img[code + pc];
      if ((w & 0xff) != Opcodes.RD && (w & 0xff) != Opcodes.RDS) {
        continue;
      }
      int bb = (w >>> 16) & 0xff;
      int c = w >>> 24;
      int storeRegion = img[regions + 2 * bb];
      Integer at = ldp.get(c);
      if (pc >= prefix || storeRegion < 0 || at == null || at > pc || writers.get(c) != 1) {
        continue;
      }
      int lw = img[code + at];
      early.add(new Early(pc, img[slots + ((lw >>> 16) & 0xff | (lw >>> 24) << 8)], bb,
          storeRegion, wordBytes == 0 ? 0 : img[wordBytes + bb]));
    }
    return early;
  }

  /**
   * The columns of {@code hoisted} that a relaxation's kernel hands over ({@link
   * ProgramPtx#RELAX_COLUMNS}, where the image's widths are theirs); none with {@code
   * -Dgstm.jit.edgeColumns=false}.
   */
  static BitSet edgeColumns(int[] img, BitSet hoisted) {
    BitSet given = new BitSet();
    for (int c = 0; EDGE_COLUMNS && c < RELAX_COLUMN_BYTES.length && c < img[3]; c++) {
      if (hoisted.get(c) && img[HEADER_WORDS + 2 * c + 1] == RELAX_COLUMN_BYTES[c]) {
        given.set(c);
      }
    }
    return given;
  }

  /** Loads early read {@code e} into the 64-bit register {@code v} (declared here). */
  private void loadEarly(Early e, String v) {
    loadWord(v, "%cv" + e.column(), "%rl" + e.bb(), e.storeRegion(), e.wordBytes(),
        "ld.global.cg");
  }

  /**
   * The function {@code gstm_jit_pre_<sfx>(image, cols, tx_count, t, src, dst, weight)} of a
   * relaxation's look (the set's one program): what its look loads before it decides, as a
   * {@code LookPre} of {@link #LOOK_PRE_WORDS} words: the columns the program reads, then its
   * early reads ({@link #earlyReads}), as many as fit. Apart from the look, so that a lane may
   * issue two edges' loads before either look decides (the template's relax_pass). The edge's
   * columns are given ({@link #edgeColumns}): the source, its work item's vertex, is not loaded
   * at all, and the source's reads are issued without waiting for a load.
   */
  String lookLoads() {
    int columns = img[3];
    int dir = HEADER_WORDS + 2 * columns;
    int code = img[dir];
    int codeLen = img[dir + 1];
    int slots = img[dir + 4];
    int arrays = img[dir + 6];
    int regions = img[dir + 8];
    String fn = "gstm_jit_pre_" + sfx;
    b.append(".func (.param .align 8 .b8 func_retval0[").append(8 * LOOK_PRE_WORDS).append("]) ")
        .append(fn).append("(\n");
    b.append("\t.param .b64 ").append(fn).append("_param_0,\n");
    b.append("\t.param .b64 ").append(fn).append("_param_1,\n");
    b.append("\t.param .b32 ").append(fn).append("_param_2,\n");
    b.append("\t.param .b32 ").append(fn).append("_param_3,\n");
    b.append("\t.param .b32 ").append(fn).append("_param_4,\n");
    b.append("\t.param .b32 ").append(fn).append("_param_5,\n");
    b.append("\t.param .b64 ").append(fn).append("_param_6\n)\n{\n");
    line(".reg .b64 %imgp, %colsp, %img, %cols, %t64");
    line(".reg .b64 %d<4>");
    line(".reg .b32 %n, %t");
    line(".reg .b32 %w<4>");
    line(".reg .b32 %co<" + Math.max(1, columns) + ">");
    line(".reg .b64 %cv<" + Math.max(1, columns) + ">");
    line(".reg .b32 %rl<" + Math.max(1, img[dir + 9]) + ">");
    line("ld.param.u64 %imgp, [" + fn + "_param_0]");
    line("ld.param.u64 %colsp, [" + fn + "_param_1]");
    line("ld.param.u32 %n, [" + fn + "_param_2]");
    line("ld.param.u32 %t, [" + fn + "_param_3]");
    line("cvta.to.global.u64 %img, %imgp");
    line("cvta.to.global.u64 %cols, %colsp");
    line("cvt.u64.u32 %t64, %t");
    BitSet hoisted = hoistedColumns(code, codeLen, slots, arrays);
    BitSet loaded = (BitSet) hoisted.clone();
    BitSet given = edgeColumns(img, hoisted);
    for (int c = given.nextSetBit(0); c >= 0; c = given.nextSetBit(c + 1)) {
      if (RELAX_COLUMN_BYTES[c] == 4) {
        line("ld.param.u32 %w0, [" + fn + "_param_" + (4 + c) + "]");
        line("cvt.s64.s32 %cv" + c + ", %w0");
      } else {
        line("ld.param.u64 %cv" + c + ", [" + fn + "_param_" + (4 + c) + "]");
      }
    }
    loaded.andNot(given);
    loadColumns(loaded);
    regionLengths(dir, regions);
    List<String> values = new ArrayList<>();
    for (int c = hoisted.nextSetBit(0); c >= 0; c = hoisted.nextSetBit(c + 1)) {
      values.add("%cv" + c);
    }
    for (Early e : earlyReads(img, dir)) {
      if (values.size() < LOOK_PRE_WORDS) {
        String v = "%ev" + earlyCount++;
        loadEarly(e, v);
        values.add(v);
      }
    }
    for (int i = 0; i < LOOK_PRE_WORDS; i++) {
      line("st.param.b64 [func_retval0+" + 8 * i + "], "
          + (i < values.size() ? values.get(i) : "0"));
    }
    line("ret");
    b.append("}\n");
    return b.toString();
  }
}
