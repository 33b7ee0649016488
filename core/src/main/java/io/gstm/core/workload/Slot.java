package io.gstm.core.workload;

import java.util.Locale;

/**
 * A named position in a batch's encoding, declared as an enum constant: its ordinal is the index
 * the CUDA twin reads, so the order of the constants is the encoding, and its name is the one
 * the messages use ({@code FIRST_EDGE} is {@code firstEdge}).
 */
public interface Slot {
  int ordinal();

  String name();

  /** The index this slot stands for. */
  default int index() {
    return ordinal();
  }

  /** The name messages use: the constant's name in lower camel case. */
  default String label() {
    String[] words = name().toLowerCase(Locale.ROOT).split("_");
    StringBuilder b = new StringBuilder(words[0]);
    for (int i = 1; i < words.length; i++) {
      b.append(Character.toUpperCase(words[i].charAt(0))).append(words[i], 1, words[i].length());
    }
    return b.toString();
  }
}
