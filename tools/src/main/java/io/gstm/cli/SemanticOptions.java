package io.gstm.cli;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import picocli.CommandLine.Option;

/** The semantic contention manager's options, shared by the workload commands. */
final class SemanticOptions {
  @Option(names = "--policy", defaultValue = "postpone",
      description = "Semantic conflicts: postpone or retry-in-place (default ${DEFAULT-VALUE}).")
  String policy;

  @Option(names = "--semantic-limit",
      description = "Semantic conflicts before a transaction is abandoned "
          + "(default: 10000 for postpone, 100 for retry-in-place).")
  Integer semanticLimit;

  @Option(names = "--presort", description = "Pre-sort the table by type ordering tag.")
  boolean presort;

  /** {@code base} with the chosen policy and limit. */
  RunOptions apply(RunOptions base) {
    RunOptions options = base.withPolicy(SemanticPolicy.parse(policy));
    return semanticLimit == null ? options : options.withSemanticLimit(semanticLimit);
  }

  /** How the run is described in reports, e.g. "policy postpone, pre-sorted". */
  String describe() {
    return "policy " + SemanticPolicy.parse(policy).cliName() + (presort ? ", pre-sorted" : "");
  }
}
