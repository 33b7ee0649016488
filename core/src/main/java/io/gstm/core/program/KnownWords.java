package io.gstm.core.program;

import java.util.HashSet;
import java.util.Set;

/**
 * Words whose lock is already in a transaction's set, and words already written, by a stable key
 * of region and index ({@link ProgramCompiler}): a second access to one adds nothing to the
 * bounds. {@code rows}: the indices whose lock is in the set when all of a program's regions
 * share one row of locks (word {@code i} of each guarded by lock {@code i}).
 */
final class KnownWords {
  final Set<String> locked;
  final Set<String> written;
  final Set<String> rows;

  KnownWords(Set<String> locked, Set<String> written, Set<String> rows) {
    this.locked = locked;
    this.written = written;
    this.rows = rows;
  }

  KnownWords() {
    this(new HashSet<>(), new HashSet<>(), new HashSet<>());
  }

  KnownWords copy() {
    return new KnownWords(new HashSet<>(locked), new HashSet<>(written), new HashSet<>(rows));
  }

  /** Keeps what both branches of an if know (after the if, either may have run). */
  void addCommon(KnownWords a, KnownWords b) {
    locked.addAll(common(a.locked, b.locked));
    written.addAll(common(a.written, b.written));
    rows.addAll(common(a.rows, b.rows));
  }

  private static Set<String> common(Set<String> a, Set<String> b) {
    Set<String> both = new HashSet<>(a);
    both.retainAll(b);
    return both;
  }
}
