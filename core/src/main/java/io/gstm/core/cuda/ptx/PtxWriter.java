package io.gstm.core.cuda.ptx;

import io.gstm.core.program.Opcodes;
import java.util.BitSet;

/**
 * What a compiled body ({@link ProgramPtx}) and a relaxation's look loads ({@link
 * RelaxationPtx}) write alike: PTX lines over a program image, the columns a program reads
 * loaded for its transaction, its regions' lengths and words read through the block's shared
 * view of the store. Also the image's layout: its header, directory and instructions' lengths.
 */
abstract class PtxWriter {
  static final int HEADER_WORDS = 8;
  static final int DIR_WORDS = 17;
  /** The template's shared copy of the store's view ({@code gstm::StoreView}). */
  static final String VIEW = "gstm_jit_view";
  /** The template's shared copy of the first columns' offsets, and how many it holds. */
  static final String COLUMNS = "gstm_jit_columns";
  static final int SHARED_COLUMNS = 32;
  /** Where region r's length ({@code RegionView::words}) lies in it: 24 + 24 r. */
  static final int VIEW_REGIONS = 16;
  static final int REGION_VIEW_BYTES = 24;
  static final int REGION_WORDS_AT = 8;
  /** Where its word size in bytes ({@code RegionView::word_bytes}, 4 or 8) lies. */
  static final int REGION_WORD_BYTES_AT = 12;
  /** Where its words per lock ({@code RegionView::coverage}) lies. */
  static final int REGION_COVERAGE_AT = 20;

  final int[] img;
  final StringBuilder b = new StringBuilder();
  /** Whether columns are loaded evict-first ({@link #streamed}). */
  private final boolean streamColumns;

  PtxWriter(int[] image, boolean streamColumns) {
    this.img = image;
    this.streamColumns = streamColumns;
  }

  /** Words of the instruction that begins with {@code word}. */
  static int length(int word) {
    int op = word & 0xff;
    return op == Opcodes.SUM || op == Opcodes.LOOP ? 2 : 1;
  }

  /** Whether opcode {@code op} jumps or ends the program (LOOP counted, to be safe). */
  static boolean flow(int op) {
    return op == Opcodes.RET || op == Opcodes.RETRY || op == Opcodes.ABORT || op == Opcodes.JMP
        || op == Opcodes.JZ || op == Opcodes.JNZ || op == Opcodes.LOOP;
  }

  /** Where a program's straight-line start ends: its first instruction that jumps or ends
   *  (LOOP counted), or {@code codeLen}. */
  static int straightLine(int[] img, int code, int codeLen) {
    int pc = 0;
    while (pc < codeLen && !flow(img[code + pc] & 0xff)) {
      pc += length(img[code + pc]);
    }
    return pc;
  }

  /** The directory entry of program {@code p} of an image. */
  static int dir(int[] image, int p) {
    return HEADER_WORDS + 2 * image[3] + DIR_WORDS * p;
  }

  final void line(String s) {
    b.append('\t').append(s).append(";\n");
  }

  final void label(String l) {
    b.append(l).append(":\n");
  }

  /**
   * The columns the program reads (LDP, and the elements of short arrays), loaded up front with
   * their offsets, as a hand-written kernel loads its transaction before the attempt: their
   * memory latencies overlap, instead of one after the other between the transaction's reads
   * (whose acquire loads nothing later may pass).
   */
  final BitSet hoistedColumns(int code, int codeLen, int slots, int arrays) {
    BitSet hoisted = new BitSet();
    for (int pc = 0; pc < codeLen; pc += length(img[code + pc])) {
      int w = img[code + pc];
      if ((w & 0xff) == Opcodes.LDP) {
        hoisted.set(img[slots + ((w >>> 16) & 0xff | (w >>> 24) << 8)]);
      } else if ((w & 0xff) == Opcodes.LDPA && selectable(slots, arrays, (w >>> 16) & 0xff)) {
        int bb = (w >>> 16) & 0xff;
        for (int i = 0; i < img[arrays + 2 * bb + 1]; i++) {
          hoisted.set(img[slots + img[arrays + 2 * bb] + i]);
        }
      }
    }
    return hoisted;
  }

  /** Loads each column of {@code columns} into {@code %cv<c>}, its offsets first (the first
   *  {@link #SHARED_COLUMNS} from the block's shared copy). */
  final void loadColumns(BitSet columns) {
    for (int c = columns.nextSetBit(0); c >= 0; c = columns.nextSetBit(c + 1)) {
      line(c < SHARED_COLUMNS ? "ld.shared.u32 %co" + c + ", [" + COLUMNS + "+" + 4 * c + "]"
          : "ld.global.nc.u32 %co" + c + ", [%img+" + 4 * (HEADER_WORDS + 2 * c) + "]");
    }
    for (int c = columns.nextSetBit(0); c >= 0; c = columns.nextSetBit(c + 1)) {
      columnAt("%cv" + c, "%co" + c, img[HEADER_WORDS + 2 * c + 1]);
    }
  }

