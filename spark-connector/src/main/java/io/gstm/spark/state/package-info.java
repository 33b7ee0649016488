/**
 * Keyed transactional state in Spark (docs/spark-transactions.md).
 *
 * <ul>
 *   <li>API: {@link io.gstm.spark.state.TxState} (create, apply, toDF, checkpoint, restore,
 *       close), {@link io.gstm.spark.state.TxApply} (one apply's options, {@code run()}),
 *       {@link io.gstm.spark.state.ApplyResult}, {@link io.gstm.spark.state.StateLostException},
 *       and SQL through {@link io.gstm.spark.state.TxStateCatalog}'s procedures.</li>
 *   <li>Planning and routing: {@code ApplyPlan} (programs bound to the state and the columns,
 *       checked on the driver), {@code ProgramAccess} (keys found from the programs),
 *       {@code KeyPartitioner}, {@code Routing} (the map side), {@code TxChunk}.</li>
 *   <li>Executor side: {@code StateRegistry} (the partitions this JVM holds),
 *       {@code PartitionStore} (a partition's store, keys and epoch bookkeeping: undo copy,
 *       recorded result), {@code BatchRunner} (a chunk as one program batch),
 *       {@code BatchOutcomes} (its result into the rows' outcomes), {@code KeyIndexes},
 *       {@code OutcomeChunk}.</li>
 *   <li>Jobs: {@code StateJobs} (create, apply in up to three jobs, log, read, close) over
 *       {@code io.gstm.spark.exec.PinnedRDD} (partitions pinned to their executors).</li>
 *   <li>Durability: {@code Checkpoints} (Parquet plus metadata), {@code EpochLog} (the epochs
 *       after a checkpoint).</li>
 * </ul>
 */
package io.gstm.spark.state;
