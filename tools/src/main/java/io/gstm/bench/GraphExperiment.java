package io.gstm.bench;

import io.gstm.core.engine.Engine;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxStats;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * The JPDC paper's graph figures: one partition's transactional relaxation (shortest paths and
 * connected components) of a weighted R-MAT graph, relaxed edges per second over the threads per
 * block or the lock coverage, every result checked against Dijkstra's or union-find's.
 */
record GraphExperiment(Axis axis) implements Experiment {

  static final Axis THREADS =
      Sweep.THREADS.axis("graph", "threads_per_block", "threads per block");
  static final Axis COVERAGE = Sweep.COVERAGE.axis("graph", "lock coverage (vertices per lock)");

  @Override
  public About about() {
    return new About(axis.experiment(),
        "Graph relaxation of one partition (R-MAT, weighted): relaxed edges/s of shortest "
            + "paths and components over the " + axis.words() + ", verified (JPDC paper).",
        List.of("kind", "threads_per_block", "lock_coverage", "vertices", "edges",
            "relaxed_edges_per_s", "rounds", "commits", "aborts", "verified"),
        Plot.logLines("Graph relaxation vs " + axis.words(), axis.column(),
            "relaxed_edges_per_s", "kind"));
  }

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    int rmatScale = scale.pick(8, 14, 18);
    int edges = scale.pick(1 << 11, 1 << 18, 1 << 22);
    int reps = Trials.reps(scale);
    List<Integer> values = axis.sweep() == Sweep.THREADS
        ? scale.pick(List.of(32, 64), List.of(32, 64, 128, 256), List.of(32, 64, 128, 256))
        : scale.pick(List.of(1, 4), List.of(1, 4, 16, 64), List.of(1, 4, 16, 64));
    // Generated once, at the first step, so that listing the steps costs nothing.
    CsrGraph[] directed = new CsrGraph[1];
    List<Step> steps = new ArrayList<>();
    for (RelaxationKind kind : RelaxationKind.values()) {
      for (int v : values) {
        RelaxOptions opts = axis.sweep() == Sweep.THREADS
            ? RelaxOptions.defaults().withThreadsPerBlock(v)
            : RelaxOptions.defaults().withLockCoverage(v);
        steps.add(out -> {
          if (directed[0] == null) {
            directed[0] = RmatGenerator.generate(rmatScale, edges, 1, true).toCsr();
          }
          point(engine, directed[0], kind, opts, reps, out);
        });
      }
    }
    return steps;
  }

  private static void point(Engine engine, CsrGraph directed, RelaxationKind kind,
      RelaxOptions opts, int reps, ResultTable out) {
    CsrGraph g = kind == RelaxationKind.CONNECTED_COMPONENTS ? directed.undirected() : directed;
    int source = 0;
    for (int v = 1; v < g.vertexCount(); v++) {
      source = g.degree(v) > g.degree(source) ? v : source;
    }
    double[] init = RelaxationVerifier.initialValues(kind, g.vertexCount(), source);
    int[] active = kind == RelaxationKind.SHORTEST_PATHS ? new int[] {source}
        : IntStream.range(0, g.vertexCount()).toArray();
    RelaxResult best = null;
    boolean ok = true;
    try (GraphRelaxer relaxer = new GraphRelaxer(engine, g, kind,
        opts.withSymmetric(kind == RelaxationKind.CONNECTED_COMPONENTS))) {
      for (int rep = 0; rep <= reps; rep++) {
        RelaxResult r = relaxer.relax(init, active);
        ok &= RelaxationVerifier.check(g, kind, init, r.values()).ok();
        if ((rep > 0 || reps == 0)
            && (best == null || r.stats().kernelNanos() < best.stats().kernelNanos())) {
          best = r;
        }
      }
    }
    RelaxStats s = best.stats();
    out.add(kind == RelaxationKind.SHORTEST_PATHS ? "sssp" : "cc", opts.threadsPerBlock(),
        opts.lockCoverage(), g.vertexCount(), g.edgeCount(), s.edgesPerSecond(), s.rounds(),
        s.commits(), s.aborts(), ok);
  }
}
