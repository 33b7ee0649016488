package io.gstm.core.cuda;

import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Column;
import io.gstm.core.program.Opcodes;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.store.StoreLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The program image a program kernel interprets, and where each batch column sits in the
 * column buffer. Layout as {@code gstm/program.cuh} describes: header, column table, one
 * directory entry per program, then each program's code, constants, slot table, parameter
 * table, region table, output registers, lock rows and word sizes. Keep in step with that header.
 *
 * @param words the image
 * @param columnOffsets word offset of each batch column in the column buffer (8-byte columns at
 *     even offsets)
 * @param columnWords size of the column buffer in 4-byte words
 */
record ProgramImage(int[] words, long[] columnOffsets, long columnWords) {
  static final int MAGIC = CompiledProgram.MAGIC;
  static final int HEADER_WORDS = 8;
  static final int DIR_WORDS = 17;

  static ProgramImage build(ProgramBinding binding) {
    return build(binding, binding.batch().txCount());
  }

  /**
   * As {@link #build(ProgramBinding)}, the columns laid out for {@code rows} transactions rather
   * than the batch's own (a program relaxation binds one row and runs one per edge).
   */
  static ProgramImage build(ProgramBinding binding, long rows) {
    List<Column> columns = binding.columns();
    long n = rows;
    long[] offsets = new long[columns.size()];
    long at = 0;
    for (int c = 0; c < columns.size(); c++) {
      Column col = columns.get(c);
      if (col.width() == 8 && (at & 1) != 0) {
        at++;
      }
      offsets[c] = at;
      at += n * col.width() / 4;
    }
    int programs = binding.programCount();
    List<Integer> w = new ArrayList<>();
    w.add(MAGIC);
    w.add(Opcodes.VERSION);
    w.add(programs);
    w.add(columns.size());
    w.add(0); // total words, set below
    w.add(binding.batch().programs().maxRegisters());
    w.add(binding.batch().programs().maxOutputs());
    w.add(0);
    for (int c = 0; c < columns.size(); c++) {
      if (offsets[c] > 0xffffffffL) {
        throw new IllegalArgumentException("columns: the batch's columns exceed 2^32 words");
      }
      w.add((int) offsets[c]);
      w.add(columns.get(c).width());
    }
    int dirBase = w.size();
    for (int i = 0; i < programs * DIR_WORDS; i++) {
      w.add(0);
    }
    for (int p = 0; p < programs; p++) {
      ProgramBinding.Bound b = binding.bound(p);
      CompiledProgram prog = b.program();
      int dir = dirBase + p * DIR_WORDS;
      w.set(dir, w.size());
      w.set(dir + 1, prog.code().length);
      for (int code : prog.code()) {
        w.add(code);
      }
      w.set(dir + 2, w.size());
      w.set(dir + 3, prog.constants().length);
      for (long k : prog.constants()) {
        w.add((int) k);
        w.add((int) (k >>> 32));
      }
      int[] slots = b.slotColumns();
      w.set(dir + 4, w.size());
      w.set(dir + 5, slots.length);
      for (int s : slots) {
        w.add(Math.max(0, s));
      }
      int[] first = prog.paramSlots();
      w.set(dir + 6, w.size());
      w.set(dir + 7, first.length);
      for (int i = 0; i < first.length; i++) {
        w.add(first[i]);
        w.add(prog.params().get(i).length());
      }
      int[] regions = b.regions();
      w.set(dir + 8, w.size());
      w.set(dir + 9, regions.length);
      for (int r = 0; r < regions.length; r++) {
        w.add(regions[r]);
        w.add(regions[r] >= 0 ? binding.layout().region(regions[r]).length() : 0);
      }
      w.set(dir + 10, w.size());
      w.set(dir + 11, prog.outputRegisters().length);
      for (int reg : prog.outputRegisters()) {
        w.add(reg);
      }
      w.set(dir + 12, prog.registers());
      w.set(dir + 13, (int) prog.analysis().steps());
      w.set(dir + 14, prog.analysis().readOnly() ? 1 : 0);
      // Each region's lock row: the store region whose locks guard it (the first with the same
      // locks), or -1 where the store lacks it. Compiled programs lay their sets out by it
      // (ProgramPtx's fixed slots); the interpreter does not read it.
      w.set(dir + 15, w.size());
      for (int region : regions) {
        w.add(region >= 0 ? lockRow(binding.layout(), region) : -1);
      }
      // Each region's word size in bytes (4 or 8; 0 where the store lacks it): compiled
      // programs load a word at its width, the interpreter asks the store's view.
      w.set(dir + 16, w.size());
      for (int region : regions) {
        w.add(region >= 0 ? binding.layout().region(region).type().wordBytes() : 0);
      }
    }
    w.set(4, w.size());
    return new ProgramImage(w.stream().mapToInt(Integer::intValue).toArray(), offsets, at);
  }

  /** The first store region whose locks are region {@code r}'s. */
  private static int lockRow(StoreLayout layout, int r) {
    for (int q = 0; q < r; q++) {
      if (layout.sameLocks(q, r)) {
        return q;
      }
    }
    return r;
  }

  /** Bytes of dynamic shared memory a PR-STM program block of {@code threads} needs. */
  long sharedBytes(int registers, int threads) {
    return ((words.length + 1) / 2) * 8L + (long) registers * 8 * threads;
  }
}