  /**
   * The lengths of the regions the program at directory entry {@code dir} names, into {@code
   * %rl<r>}, as the store's view has them (a region the store lacks has none: every access to
   * it is out of range).
   */
  final void regionLengths(int dir, int regions) {
    for (int r = 0; r < img[dir + 9]; r++) {
      int storeRegion = img[regions + 2 * r];
      if (storeRegion >= 0) {
        line("ld.shared.u32 %rl" + r + ", [" + VIEW + "+"
            + (VIEW_REGIONS + REGION_VIEW_BYTES * storeRegion + REGION_WORDS_AT) + "]");
      }
    }
  }

  /** Program region {@code r}'s length: its register, or 0 where the store lacks the region. */
  final String length(int regions, int r) {
    return img[regions + 2 * r] >= 0 ? "%rl" + r : "0";
  }

  /**
   * Whether array parameter {@code b}'s element columns are few (at most 8) and of one width:
   * they are then loaded up front and an element chosen among them, not read through the slot
   * table.
   */
  final boolean selectable(int slots, int arrays, int b) {
    int first = img[arrays + 2 * b];
    int len = img[arrays + 2 * b + 1];
    if (len < 1 || len > 8) {
      return false;
    }
    int width = img[HEADER_WORDS + 2 * img[slots + first] + 1];
    for (int i = 1; i < len; i++) {
      if (img[HEADER_WORDS + 2 * img[slots + first + i] + 1] != width) {
        return false;
      }
    }
    return true;
  }

  /**
   * The cache operator of a column's load: evict-first in a look (a relaxation's edges are read
   * once a round, its values again and again: R-MAT 2^22's gigabyte of edges pushed its values
   * out of the L2), else none.
   */
  private String streamed() {
    return streamColumns ? ".cs" : "";
  }

  /** Register {@code dst} = this transaction's value in the column at word {@code offset}. */
  private void columnAt(String dst, String offset, int width) {
    line("cvt.u64.u32 %d0, " + offset);
    if (width == 4) {
      line("add.s64 %d0, %d0, %t64");
      line("shl.b64 %d0, %d0, 2");
      line("add.s64 %d0, %cols, %d0");
      line("ld.global" + streamed() + ".nc.u32 %w1, [%d0]");
      line("cvt.s64.s32 " + dst + ", %w1");
    } else {
      line("shl.b64 %d0, %d0, 2");
      line("mul.wide.u32 %d1, %t, 8");
      line("add.s64 %d0, %d0, %d1");
      line("add.s64 %d0, %cols, %d0");
      line("ld.global" + streamed() + ".nc.u64 " + dst + ", [%d0]");
    }
  }

  /**
   * Loads word {@code index} (a 64-bit register) of store region {@code storeRegion} into the
   * 64-bit register {@code v} (declared here) with {@code load} (an instruction without its
   * type), where the index lies below {@code length}; 0 elsewhere (the read's own bounds check
   * stays where it was). {@code wordBytes}: the words' width, or 0 to choose at run time.
   */
  final void loadWord(String v, String index, String length, int storeRegion, int wordBytes,
      String load) {
    int view = VIEW_REGIONS + REGION_VIEW_BYTES * storeRegion;
    line(".reg .b64 " + v);
    b.append("{\n");
    line(".reg .b64 %eb, %ea");
    line(".reg .b32 %ei, %ew, %es");
    line(".reg .pred %ep, %e4, %e8");
    line("cvt.u32.u64 %ei, " + index);
    line("setp.lt.u32 %ep, %ei, " + length);
    line("ld.shared.u64 %eb, [" + VIEW + "+" + view + "]");
    line("mov.b64 " + v + ", 0");
    if (wordBytes != 0) {
      // The word's width known: one load, no choice between two.
      line("mul.wide.u32 %ea, %ei, " + wordBytes);
      line("add.s64 %ea, %eb, %ea");
      if (wordBytes == 8) {
        line("@%ep " + load + ".s64 " + v + ", [%ea]");
      } else {
        line("@%ep " + load + ".s32 %es, [%ea]");
        line("@%ep cvt.s64.s32 " + v + ", %es");
      }
    } else {
      line("ld.shared.u32 %ew, [" + VIEW + "+" + (view + REGION_WORD_BYTES_AT) + "]");
      line("setp.eq.and.u32 %e4, %ew, 4, %ep");
      line("setp.ne.and.u32 %e8, %ew, 4, %ep");
      line("mul.wide.u32 %ea, %ei, %ew");
      line("add.s64 %ea, %eb, %ea");
      line("@%e4 " + load + ".s32 %es, [%ea]");
      line("@%e4 cvt.s64.s32 " + v + ", %es");
      line("@%e8 " + load + ".s64 " + v + ", [%ea]");
    }
    b.append("}\n");
  }
}
