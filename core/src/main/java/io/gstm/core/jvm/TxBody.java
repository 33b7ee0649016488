package io.gstm.core.jvm;

import io.gstm.core.program.Interpreter;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.TxContext;
import io.gstm.core.workload.Workload;

/**
 * What a JVM worker runs for transaction {@code t}: a hand-written workload's body or a
 * program's, through one seam (the twin of the kernels' {@code Ops::run}). One per worker.
 */
interface TxBody {
  /** Runs the body; returns what a committed read-only transaction reports (0 if nothing). */
  long run(TxContext tx, int t);

  /** True when transaction {@code t} is declared read-only (CSMV runs it on a snapshot). */
  boolean readOnly(int t);

  /** A hand-written workload's body. */
  static TxBody of(Workload workload, TxBatch batch) {
    return new TxBody() {
      @Override
      public long run(TxContext tx, int t) {
        return workload.run(tx, batch, t);
      }

      @Override
      public boolean readOnly(int t) {
        return workload.readOnly(batch, batch.types()[t]);
      }

      @Override
      public String toString() {
        return "workload '" + workload.name() + "'";
      }
    };
  }

  /** A program batch's body, run by an interpreter of this worker's own. */
  static TxBody of(Interpreter interpreter) {
    return new TxBody() {
      @Override
      public long run(TxContext tx, int t) {
        return interpreter.run(tx, t);
      }

      @Override
      public boolean readOnly(int t) {
        return interpreter.readOnly(t);
      }

      @Override
      public String toString() {
        return "programs";
      }
    };
  }
}
