package io.gstm.spark.cli;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
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

  @Option(names = "--kind", description = "sssp or cc (default: ${DEFAULT-VALUE})")
  String kind = "sssp";

  @Option(names = "--graph", description = "rmat, grid (a square weighted grid of 2^scale "
      + "cells, row-major ids) or road (the grid less 10% of its streets, plus 2^(scale-10) "
      + "shortcuts) (default: ${DEFAULT-VALUE})")
  String graph = "rmat";

  @Option(names = "--shuffle", description = "shuffle the edges before they are split into "
      + "partitions (the input then says nothing about which edges are near each other)")
  boolean shuffle;

  @Option(names = "--partitioning", description = "spark.gstm.graph.partitioning for this run: "
      + "auto, input or range (default: the config's)")
  String partitioning;

  @Option(names = "--scale", description = "log2 of the vertex count (default: ${DEFAULT-VALUE})")
  int scale = 16;

  @Option(names = "--edges", description = "R-MAT edges (default: 16 x vertices)")
  int edges = -1;

  @Option(names = "--seed", description = "generator seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Option(names = "--source", description = "source vertex (default: the first edge's source; "
      + "on a grid the corner 0)")
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
    EdgeList g = generate(sssp);
    int m = g.edgeCount();
    long src = source >= 0 ? source
        : !graph.equals("rmat") || m == 0 ? 0 : g.src()[0];
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
          sssp ? "weighted shortest paths" : "connected components", describe(), g.vertexCount(),
          m, seed, shuffle ? ", edges shuffled" : "", sssp ? ", source " + src : "",
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
      session.stop();
    }
  }

  /** The graph of {@code --graph}, weighted for shortest paths. */
  private EdgeList generate(boolean weighted) {
    EdgeList g = switch (graph.toLowerCase(Locale.ROOT)) {
      case "rmat" -> RmatGenerator.generate(scale, edges >= 0 ? edges : 16 << scale, seed,
          weighted);
      case "grid" -> GridGenerator.square(1 << scale, seed);
      case "road" -> {
        int side = (int) Math.ceil(Math.sqrt(1 << scale));
        yield GridGenerator.roadLike(side, side, seed, 0.1, 1 << Math.max(0, scale - 10));
      }
      default -> throw new IllegalArgumentException("--graph: expected rmat, grid or road, got '"
          + graph + "'");
    };
    return shuffle ? GridGenerator.shuffled(g, seed + 1) : g;
  }

  private String describe() {
    return switch (graph.toLowerCase(Locale.ROOT)) {
      case "rmat" -> "R-MAT scale " + scale;
      case "grid" -> "a weighted grid of about 2^" + scale + " cells";
      default -> "a road-like grid of about 2^" + scale + " cells";
    };
  }
}
