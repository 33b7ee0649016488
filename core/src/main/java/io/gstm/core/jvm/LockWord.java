package io.gstm.core.jvm;

/**
 * PR-STM's 64-bit lock word, as in {@code gstm/lock_word.cuh}: [63:32] version, [31:2] owner
 * (thread priority, lower wins), [1] pre-locked, [0] locked.
 */
final class LockWord {
  static final int OWNER_BITS = 30;
  static final int MAX_OWNER = (1 << OWNER_BITS) - 1;

  private LockWord() {}

  static int version(long w) {
    return (int) (w >>> 32);
  }

  static int owner(long w) {
    return (int) (w >>> 2) & MAX_OWNER;
  }

  static boolean locked(long w) {
    return (w & 1L) != 0;
  }

  static boolean preLocked(long w) {
    return (w & 2L) != 0;
  }

  static long unlocked(int version) {
    return (long) version << 32;
  }

  static long preLockedBy(int version, int owner) {
    return unlocked(version) | ((long) owner << 2) | 2L;
  }

  static long lockedBy(int version, int owner) {
    return unlocked(version) | ((long) owner << 2) | 1L;
  }
}
