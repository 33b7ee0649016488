package io.gstm.core.program;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The bytecode {@link ProgramCompiler} writes: instruction words ({@link Opcodes}), the constant
 * pool, forward branches patched when their label is bound, and what a rewrite of the last
 * instruction must know (where it starts, whether a jump may land after it). Limits and their
 * messages stay with the compiler.
 */
final class CodeWriter {
  private final List<Integer> code = new ArrayList<>();
  private final List<Long> constants = new ArrayList<>();
  private final Map<Long, Integer> constantIndex = new HashMap<>();
  /** Code position of the last bound label: an instruction there may be a jump target. */
  private int lastLabel = -1;
  /** Where the last instruction starts. */
  private int lastStart = -1;

  /** Where the writer stands, to drop what is written after it ({@link #reset}). */
  record Mark(int codeSize, int constantCount, int lastLabel, int lastStart) {}

  /** The pool index of a constant, added if new; -1 if the pool already holds {@code limit}. */
  int constant(long bits, int limit) {
    Integer k = constantIndex.get(bits);
    if (k == null) {
      k = constants.size();
      if (k >= limit) {
        return -1;
      }
      constants.add(bits);
      constantIndex.put(bits, k);
    }
    return k;
  }

  void emit(int op, int a, int b, int c) {
    lastStart = code.size();
    code.add(Opcodes.encode(op, a, b, c));
  }

  /** A word that belongs to the instruction before it (an operand). */
  void word(int w) {
    code.add(w);
  }

  int here() {
    return code.size();
  }

  /** Emits a branch to a later label; returns the position to patch. */
  int branch(int op, int reg) {
    int at = here();
    emit(op, reg, 0, 0);
    return at;
  }

  /** Points the branch at {@code at} here. */
  void bind(int at) {
    int target = here();
    int w = code.get(at);
    int op = w & 0xff;
    if (op == Opcodes.JMP) {
      code.set(at, Opcodes.JMP | target << 8);
    } else {
      code.set(at, (w & 0xffff) | (target & 0xff) << 16 | (target >>> 8 & 0xff) << 24);
    }
    lastLabel = target;
  }

  /** Marks the current position as a jump target (a loop's top). */
  void label() {
    lastLabel = here();
  }

  void jumpBack(int target) {
    emit(Opcodes.JMP, target & 0xff, target >>> 8 & 0xff, target >>> 16 & 0xff);
  }

  /**
   * The position of the last instruction if it may be rewritten in place (it is one word and
   * nothing jumps to the position after it), else -1.
   */
  int rewritableLast() {
    int last = here() - 1;
    return last >= 0 && lastStart == last && here() != lastLabel ? last : -1;
  }

  int wordAt(int at) {
    return code.get(at);
  }

  void setWord(int at, int w) {
    code.set(at, w);
  }

  Mark mark() {
    return new Mark(code.size(), constants.size(), lastLabel, lastStart);
  }

  /** Drops every word and constant written since {@code m}. */
  void reset(Mark m) {
    code.subList(m.codeSize(), code.size()).clear();
    constants.subList(m.constantCount(), constants.size()).clear();
    constantIndex.values().removeIf(k -> k >= m.constantCount());
    lastLabel = m.lastLabel();
    lastStart = m.lastStart();
  }

  int[] words() {
    return code.stream().mapToInt(Integer::intValue).toArray();
  }

  long[] pool() {
    return constants.stream().mapToLong(Long::longValue).toArray();
  }
}
