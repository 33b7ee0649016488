package io.gstm.core.store;

import io.gstm.core.engine.Choices;

/**
 * Which of CSMV's GPU optimisations a CSMV store runs with: the full algorithm, the paper's two
 * ablations, and JVSTM-GPU (no server at all, commit record in global memory behind a lock).
 * The JVM engine has the same semantics for every variant; only the GPU kernel differs.
 */
public enum CsmvVariant {
  /**
   * Everything on: pre-validation, collaborative validation (for transactions of more than 16
   * items; shorter ones are validated by their own lane), batched insert, client write-back.
   */
  CSMV("csmv", CsmvVariant.SERVER | CsmvVariant.CV | CsmvVariant.WARP_BATCHING),
  /** Collaborative validation off (the paper's CSMV-NoCV). */
  NO_CV("csmv-nocv", CsmvVariant.SERVER | CsmvVariant.WARP_BATCHING),
  /**
   * Only the client-server split (CSMV-onlyCS): no collaborative validation, no pre-validation,
   * no batched insert, the server writes back.
   */
  ONLY_CS("csmv-onlycs", CsmvVariant.SERVER),
  /** JVSTM ported as is: no server; each thread commits behind a global lock. */
  JVSTM_GPU("jvstm-gpu", 0);

  // The flag bits the kernel reads.
  private static final int SERVER = 1;
  private static final int CV = 2;
  private static final int WARP_BATCHING = 4;

  private final String label;
  private final int flags;

  CsmvVariant(String label, int flags) {
    this.label = label;
    this.flags = flags;
  }

  /** The name used by the CLI and reports. */
  public String label() {
    return label;
  }

  /** True when a server block validates and inserts commits. */
  public boolean server() {
    return (flags & SERVER) != 0;
  }

  /** True when a server warp validates one transaction's entries together. */
  public boolean collaborativeValidation() {
    return (flags & CV) != 0;
  }

  /** Client pre-validation, batched commit-record insert and client write-back. */
  public boolean warpBatching() {
    return (flags & WARP_BATCHING) != 0;
  }

  /** Flag bits the kernel reads: 1 server, 2 collaborative validation, 4 warp batching. */
  public int flags() {
    return flags;
  }

  /** The variant with this label (or constant name); an unknown one is an error listing all. */
  public static CsmvVariant parse(String label) {
    return Choices.parse("variant", "CSMV variant", label, values(), CsmvVariant::label);
  }
}
