package io.gstm.cli;

import picocli.CommandLine.Option;

/** The bank's size and mix, for the commands that run one bank batch configuration. */
final class BankOptions {
  @Option(names = "--accounts", description = "Accounts (default ${DEFAULT-VALUE}).")
  int accounts;

  @Option(names = "--k", description = "Accounts per transaction (default ${DEFAULT-VALUE}).")
  int k;

  @Option(names = "--read-only",
      description = "Fraction of read-only audits, 0..1 (default ${DEFAULT-VALUE}).")
  double readOnly;

  /** The command's defaults, shown in its help. */
  BankOptions(int accounts, int k, double readOnly) {
    this.accounts = accounts;
    this.k = k;
    this.readOnly = readOnly;
  }
}
