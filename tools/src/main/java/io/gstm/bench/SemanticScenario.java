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

/**
 * A semantic-contention batch ready to run again and again: its store layout, initial contents,
 * batch, type tags (for pre-sorting) and exact verifier. Bank and vacation, as the JPDC paper.
 */
public interface SemanticScenario {
  StoreLayout layout();

  /** Writes the initial contents (again, before each run). */
  void load(TxStore store);

  TxBatch batch();

  /** The workload's ordering tags, for {@code TxBatches.presort}. */
  int[] tags();

  /** Whether the store's contents after {@code batch} are exactly what {@code result} says. */
  boolean verify(TxStore store, TxBatch batch, BatchResult result);

  /**
   * {@code batch} (this scenario's, pre-sorted or not) as transaction programs with the same
   * meaning, on the same grid: what GPU-STM runs on the GPU. {@link #verify} checks a run of it
   * given the program result's {@code stats()}.
   */
  ProgramBatch programs(TxBatch batch);

  /** Deposit/withdrawal pairs and checked transfers. */
  static SemanticScenario bank(SemanticBankConfig cfg) {
    int[] initial = cfg.initialBalances();
    TxBatch batch = cfg.batch();
    return new SemanticScenario() {
      public StoreLayout layout() {
        return cfg.layout();
      }

      public void load(TxStore store) {
        store.writeInt32(0, initial);
      }

      public TxBatch batch() {
        return batch;
      }

      public int[] tags() {
        return BankWorkload.INSTANCE.orderingTags();
      }

      public boolean verify(TxStore store, TxBatch b, BatchResult r) {
        return BankVerifier.verify(initial, b, r, store.readInt32(0)).ok();
      }

      public ProgramBatch programs(TxBatch b) {
        return BankPrograms.batch(b, BankPrograms.set(b, false));
      }
    };
  }

  /** Book/cancel pairs and lone bookings in the hotel. */
  static SemanticScenario vacation(VacationConfig cfg) {
    int[] rooms = cfg.initialRooms();
    int[] customers = cfg.initialCustomers();
    TxBatch batch = cfg.batch();
    return new SemanticScenario() {
      public StoreLayout layout() {
        return cfg.layout();
      }

      public void load(TxStore store) {
        store.writeInt32(0, rooms);
        store.writeInt32(1, customers);
      }

      public TxBatch batch() {
        return batch;
      }

      public int[] tags() {
        return VacationWorkload.INSTANCE.orderingTags();
      }

      public boolean verify(TxStore store, TxBatch b, BatchResult r) {
        return VacationVerifier.verify(rooms, customers, b, r, store.readInt32(0),
            store.readInt32(1)).ok();
      }

      public ProgramBatch programs(TxBatch b) {
        return VacationPrograms.batch(b, VacationPrograms.set(b, false));
      }
    };
  }
}
