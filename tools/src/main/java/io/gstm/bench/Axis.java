package io.gstm.bench;

import java.util.Locale;

/**
 * What a sweep moves: the parameter, the experiment it makes, the table column it varies and how
 * a title names that column.
 *
 * @param sweep the parameter, a constant of the experiment's own enum (its switches stay
 *     exhaustive)
 * @param experiment the experiment's name, e.g. "prstm-size"
 * @param column the varied column, e.g. "k"
 * @param words the column in words, e.g. "transaction size (accounts per transfer)"
 */
record Axis<S extends Enum<S>>(S sweep, String experiment, String column, String words) {

  /** The axis of the experiment named after its family and sweep, e.g. "prstm" and SIZE. */
  static <S extends Enum<S>> Axis<S> of(String family, S sweep, String column, String words) {
    return new Axis<>(sweep, family + "-" + sweep.name().toLowerCase(Locale.ROOT), column, words);
  }
}
