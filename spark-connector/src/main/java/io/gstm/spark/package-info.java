/**
 * Spark connector for gstm (Spark 4.1.0, Scala 2.13; Spark is {@code provided}).
 *
 * <ul>
 *   <li>{@link io.gstm.spark.graph.GraphRelaxation}: shortest paths and connected components over
 *       an edges DataFrame, subgraph-centric over a vertex cut. Edges stay in the partitions they
 *       are read in, or go to the owner of their source by ranges of ids when a sample shows
 *       that ids carry locality the input order lacks; each partition's subgraph holds its edges
 *       and every vertex they touch, a vertex touched by several partitions replicated in each.
 *       The subgraph is uploaded once to its executor's engine (a {@code GraphRelaxer} that stays
 *       resident across supersteps). Each superstep relaxes every partition to its local
 *       fixpoint with transactions, then only the replicated vertices that improved go to the
 *       other partitions holding them, min-combined (through the driver when few, else a
 *       shuffle). No updates: converged. Superstep outputs are locally checkpointed, so the
 *       lineage stays one superstep deep.</li>
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
