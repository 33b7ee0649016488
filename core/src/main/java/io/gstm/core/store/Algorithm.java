package io.gstm.core.store;

/**
 * The concurrency-control algorithm of a store, fixed when the store is created: PR-STM keeps a
 * lock table, CSMV a ring of versions per item, a global timestamp and a commit record, GPU-STM
 * (Xu et al.; the JVM engine only so far) PR-STM's lock table without pre-locks.
 * Immutable; {@code withX} returns a new object.
 *
 * @param kind PR-STM, CSMV or GPU-STM
 * @param versions CSMV: versions kept per item, {@value #MIN_VERSIONS}..{@value #MAX_VERSIONS}
 * @param variant CSMV: which GPU optimisations are on
 * @param recordEntries CSMV: commit-record (ATR) entries, {@value #MIN_RECORD}..{@value
 *     #MAX_RECORD}; a transaction whose snapshot is older than the record reaches aborts with
 *     the record-age cause
 */
public record Algorithm(Kind kind, int versions, CsmvVariant variant, int recordEntries) {
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
    GPU_STM
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

  /** Full CSMV with {@code versions} versions per item and the default commit record. */
  public static Algorithm csmv(int versions) {
    return new Algorithm(Kind.CSMV, versions, CsmvVariant.CSMV, DEFAULT_RECORD);
  }

  public Algorithm withVariant(CsmvVariant value) {
    return new Algorithm(kind, versions, value, recordEntries);
  }

  public Algorithm withRecordEntries(int value) {
    return new Algorithm(kind, versions, variant, value);
  }

  public boolean isCsmv() {
    return kind == Kind.CSMV;
  }

  public boolean isGpuStm() {
    return kind == Kind.GPU_STM;
  }

  /** "prstm", "gpu-stm", or the CSMV variant's label with its versions, e.g. "csmv-nocv/4v". */
  public String label() {
    return switch (kind) {
      case PRSTM -> "prstm";
      case GPU_STM -> "gpu-stm";
      case CSMV -> variant.label() + "/" + versions + "v";
    };
  }
}
