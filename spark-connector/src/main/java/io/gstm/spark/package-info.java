/**
 * Spark connector for gstm (Spark 4.1.0, Scala 2.13; Spark is {@code provided}).
 *
 * <ul>
 *   <li>{@link io.gstm.spark.graph.GraphRelaxation}: shortest paths and connected components over
 *       an edges DataFrame, subgraph-centric. Vertices belong to partition {@code id mod P}; a
 *       partition's subgraph (its vertices' out-edges, the other partitions' targets as ghosts) is
 *       built once, cached, and uploaded once to its executor's engine (a {@code GraphRelaxer}
 *       that stays resident across supersteps). Each superstep relaxes every active partition to
 *       its local fixpoint with transactions, then ships only the ghosts that improved, packed per
 *       target partition, to their owners, which keep the minimum. No messages: converged.
 *       Superstep outputs are locally checkpointed, so the lineage stays one superstep deep.</li>
 *   <li>{@link io.gstm.spark.ml.TxKMeans}: a Spark ML Estimator; per partition and iteration the
 *       points are assigned and added to the centroid accumulators by transactions
 *       ({@code KMeansUpdater}), partials are tree-aggregated.</li>
 *   <li>{@link io.gstm.spark.state.TxState}: keyed state resident on the executors' engines
 *       across jobs, updated by transaction programs in epochs that take effect once; the
 *       transactions are routed by key, those spanning partitions run in a second phase over
 *       just their keys (docs/spark-transactions.md).</li>
 *   <li>{@link io.gstm.spark.exec.ExecutorEngines}: one GPU engine per executor and device,
 *       a semaphore per GPU, JVM engines per concurrent task (a JVM engine runs one batch at a
 *       time: its workers start together on a latch, so two batches sharing its pool could
 *       deadlock).</li>
 *   <li>{@link io.gstm.spark.conf.GstmConf}: the {@code spark.gstm.*} registry.</li>
 * </ul>
 */
package io.gstm.spark;
