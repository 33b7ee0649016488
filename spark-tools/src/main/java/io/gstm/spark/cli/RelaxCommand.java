package io.gstm.spark.cli;

import io.gstm.cli.GraphOptions;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.data.DataFrames;
import io.gstm.spark.graph.GraphRelaxation;
import io.gstm.spark.graph.RelaxationReport;
import io.gstm.spark.graph.RelaxationResult;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The README's first command: a graph relaxation job on a seeded R-MAT graph (or a weighted
 * grid of high diameter) in Spark local mode, printing the engine (and whether it fell back to
 * the JVM), how the edges were placed, supersteps, edge relaxations per edge, time and a
 * checksum.
 */
@Command(name = "relax", mixinStandardHelpOptions = true,
    description = "Shortest paths (or components) on a seeded R-MAT graph or grid through "
        + "GraphRelaxation.")
public final class RelaxCommand implements Callable<Integer> {
  @Mixin
  SparkOptions spark = new SparkOptions();

  @Mixin
  GraphOptions graph = new GraphOptions(16, -1, 42);

  @Option(names = "--partitioning", description = "spark.gstm.graph.partitioning for this run: "
      + "auto, input or range (default: the config's)")
  String partitioning;

  @Option(names = "--source", description = "source vertex (default: the first edge's source; "
      + "on a grid the corner 0)")
  long source = -1;

  @Option(names = "--max-supersteps", description = "superstep bound (default: the config's)")
  int maxSupersteps = -1;

  @Override
  public Integer call() {
    boolean sssp = graph.kind() == RelaxationKind.SHORTEST_PATHS;
    EdgeList g = graph.generate(sssp);
    int m = g.edgeCount();
    long src = source >= 0 ? source
        : !graph.isRmat() || m == 0 ? 0 : g.src()[0];
    SparkSession session = spark.session("gstm-relax");
    try {
      Dataset<Row> df = DataFrames.edges(session, g, spark.partitions).cache();
      df.count();
      // The subgraph count follows spark.gstm.graph.subgraphs: one per partition of df on JVM
      // engines, one per GPU on GPUs.
      GraphRelaxation job = GraphRelaxation.of(df);
      if (partitioning != null) {
        job.setPartitioning(partitioning);
      }
      job = sssp ? job.shortestPaths(src) : job.connectedComponents();
      if (maxSupersteps > 0) {
        job.setMaxSupersteps(maxSupersteps);
      }
      RelaxationResult r = job.run();
      RelaxationReport rep = r.report();
      Row sums = r.values().selectExpr(
          "count(CASE WHEN value < double('Infinity') THEN 1 END)",
          "sum(CASE WHEN value < double('Infinity') THEN value END)",
          "count(DISTINCT value)").first();
      System.out.printf(Locale.ROOT, "gstm graph relaxation: %s on %s (%d vertices, "
              + "%d edges, seed %d%s)%s, %d input partitions, Spark %s (%s)%n",
          sssp ? "weighted shortest paths" : "connected components", graph.describe(),
          g.vertexCount(), m, graph.seed(), graph.shuffled() ? ", edges shuffled" : "",
          sssp ? ", source " + src : "",
          spark.partitions, session.version(), spark.master);
      RelaxationReport.Placement placed = rep.placement();
      RelaxationReport.Timings t = rep.timings();
      long relaxations = rep.progress().edgeRelaxations();
      System.out.printf(Locale.ROOT, "%d subgraph(s): %s%n", rep.partitions(), placed.subgraphs());
      System.out.printf(Locale.ROOT, "edges placed by %s, %d replicated vertex copies%n",
          placed.partitioning().equals("range") ? "ranges of source ids" : "input partition",
          placed.replicas());
      System.out.println("engine: " + String.join(" + ", rep.engines())
          + (rep.fellBackToJvm() ? "  [fell back to the JVM engine: no usable GPU]" : ""));
      System.out.printf(Locale.ROOT, "supersteps: %d%s, boundary messages %d%n",
          rep.supersteps(), rep.converged() ? " (converged)" : " (NOT converged)",
          rep.progress().boundaryMessages());
      System.out.printf(Locale.ROOT, "time: %.3f s (local relaxation %.3f s, engine %.3f s, "
              + "summed over tasks; planning %.3f s, supersteps %.3f s)%n", t.wallNanos() / 1e9,
          t.relaxNanos() / 1e9, t.kernelNanos() / 1e9, t.planNanos() / 1e9,
          t.superstepNanos() / 1e9);
      System.out.printf(Locale.ROOT, "transactions: %d, commits %d, aborts %d, edge relaxations "
          + "%d (%.2f per edge of the subgraphs)%n", rep.transactions(), rep.commits(),
          rep.aborts(), relaxations, (double) relaxations / Math.max(1, rep.edges()));
      long reached = sums.getLong(0);
      double sum = sums.isNullAt(1) ? 0 : sums.getDouble(1);
      System.out.printf(Locale.ROOT, "%s: %d of %d vertices%n", sssp ? "reached" : "components",
          sssp ? reached : sums.getLong(2), rep.vertices());
      System.out.printf(Locale.ROOT, "checksum (sum of finite values): %.1f%n", sum);
      return rep.converged() ? 0 : 1;
    } finally {
      SparkOptions.stop(session);
    }
  }
}
