package io.gstm.spark.cli;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.RmatGenerator;
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
 * The README's first command: a graph relaxation job on a seeded R-MAT graph in Spark local mode,
 * printing the engine (and whether it fell back to the JVM), supersteps, time and a checksum.
 */
@Command(name = "relax", mixinStandardHelpOptions = true,
    description = "Shortest paths (or components) on a seeded R-MAT graph through GraphRelaxation.")
public final class RelaxCommand implements Callable<Integer> {
  @Mixin
  SparkOptions spark = new SparkOptions();

  @Option(names = "--kind", description = "sssp or cc (default: ${DEFAULT-VALUE})")
  String kind = "sssp";

  @Option(names = "--scale", description = "log2 of the vertex count (default: ${DEFAULT-VALUE})")
  int scale = 16;

  @Option(names = "--edges", description = "edges (default: 16 x vertices)")
  int edges = -1;

  @Option(names = "--seed", description = "generator seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Option(names = "--source", description = "source vertex (default: the first edge's source)")
  long source = -1;

  @Option(names = "--max-supersteps", description = "superstep bound (default: the config's)")
  int maxSupersteps = -1;

  @Override
  public Integer call() {
    boolean sssp = switch (kind.toLowerCase(Locale.ROOT)) {
      case "sssp" -> true;
      case "cc" -> false;
      default -> throw new IllegalArgumentException("--kind: expected sssp or cc, got '" + kind
          + "'");
    };
    int m = edges >= 0 ? edges : 16 << scale;
    EdgeList g = RmatGenerator.generate(scale, m, seed, sssp);
    long src = source >= 0 ? source : (m > 0 ? g.src()[0] : 0);
    SparkSession session = spark.session("gstm-relax");
    try {
      Dataset<Row> df = DataFrames.edges(session, g, spark.partitions).cache();
      df.count();
      GraphRelaxation job = GraphRelaxation.of(df).setPartitions(spark.partitions);
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
      System.out.printf(Locale.ROOT, "gstm graph relaxation: %s on R-MAT scale %d (%d vertices, "
              + "%d edges, seed %d)%s, %d partitions, Spark %s (%s)%n",
          sssp ? "weighted shortest paths" : "connected components", scale, 1 << scale, m, seed,
          sssp ? ", source " + src : "", rep.partitions(), session.version(), spark.master);
      System.out.println("engine: " + String.join(" + ", rep.engines())
          + (rep.fellBackToJvm() ? "  [fell back to the JVM engine: no usable GPU]" : ""));
      System.out.printf(Locale.ROOT, "supersteps: %d%s, boundary messages %d%n",
          rep.supersteps(), rep.converged() ? " (converged)" : " (NOT converged)",
          rep.boundaryMessages());
      System.out.printf(Locale.ROOT, "time: %.3f s (local relaxation %.3f s, engine %.3f s, "
              + "summed over tasks)%n", rep.wallNanos() / 1e9, rep.relaxNanos() / 1e9,
          rep.kernelNanos() / 1e9);
      System.out.printf(Locale.ROOT, "transactions: %d, commits %d, aborts %d, edge relaxations "
          + "%d%n", rep.transactions(), rep.commits(), rep.aborts(), rep.edgeRelaxations());
      long reached = sums.getLong(0);
      double sum = sums.isNullAt(1) ? 0 : sums.getDouble(1);
      System.out.printf(Locale.ROOT, "%s: %d of %d vertices%n", sssp ? "reached" : "components",
          sssp ? reached : sums.getLong(2), rep.vertices());
      System.out.printf(Locale.ROOT, "checksum (sum of finite values): %.1f%n", sum);
      return rep.converged() ? 0 : 1;
    } finally {
      session.stop();
    }
  }
}
