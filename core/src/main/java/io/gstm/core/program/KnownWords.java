package io.gstm.core.program;

import java.util.HashSet;
import java.util.Set;

/**
 * Words whose lock is already in a transaction's set, and words already written, by a stable key
 * of region and index ({@link ProgramCompiler}): a second access to one adds nothing to the
 * bounds.
 */
final class KnownWords {
  final Set<String> locked;
  final Set<String> written;

  KnownWords(Set<String> locked, Set<String> written) {
    this.locked = locked;
    this.written = written;
  }

  KnownWords copy() {
    return new KnownWords(new HashSet<>(locked), new HashSet<>(written));
  }
}
