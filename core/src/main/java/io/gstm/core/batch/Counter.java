package io.gstm.core.batch;

/**
 * Batch counters: commits and aborts by cause. Order matches the kernels' {@code gstm::Counter}.
 */
public enum Counter {
  COMMITS(Kind.COMMIT),
  READ_ONLY_COMMITS(Kind.COMMIT),
  /** A read or write found the lock held by a committing writer. */
  ABORT_READ_LOCKED(Kind.ABORT),
  /** A version changed since it was read. */
  ABORT_VALIDATION(Kind.ABORT),
  /** A pre-lock was refused: held by a higher priority, or already locked. */
  ABORT_PRELOCK_REFUSED(Kind.ABORT),
  /** A pre-lock was stolen by a higher-priority thread before the commit. */
  ABORT_STOLEN(Kind.ABORT),
  ABANDONED(Kind.GIVEN_UP),
  TOO_LARGE(Kind.GIVEN_UP),
  /** Attempts that met a semantic conflict (postponed, or retried in place). */
  SEMANTIC_CONFLICTS(Kind.EVENT),
  ABANDONED_SEMANTIC(Kind.GIVEN_UP),
  /** CSMV: the version a snapshot needs has left the ring (too few versions); retried. */
  ABORT_DATA_AGE(Kind.ABORT),
  /** CSMV: the commit record no longer holds every commit since the snapshot; retried. */
  ABORT_RECORD_AGE(Kind.ABORT),
  /** CSMV: a commit since the snapshot wrote what the transaction read or writes. */
  ABORT_RW_CONFLICT(Kind.ABORT),
  /** CSMV: an earlier transaction of the same warp batch writes what this one reads or writes. */
  ABORT_PREVALIDATION(Kind.ABORT),
  /**
   * PR-STM: transactions that lost {@code 8} attempts in a row and turned urgent (they then
   * outrank every ordinary transaction and read visibly, so each commits; docs/design.md).
   */
  URGENT(Kind.EVENT),
  /**
   * At commit, a lock to take was held by another transaction (GPU-STM: past a bounded wait;
   * blocking: at once) or being written back past a bounded wait (obstruction-free).
   */
  ABORT_LOCK_BUSY(Kind.ABORT),
  /** Obstruction-free: another transaction aborted this one while it acquired its locks. */
  ABORT_KILLED(Kind.ABORT),
  /**
   * Obstruction-free: locks taken from a transaction that had committed but not yet written
   * back, by writing back the values it announced (not an abort).
   */
  LOCKS_STOLEN(Kind.EVENT);

  /**
   * What a counter counts: commits, aborted attempts (each constant an abort cause, retried),
   * transactions given up (they end without committing), or events that are neither.
   */
  public enum Kind {
    COMMIT,
    ABORT,
    GIVEN_UP,
    EVENT
  }

  /** Number of counters. */
  public static final int COUNT = values().length;

  private final Kind kind;

  Counter(Kind kind) {
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }

  /** True for the abort causes. */
  public boolean isAbort() {
    return kind == Kind.ABORT;
  }

  /** In words, an abort cause without its prefix: "read locked", "lock busy", "killed". */
  public String label() {
    String n = isAbort() ? name().substring("ABORT_".length()) : name();
    return n.toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
  }
}
