package io.gstm.core.store;

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
  CSMV("csmv", true, true, true),
  /** Collaborative validation off (the paper's CSMV-NoCV). */
  NO_CV("csmv-nocv", true, false, true),
  /**
   * Only the client-server split (CSMV-onlyCS): no collaborative validation, no pre-validation,
   * no batched insert, the server writes back.
   */
  ONLY_CS("csmv-onlycs", true, false, false),
  /** JVSTM ported as is: no server; each thread commits behind a global lock. */
  JVSTM_GPU("jvstm-gpu", false, false, false);

  private final String label;
  private final boolean server;
  private final boolean collaborativeValidation;
  private final boolean warpBatching;

  CsmvVariant(String label, boolean server, boolean cv, boolean warpBatching) {
    this.label = label;
    this.server = server;
    this.collaborativeValidation = cv;
    this.warpBatching = warpBatching;
  }

  /** The name used by the CLI and reports. */
  public String label() {
    return label;
  }

  /** True when a server block validates and inserts commits. */
  public boolean server() {
    return server;
  }

  /** True when a server warp validates one transaction's entries together. */
  public boolean collaborativeValidation() {
    return collaborativeValidation;
  }

  /** Client pre-validation, batched commit-record insert and client write-back. */
  public boolean warpBatching() {
    return warpBatching;
  }

  /** Flag bits the kernel reads: 1 server, 2 collaborative validation, 4 warp batching. */
  public int flags() {
    return (server ? 1 : 0) | (collaborativeValidation ? 2 : 0) | (warpBatching ? 4 : 0);
  }

  /** The variant with this label; an unknown one is an IllegalArgumentException listing all. */
  public static CsmvVariant parse(String label) {
    for (CsmvVariant v : values()) {
      if (v.label.equalsIgnoreCase(label) || v.name().equalsIgnoreCase(label)) {
        return v;
      }
    }
    StringBuilder known = new StringBuilder();
    for (CsmvVariant v : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(v.label);
    }
    throw new IllegalArgumentException(
        "variant: unknown CSMV variant '" + label + "', known: " + known);
  }
}
