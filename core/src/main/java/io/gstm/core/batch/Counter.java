package io.gstm.core.batch;

/**
 * Batch counters: commits and aborts by cause. Order matches the kernels' {@code gstm::Counter}.
 */
public enum Counter {
  COMMITS,
  READ_ONLY_COMMITS,
  /** A read or write found the lock held by a committing writer. */
  ABORT_READ_LOCKED,
  /** A version changed since it was read. */
  ABORT_VALIDATION,
  /** A pre-lock was refused: held by a higher priority, or already locked. */
  ABORT_PRELOCK_REFUSED,
  /** A pre-lock was stolen by a higher-priority thread before the commit. */
  ABORT_STOLEN,
  ABANDONED,
  TOO_LARGE,
  /** Attempts that met a semantic conflict (postponed, or retried in place). */
  SEMANTIC_CONFLICTS,
  ABANDONED_SEMANTIC,
  /** CSMV: the version a snapshot needs has left the ring (too few versions); retried. */
  ABORT_DATA_AGE,
  /** CSMV: the commit record no longer holds every commit since the snapshot; retried. */
  ABORT_RECORD_AGE,
  /** CSMV: a commit since the snapshot wrote what the transaction read or writes. */
  ABORT_RW_CONFLICT,
  /** CSMV: an earlier transaction of the same warp batch writes what this one reads or writes. */
  ABORT_PREVALIDATION,
  /**
   * PR-STM: transactions that lost {@code 8} attempts in a row and turned urgent (they then
   * outrank every ordinary transaction and read visibly, so each commits; docs/design.md).
   */
  URGENT,
  /**
   * At commit, a lock to take was held by another transaction (GPU-STM: past a bounded wait;
   * blocking: at once) or being written back past a bounded wait (obstruction-free).
   */
  ABORT_LOCK_BUSY,
  /** Obstruction-free: another transaction aborted this one while it acquired its locks. */
  ABORT_KILLED,
  /**
   * Obstruction-free: locks taken from a transaction that had committed but not yet written
   * back, by writing back the values it announced (not an abort).
   */
  LOCKS_STOLEN;

  /** Number of counters. */
  public static final int COUNT = values().length;

  /** True for the abort causes. */
  public boolean isAbort() {
    return name().startsWith("ABORT_");
  }

  /** In words, an abort cause without its prefix: "read locked", "lock busy", "killed". */
  public String label() {
    String n = isAbort() ? name().substring("ABORT_".length()) : name();
    return n.toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
  }
}
