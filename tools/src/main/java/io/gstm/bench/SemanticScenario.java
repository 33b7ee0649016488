package io.gstm.bench;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationPrograms;
import io.gstm.core.workload.vacation.VacationVerifier;
import io.gstm.core.workload.vacation.VacationWorkload;
import java.util.function.Function;

/**
 * A semantic-contention batch ready to run again and again: its store layout, initial contents
 * (one array per int32 region), batch, type tags (for pre-sorting) and exact verifier. Bank and
 * vacation, as the JPDC paper.
 *
 * @param layout the store's regions
 * @param initial each region's contents before a run
 * @param batch the generated batch
 * @param tags the workload's ordering tags, for {@code TxBatches.presort}
 * @param verifier the workload's exact verifier
 * @param translator the batch as transaction programs
 */
public record SemanticScenario(StoreLayout layout, int[][] initial, TxBatch batch, int[] tags,
    Verifier verifier, Function<TxBatch, ProgramBatch> translator) {

  /** Whether {@code after} is exactly what a run of {@code batch} from {@code initial} gives. */
  public interface Verifier {
    boolean ok(int[][] initial, TxBatch batch, BatchResult result, int[][] after);
  }

  /** Writes the initial contents (again, before each run). */
  public void load(TxStore store) {
    StoreRegions.write(store, initial);
  }

  /** Whether the store's contents after {@code batch} are exactly what {@code result} says. */
  public boolean verify(TxStore store, TxBatch batch, BatchResult result) {
    return verifier.ok(initial, batch, result, StoreRegions.read(store, initial.length));
  }

  /**
   * {@code batch} (this scenario's, pre-sorted or not) as transaction programs with the same
   * meaning, on the same grid: what GPU-STM runs on the GPU. {@link #verify} checks a run of it
   * given the program result's {@code stats()}.
   */
  public ProgramBatch programs(TxBatch batch) {
    return translator.apply(batch);
  }

  /** Deposit/withdrawal pairs and checked transfers. */
  public static SemanticScenario bank(SemanticBankConfig cfg) {
    return new SemanticScenario(cfg.layout(), new int[][] {cfg.initialBalances()}, cfg.batch(),
        BankWorkload.INSTANCE.orderingTags(),
        (init, b, r, after) -> BankVerifier.verify(init[0], b, r, after[0]).ok(),
        b -> BankPrograms.batch(b, BankPrograms.set(b, false)));
  }

  /** Book/cancel pairs and lone bookings in the hotel. */
  public static SemanticScenario vacation(VacationConfig cfg) {
    return new SemanticScenario(cfg.layout(),
        new int[][] {cfg.initialRooms(), cfg.initialCustomers()}, cfg.batch(),
        VacationWorkload.INSTANCE.orderingTags(),
        (init, b, r, after) -> VacationVerifier.verify(init[0], init[1], b, r, after[0],
            after[1]).ok(),
        b -> VacationPrograms.batch(b, VacationPrograms.set(b, false)));
  }
}
