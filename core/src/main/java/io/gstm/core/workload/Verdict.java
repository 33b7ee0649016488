package io.gstm.core.workload;

import java.util.List;

/**
 * What an exact verifier found ({@code BankVerifier}, {@code VacationVerifier},
 * {@code MemcachedVerifier}, {@code ProgramReplay}): whether every check passed and, where not,
 * the first problems.
 *
 * @param ok whether every check passed
 * @param problems the first failures, in words
 */
public record Verdict(boolean ok, List<String> problems) {
  @Override
  public String toString() {
    return ok ? "OK" : "FAILED " + problems;
  }
}
