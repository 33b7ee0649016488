package io.gstm.spark.graph;

import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.EngineCount;
import io.gstm.spark.exec.TaskHub;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;

/**
 * Planning, first decision: how many subgraphs ({@code spark.gstm.graph.subgraphs}). A subgraph
 * per partition lets the cores of JVM executors relax in parallel; but a GPU relaxes a whole
 * R-MAT graph in milliseconds, so cutting it per core only adds replicas, supersteps and a Spark
 * job per superstep (issue 16: 16 subgraphs on one H100 spent 1-2% of the wall in kernels). On
 * GPU executors the graph is therefore cut once per GPU: with one GPU, one subgraph whose local
 * fixpoint is the result. On JVM executors with at most {@link #FEW_SLOTS} task slots in all,
 * shortest paths too take a subgraph per executor: relaxed in priority order on one core, with
 * no superstep after the first, they beat a cut relaxed on both cores (2-core machine, R-MAT
 * 2^18 with 2^22 edges: 0.30 s against 0.72 s; 2^20 with 2^24 edges 1.25 s against 1.69 s; a
 * 1,024 x 1,024 grid 0.55 s against 0.94 s), where components do better cut (0.91 s against 1.17
 * s at 2^20).
 */
final class SubgraphCount {
  private SubgraphCount() {}

  /** Task slots up to which shortest paths on JVM engines take a subgraph per executor. */
  static final int FEW_SLOTS = 2;

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
   * @param kind what the relaxation computes
   */
  static Choice choose(SparkContext sc, GstmSettings settings, String requested, int given,
      int inputs, RelaxationKind kind) {
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
          int slots = TaskHub.taskSlots(sc); // 0 while no executor has registered: unknown
          if (kind == RelaxationKind.SHORTEST_PATHS && slots >= 1 && slots <= FEW_SLOTS) {
            return engines(sc, settings, "executors run JVM engines on " + slots + " task "
                + "slot(s): shortest paths in priority order, no supersteps");
          }
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
