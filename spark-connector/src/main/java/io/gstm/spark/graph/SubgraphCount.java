package io.gstm.spark.graph;

import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.EngineCount;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;

/**
 * Planning, first decision: how many subgraphs ({@code spark.gstm.graph.subgraphs}). A subgraph
 * per partition lets the cores of JVM executors relax in parallel; but a GPU relaxes a whole
 * R-MAT graph in milliseconds, so cutting it per core only adds replicas, supersteps and a Spark
 * job per superstep (issue 16: 16 subgraphs on one H100 spent 1-2% of the wall in kernels). On
 * GPU executors the graph is therefore cut once per GPU: with one GPU, one subgraph whose local
 * fixpoint is the result.
 */
final class SubgraphCount {
  private SubgraphCount() {}

  /**
   * The choice.
   *
   * @param subgraphs subgraphs to build
   * @param mode "partitions" or "engines", as resolved from "auto"
   * @param why a short reason, for the log and the report
   */
  record Choice(int subgraphs, String mode, String why) {}

  /**
   * @param requested "auto", "partitions" or "engines"
   * @param given subgraphs asked for ({@code setPartitions}, else {@code
   *     spark.gstm.graph.partitions}), 0 when none
   * @param inputs the edges DataFrame's partitions
   */
  static Choice choose(SparkContext sc, GstmSettings settings, String requested, int given,
      int inputs) {
    int partitions = given > 0 ? given : Math.max(1, inputs);
    String from = given > 0 ? "as asked" : "one per input partition";
    switch (requested) {
      case "partitions":
        return new Choice(partitions, "partitions", "partitions requested, " + from);
      case "engines":
        return engines(sc, settings, "engines requested");
      default:
        if (given > 0) {
          return new Choice(partitions, "partitions", "a subgraph count was given");
        }
        if (!EngineCount.gpuExecutors(sc, settings)) {
          return new Choice(partitions, "partitions",
              "executors run JVM engines: " + from + ", relaxed in parallel");
        }
        return engines(sc, settings, "executors run on GPUs");
    }
  }

  private static Choice engines(SparkContext sc, GstmSettings settings, String why) {
    boolean gpus = EngineCount.gpuExecutors(sc, settings);
    int n = EngineCount.engines(sc, gpus);
    return new Choice(n, "engines", why + ": one subgraph per " + (gpus ? "GPU" : "executor")
        + ", " + n + " in all");
  }

  /** The configured choice, checked ({@link GstmConf#GRAPH_SUBGRAPHS}). */
  static String configured(SparkConf conf) {
    return GstmConf.GRAPH_SUBGRAPHS.parse(conf.get(GstmConf.GRAPH_SUBGRAPHS.key(), null));
  }
}
