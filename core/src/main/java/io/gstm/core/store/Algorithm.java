package io.gstm.core.store;

/**
 * The concurrency-control algorithm of a store, fixed when the store is created: PR-STM keeps a
 * lock table, CSMV a ring of versions per item, a global timestamp and a commit record; GPU-STM
 * (Xu et al.) and Cederman's blocking and obstruction-free STMs use PR-STM's lock table without
 * pre-locks ({@code docs/cederman-stm.md}). Immutable; {@code withX} returns a new object.
 *
 * @param kind PR-STM, CSMV, GPU-STM, blocking or obstruction-free
 * @param versions CSMV: versions kept per item, {@value #MIN_VERSIONS}..{@value #MAX_VERSIONS}
 * @param variant CSMV: which GPU optimisations are on
 * @param recordEntries CSMV: commit-record (ATR) entries, {@value #MIN_RECORD}..{@value
 *     #MAX_RECORD}; a transaction whose snapshot is older than the record reaches aborts with
 *     the record-age cause
 * @param backoff blocking and obstruction-free: the wait after an abort; null for the others
 */
public record Algorithm(Kind kind, int versions, CsmvVariant variant, int recordEntries,
    Backoff backoff) {
  /** A ring needs the newest version and one older one. */
  public static final int MIN_VERSIONS = 2;
  public static final int MAX_VERSIONS = 32;
  public static final int MIN_RECORD = 32;
  public static final int MAX_RECORD = 1 << 16;
  public static final int DEFAULT_VERSIONS = 4;
  public static final int DEFAULT_RECORD = 512;

  /** The algorithm families. */
  public enum Kind {
    PRSTM,
    CSMV,
    GPU_STM,
    /** Cederman et al.'s blocking STM: versioned locks taken at commit, readers wait. */
    BLOCKING,
    /** Cederman et al.'s obstruction-free STM: locks stolen using the announced values. */
    OBSTRUCTION_FREE
  }

  public Algorithm {
    if (kind == null) {
      throw new IllegalArgumentException("kind must not be null");
    }
    if (kind == Kind.CSMV) {
      if (versions < MIN_VERSIONS || versions > MAX_VERSIONS) {
        throw new IllegalArgumentException("versions must be in " + MIN_VERSIONS + ".."
            + MAX_VERSIONS + " (a ring keeps the newest version and at least one older), got "
            + versions);
      }
      if (variant == null) {
        throw new IllegalArgumentException("variant must not be null for CSMV");
      }
      if (recordEntries < MIN_RECORD || recordEntries > MAX_RECORD) {
        throw new IllegalArgumentException("recordEntries (commit-record size) must be in "
            + MIN_RECORD + ".." + MAX_RECORD + ", got " + recordEntries);
      }
    }
    boolean cederman = kind == Kind.BLOCKING || kind == Kind.OBSTRUCTION_FREE;
    if (cederman && backoff == null) {
      throw new IllegalArgumentException("backoff must not be null for " + kind);
    }
    if (!cederman && backoff != null) {
      throw new IllegalArgumentException("backoff: only the blocking and obstruction-free STMs "
          + "take a backoff, not " + kind);
    }
  }

  /** Any algorithm but the Cederman STMs, which need a backoff ({@link #blocking()}). */
  public Algorithm(Kind kind, int versions, CsmvVariant variant, int recordEntries) {
    this(kind, versions, variant, recordEntries, null);
  }

  /** PR-STM, the default of {@code Engine.createStore(layout)}. */
  public static Algorithm prStm() {
    return new Algorithm(Kind.PRSTM, 1, null, 0);
  }

  /**
   * GPU-STM (Xu et al.): lock sets sorted as they are met, write locks taken in that order at
   * commit, time-based validation falling back to value-based (see {@code docs/gpu-stm.md}).
   */
  public static Algorithm gpuStm() {
    return new Algorithm(Kind.GPU_STM, 1, null, 0);
  }

  /**
   * Cederman et al.'s blocking STM with the default backoff: reads wait while a word is locked,
   * commit locks what it writes by CAS on the version read and aborts on any failure, then
   * validates what it read (see {@code docs/cederman-stm.md}).
   */
  public static Algorithm blocking() {
    return new Algorithm(Kind.BLOCKING, 1, null, 0, Backoff.defaults());
  }

  /**
   * Cederman et al.'s obstruction-free STM with the default backoff: commit announces the values
   * it will write; a transaction that meets a lock of one still acquiring aborts it, of one that
   * has committed steals it by writing back the announced values (see {@code
   * docs/cederman-stm.md}).
   */
  public static Algorithm obstructionFree() {
    return new Algorithm(Kind.OBSTRUCTION_FREE, 1, null, 0, Backoff.defaults());
  }

  /** Full CSMV with {@code versions} versions per item and the default commit record. */
  public static Algorithm csmv(int versions) {
    return new Algorithm(Kind.CSMV, versions, CsmvVariant.CSMV, DEFAULT_RECORD);
  }

  public Algorithm withVariant(CsmvVariant value) {
    return new Algorithm(kind, versions, value, recordEntries, backoff);
  }

  public Algorithm withRecordEntries(int value) {
    return new Algorithm(kind, versions, variant, value, backoff);
  }

  /** This Cederman STM with another backoff; an error for the other algorithms. */
  public Algorithm withBackoff(Backoff value) {
    return new Algorithm(kind, versions, variant, recordEntries, value);
  }

  public boolean isCsmv() {
    return kind == Kind.CSMV;
  }

  public boolean isGpuStm() {
    return kind == Kind.GPU_STM;
  }

  /** Blocking or obstruction-free (Cederman et al.). */
  public boolean isCederman() {
    return kind == Kind.BLOCKING || kind == Kind.OBSTRUCTION_FREE;
  }

  /**
   * "prstm", "gpu-stm", the CSMV variant's label with its versions (e.g. "csmv-nocv/4v"),
   * "blocking" or "obstruction-free", the last two followed by ":" and the backoff's label when
   * it is not the default (e.g. "blocking:linear").
   */
  public String label() {
    return switch (kind) {
      case PRSTM -> "prstm";
      case GPU_STM -> "gpu-stm";
      case CSMV -> variant.label() + "/" + versions + "v";
      case BLOCKING -> "blocking" + backoffSuffix();
      case OBSTRUCTION_FREE -> "obstruction-free" + backoffSuffix();
    };
  }

  private String backoffSuffix() {
    return backoff.equals(Backoff.defaults()) ? "" : ":" + backoff.label();
  }
}
