package io.gstm.cli;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.Verdict;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.bank.SemanticBankConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gstm bank}: one bank batch on the chosen engine, verified. */
@Command(name = "bank", mixinStandardHelpOptions = true,
    description = "Run one PR-STM bank batch and verify it: k-account transfers and audits, "
        + "or deposits and withdrawals under the semantic contention manager.")
final class BankCommand extends EngineCommand {
  @Mixin SemanticOptions semantic = new SemanticOptions();

  @Mixin BankOptions bank = new BankOptions(1 << 20, 2, 0.2);

  @Mixin GridOptions grid = new GridOptions(256, 132, 4);

  @Mixin LockCoverageOption coverage = new LockCoverageOption();

  @Mixin SeedOption seed = new SeedOption(1);

  @Option(names = "--max-retries", defaultValue = "" + RunOptions.DEFAULT_MAX_RETRIES,
      description = "Attempts per transaction before it is abandoned (default ${DEFAULT-VALUE}).")
  int maxRetries;

  @Option(names = "--semantic-ratio",
      description = "Run the semantic bank instead: this share (0..1) of transactions are "
          + "deposit/withdrawal pairs in random order, the rest checked transfers.")
  Double semanticRatio;

  @Option(names = "--history",
      description = "Record versions and run the serializability checker (small batches).")
  boolean history;

  @Override
  Run prepare() {
    RunOptions options = semantic.apply(new RunOptions(maxRetries, history));
    TxBatch generated;
    int[] initial;
    StoreLayout layout;
    if (semanticRatio == null) {
      BankConfig cfg = BankConfig.builder().accounts(bank.accounts).k(bank.k)
          .readOnly(bank.readOnly).lockCoverage(coverage.lockCoverage)
          .grid(grid.threadsPerBlock(), grid.blocks).txPerThread(grid.txPerThread).seed(seed.seed())
          .build();
      generated = cfg.batch();
      initial = cfg.initialBalances();
      layout = cfg.layout();
    } else {
      SemanticBankConfig cfg = SemanticBankConfig.builder().accounts(bank.accounts).k(bank.k)
          .semanticRatio(semanticRatio).lockCoverage(coverage.lockCoverage)
          .grid(grid.threadsPerBlock(), grid.blocks).txPerThread(grid.txPerThread).seed(seed.seed())
          .build();
      generated = cfg.batch();
      initial = cfg.initialBalances();
      layout = cfg.layout();
    }
    TxBatch batch = semantic.presort
        ? TxBatches.presort(generated, BankWorkload.INSTANCE.orderingTags()) : generated;
    return e -> {
      try (TxStore store = e.createStore(layout)) {
        store.writeInt32(0, initial);
        BatchResult r = e.run(store, batch, options);
        int[] after = store.readInt32(0);
        Verdict verdict = BankVerifier.verify(initial, batch, r, after);
        System.out.printf("bank: %,d accounts, k=%d, %s, lock coverage %d, %,d threads x %d tx = "
                + "%,d transactions%n", bank.accounts, bank.k,
            semanticRatio == null ? String.format("%.0f%% read-only", bank.readOnly * 100)
                : String.format("%.0f%% semantic, %s", semanticRatio * 100, semantic.describe()),
            coverage.lockCoverage, grid.threads(), grid.txPerThread, batch.txCount());
        Reports.printOutcome(r);
        System.out.println("verifier: " + verdict);
        boolean ok = verdict.ok();
        if (history) {
          ok &= Reports.checkHistory(r.history(), order -> {
            Verdict replay = BankVerifier.replay(initial, batch, order);
            System.out.println("serial replay (every committed withdrawal saw enough): " + replay);
            return replay.ok();
          });
        }
        return ok ? 0 : 1;
      }
    };
  }
}
