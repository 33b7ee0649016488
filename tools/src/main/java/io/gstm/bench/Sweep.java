package io.gstm.bench;

import java.util.Locale;

/**
 * The parameter a sweep experiment moves, with the column and the words its tables and titles
 * give it unless the experiment says otherwise.
 */
enum Sweep {
  SIZE("k", "transaction size (accounts per transfer)"),
  RATIO("semantic_ratio", "semantic ratio"),
  THREADS("threads", "thread count"),
  COVERAGE("lock_coverage", "lock coverage");

  private final String column;
  private final String words;

  Sweep(String column, String words) {
    this.column = column;
    this.words = words;
  }

  /** The axis of the experiment named after its family and this sweep, e.g. "prstm-size". */
  Axis axis(String family) {
    return axis(family, column, words);
  }

  /** As {@link #axis(String)}, its column in other words. */
  Axis axis(String family, String otherWords) {
    return axis(family, column, otherWords);
  }

  /** As {@link #axis(String)}, another column. */
  Axis axis(String family, String otherColumn, String otherWords) {
    return new Axis(this, family + "-" + name().toLowerCase(Locale.ROOT), otherColumn,
        otherWords);
  }
}
