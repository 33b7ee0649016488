package io.gstm.core.engine;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;

/**
 * Runs transaction batches against stores it owns: {@code CudaEngine} on a GPU, {@code JvmEngine}
 * on Java threads, with the same algorithms and the same results for the same batch.
 *
 * <p>The caller closes the engine, after closing its stores.
 */
public interface Engine extends AutoCloseable {

  /** "cuda" or "jvm". */
  String name();

  /** The device in words, e.g. "NVIDIA H100 80GB HBM3 (sm_90)". */
  String device();

  /** Creates a zero-filled PR-STM store on this engine; the caller closes it. */
  TxStore createStore(StoreLayout layout);

  /**
   * Creates a zero-filled store for {@code algorithm} (fixed for the store's life); the caller
   * closes it. Bad input (e.g. a CSMV store over 8-byte words) is an IllegalArgumentException.
   */
  default TxStore createStore(StoreLayout layout, Algorithm algorithm) {
    if (algorithm.isCsmv()) {
      throw new IllegalArgumentException(
          "algorithm: engine '" + name() + "' has no " + algorithm.label() + " stores");
    }
    return createStore(layout);
  }

  /**
   * Runs every transaction of {@code batch} against {@code store}. Bad input throws an
   * IllegalArgumentException before anything runs and leaves the store as it was.
   */
  BatchResult run(TxStore store, TxBatch batch, RunOptions options);

  /**
   * Runs a batch of transaction programs against {@code store}: on a PR-STM store under the
   * semantic contention manager (a program's {@code retry} postpones it), on a CSMV store with
   * read-only programs on snapshots. Bad input (a region the store lacks or types that differ,
   * a missing column, a program CSMV cannot run) throws an IllegalArgumentException naming it
   * before anything runs, and leaves the store as it was.
   */
  ProgramResult run(TxStore store, ProgramBatch batch, RunOptions options);

  /** Measures random read+CAS, atomic add and dependent-load rates on {@code words} words. */
  LimitsReport probeLimits(int words);

  @Override
  void close();
}
