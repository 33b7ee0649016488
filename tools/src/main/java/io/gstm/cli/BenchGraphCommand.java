package io.gstm.cli;

import io.gstm.core.cuda.BareRelaxKernel;
import io.gstm.core.cuda.CudaCsrBuild;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.engine.Engine;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.DegreeOrder;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.ProgramRelaxation;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxStats;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm bench-graph}: relaxes a whole graph as one partition (an R-MAT graph, or a
 * weighted grid of high diameter; shortest paths from the vertex of largest out-degree, on a grid
 * from the corner 0, or components on the undirected graph), prints edge relaxations per second
 * (over kernel time and over total time) and per edge, rounds, commits and aborts and kernel
 * time, and checks the result against Dijkstra / union-find.
 */
@Command(name = "bench-graph", mixinStandardHelpOptions = true,
    description = "Graph relaxation on an R-MAT graph or a grid: relaxed edges/s, rounds, "
        + "verified.")
final class BenchGraphCommand extends EngineCommand {
  @Mixin GraphOptions graph = new GraphOptions(18, 4194304, 1);

  @Option(names = "--order", defaultValue = "auto",
      description = "Vertex numbering: degree (highest degree first; on a GPU numbered on the "
          + "device with the CSR) or input (the generator's ids: scrambled on R-MAT, row by row "
          + "on a grid); auto: degree, except a grid on a GPU (input: every cell has about the "
          + "same degree, and the row-major numbering is already local); with --csr "
          + "resident, auto is input, as the Spark connector's default on a GPU. Default "
          + "${DEFAULT-VALUE}.")
  String order;

  @Option(names = "--unweighted", description = "Unit weights.")
  boolean unweighted;

  @Option(names = "--no-pull", description = "Components: push in every round on the GPU "
      + "(the first round, over every vertex, pulls by default), for comparison.")
  boolean noPull;

  @Option(names = "--bucket-edges", defaultValue = "" + RelaxOptions.DEFAULT_BUCKET_EDGES,
      description = "Width of the GPU's near-far buckets for shortest paths, in mean edge "
          + "weights (narrower: less work, more rounds). Default ${DEFAULT-VALUE}.")
  double bucketEdges;

  @Option(names = "--csr", defaultValue = "auto",
      description = "Where the CSR is built: gpu (sorted and merged on the device), host (on "
          + "every core), or auto: on the GPU engine's device from 2^20 edges on, else on the "
          + "host; resident: as a Spark GPU executor's superstep, the edges in --parts parts "
          + "numbered and built on the device and relaxed there, each run timed whole. Default "
          + "${DEFAULT-VALUE}.")
  String csr;

  @Option(names = "--parts", defaultValue = "16",
      description = "With --csr resident: the parts the edges come in, as a Spark task's input "
          + "partitions. Default ${DEFAULT-VALUE}.")
  int parts;

  @Option(names = "--program", defaultValue = "none",
      description = "Shortest paths only: also relax the same graph with a transaction program "
          + "(paths: distance, parent and hop count updated together), taking turns with the "
          + "built-in relaxation, and print the program's speed as a fraction of the "
          + "built-in's; none: compare with the bare relaxation instead. Default "
          + "${DEFAULT-VALUE}.")
  String program;

  @Option(names = "--program-buckets", defaultValue = "" + ProgramRelaxation.Order.AUTO_WIDTH,
      description = "With --program: the program's vertices taken lowest distance first, in "
          + "near-far buckets this many mean edge weights wide; 0: as they come. Default "
          + "${DEFAULT-VALUE}.")
  double programBuckets;

  @Mixin LockCoverageOption coverage = new LockCoverageOption();

  @Mixin ThreadsPerBlockOption blockSize = new ThreadsPerBlockOption(64);

  @Mixin BestOfOption reps = new BestOfOption(3);

  /** Edges from which {@code --csr auto} builds on the GPU. */
  static final int AUTO_GPU_EDGES = 1 << 20;

  /** The vertex with the most out-edges, the lowest such index. */
  static int maxOutDegree(CsrGraph g) {
    int best = 0;
    for (int v = 1; v < g.vertexCount(); v++) {
      if (g.degree(v) > g.degree(best)) {
        best = v;
      }
    }
    return best;
  }

  @Override
  Run prepare() {
    RelaxationKind k = graph.kind();
    reps.check();
    blockSize.check();
    Checks.oneOf("--order", "numbering", order, "auto", "degree", "input");
    Checks.oneOf("--csr", "where the CSR is built", csr, "auto", "gpu", "host", "resident");
    Checks.atLeast("parts", parts, 1);
    if (csr.equals("resident") && !program.equals("none")) {
      throw new IllegalArgumentException("--csr resident: relaxes with the built-in relaxation "
          + "only, got --program " + program);
    }
    Checks.oneOf("--program", "relaxation program", program, "none", "paths");
    if (!program.equals("none") && k != RelaxationKind.SHORTEST_PATHS) {
      throw new IllegalArgumentException("--program " + program + ": shortest paths only "
          + "(--kind sssp), got --kind " + k);
    }
    return e -> {
      // By degree, R-MAT's hubs at the front of the values, which most edges point at: on the
      // H200, SSSP on R-MAT 2^22 with 16 edges a vertex took 2.94-2.99 ms of kernel against
      // 3.30-3.41 by input, components 0.75-0.79 against 1.30 ms. A grid's cells differ in degree
      // only at its border: numbered by degree, its kernels were no faster (17.37 against 17.28
      // ms, road 84.7 against 84.2-84.5; docs/benchmark-log.md, 2026-12-03 noon). A resident
      // build is a Spark GPU executor's superstep: by global id, as the connector's
      // spark.gstm.graph.vertexOrder=auto numbers on a GPU.
      String numbering = !order.equals("auto") ? order
          : csr.equals("resident") || e instanceof CudaEngine && !graph.isRmat() ? "input"
          : "degree";
      boolean byDegree = numbering.equals("degree");
      boolean cc = k == RelaxationKind.CONNECTED_COMPONENTS;
      if ((csr.equals("gpu") || csr.equals("resident")) && !(e instanceof CudaEngine)) {
        throw new IllegalArgumentException("--csr " + csr + ": the engine is " + e.name()
            + "; the CSR is built on a GPU engine's device (--engine gpu), or use --csr host");
      }
      long t0 = System.nanoTime();
      // R-MAT numbered by degree on the device: drawn unscrambled, its ids mapped through the
      // permutation there (drawn scrambled, reading it at random twice an edge, 2^22 with 16
      // edges a vertex took 1.30 s on the H200 node's 16 cores against 1.03-1.19 s).
      boolean mapOnDevice = byDegree && graph.isRmat() && !csr.equals("resident")
          && buildsOnDevice(e, graph.rmatEdgeCount());
      RmatGenerator.Unscrambled unscrambled =
          mapOnDevice ? graph.rmatUnscrambled(unweighted) : null;
      EdgeList generated = mapOnDevice ? unscrambled.edges() : graph.edges(unweighted);
      long t1 = System.nanoTime();
      if (csr.equals("resident")) {
        int[] ids = byDegree ? DegreeOrder.newIds(generated) : null;
        return resident((CudaEngine) e, ids == null ? generated
            : DegreeOrder.relabel(generated, ids), k);
      }
      CudaEngine device = buildsOnDevice(e, generated.edgeCount()) ? (CudaEngine) e : null;
      CsrGraph g;
      int[] ids = null;
      String phases = "";
      if (device != null) {
        // Numbered on the device too: relabelled on the host, the edge list took 1.4 s more.
        CudaCsrBuild.Built built;
        if (byDegree) {
          CudaCsrBuild.ByDegree numbered = unscrambled != null
              ? CudaCsrBuild.buildByDegree(device, generated.vertexCount(), generated.src(),
                  generated.dst(), generated.weights(), cc, unscrambled.perm())
              : CudaCsrBuild.buildByDegree(device, generated.vertexCount(), generated.src(),
                  generated.dst(), generated.weights(), cc);
          built = numbered.built();
          ids = numbered.newIds();
        } else {
          built = CudaCsrBuild.build(device, generated.vertexCount(), generated.src(),
              generated.dst(), generated.weights(), cc);
        }
        g = built.graph();
        phases = ": " + built.phases();
      } else {
        ids = byDegree ? DegreeOrder.newIds(generated) : null;
        EdgeList edges = ids == null ? generated : DegreeOrder.relabel(generated, ids);
        g = cc ? edges.toCsr().undirected() : edges.toCsr();
      }
      long t2 = System.nanoTime();
      System.out.printf("graph: %s, %,d edges generated, %s, %s, vertices numbered "
          + "by %s, built in %.2f s (generated in %.2f s on %d cores, CSR in %.2f s %s%s)%n",
          describe(), generated.edgeCount(), g, k,
          numbering + (mapOnDevice ? " (R-MAT's ids scrambled on the GPU)" : ""),
          (t2 - t0) / 1e9, (t1 - t0) / 1e9,
          Runtime.getRuntime().availableProcessors(), (t2 - t1) / 1e9,
          device != null ? "on the GPU" : "on the host", phases);
      return relax(e, g, k, ids);
    };
  }

  /** Whether --csr (not resident) builds a graph of {@code edgeCount} edges on e's GPU. */
  private boolean buildsOnDevice(Engine e, long edgeCount) {
    return e instanceof CudaEngine
        && (csr.equals("gpu") || csr.equals("auto") && edgeCount >= AUTO_GPU_EDGES);
  }

  private int resident(CudaEngine e, EdgeList edges, RelaxationKind k) {
    int source = graph.isRmat() ? ResidentBuildTrial.largestOutDegree(edges) : 0;
    boolean cc = k == RelaxationKind.CONNECTED_COMPONENTS;
    System.out.printf("graph: %s, %,d edges, %s, ids kept (numbered on the device)%s%n",
        describe(), edges.edgeCount(), k, cc ? "" : ", source " + source);
    RelaxOptions opts = RelaxOptions.defaults().withLockCoverage(coverage.lockCoverage)
        .withThreadsPerBlock(blockSize.threadsPerBlock).withBucketEdges(bucketEdges)
        .withSymmetric(cc && !noPull);
    return new ResidentBuildTrial(e, edges, source, k, opts, parts).report(reps.reps);
  }

  private String describe() {
    return graph.describe() + (graph.shuffled() ? ", edges shuffled" : "");
  }

  private int relax(Engine e, CsrGraph g, RelaxationKind k, int[] ids) {
    int source = 0;
    if (k == RelaxationKind.SHORTEST_PATHS && !graph.isRmat()) {
      // The corner cell: the farthest cells are a diameter away.
      source = ids == null ? 0 : ids[0];
      System.out.printf("source: vertex %d, the grid's corner%n", source);
    } else if (k == RelaxationKind.SHORTEST_PATHS) {
      // R-MAT leaves many vertices (vertex 0 included, at times) without out-edges; a search
      // from one of them measures nothing. Start from the vertex of largest out-degree.
      source = maxOutDegree(g);
      System.out.printf("source: vertex %d, the largest out-degree (%,d)%n", source,
          g.degree(source));
    }
    double[] init = RelaxationVerifier.initialValues(k, g.vertexCount(), source);
    if (k == RelaxationKind.CONNECTED_COMPONENTS && ids != null) {
      // Labels stay the generator's ids, as the connector labels a renumbered subgraph's
      // vertices with their global ids: the numbering moves values, not which label wins.
      for (int v = 0; v < ids.length; v++) {
        init[ids[v]] = v;
      }
    }
    int[] active = k == RelaxationKind.SHORTEST_PATHS ? new int[] {source}
        : IntStream.range(0, g.vertexCount()).toArray();
    RelaxOptions opts = RelaxOptions.defaults().withLockCoverage(coverage.lockCoverage)
        .withThreadsPerBlock(blockSize.threadsPerBlock).withBucketEdges(bucketEdges);
    boolean cc = k == RelaxationKind.CONNECTED_COMPONENTS;
    opts = opts.withSymmetric(cc && !noPull); // components relax g.undirected()
    if (!program.equals("none")) {
      return relaxWithProgram(e, g, init, active, opts, source);
    }
    try (GraphRelaxer relaxer = new GraphRelaxer(e, g, k, opts);
        BareRelaxKernel bare = e instanceof CudaEngine cuda ? new BareRelaxKernel(cuda, g, cc)
            : null) {
      // gstm and the bare relaxation take turns, warm-ups first, so both run on the same heap
      // and device state: the first runs of a JVM grow and touch its heap, and whichever side
      // ran all of its runs first paid for that alone (13 ms of gstm's 20 ms download at 2^22).
      List<RelaxResult> runs = new ArrayList<>();
      List<BareRelaxKernel.Result> bareRuns = new ArrayList<>();
      // Components start from every vertex: no list to make, check or send.
      reps.alternate(() -> cc ? relaxer.relaxAll(init) : relaxer.relax(init, active), runs,
          bare == null ? null : () -> bare.run(init, active, RelaxOptions.DEFAULT_MAX_ROUNDS),
          bareRuns);
      RelaxResult best = runs.stream()
          .min(Comparator.comparingLong(r -> r.stats().kernelNanos())).orElseThrow();
      // Time to solution: the best total of the runs (kernel and total times are each taken at
      // their best, here and for the bare run: a GC or a page fault lands on any one run).
      RelaxStats s = best.stats();
      long total = runs.stream().mapToLong(r -> r.stats().totalNanos()).min().orElseThrow();
      double overTotal = total == 0 ? 0 : s.edgeRelaxations() * 1e9 / total;
      System.out.printf("relaxed edges/s: %.3f G over kernel time, %.3f G over total time "
              + "(%,d edge relaxations in %.3f ms kernel time, %.3f ms total)%n",
          s.edgesPerSecond() / 1e9, overTotal / 1e9, s.edgeRelaxations(),
          s.kernelNanos() / 1e6, total / 1e6);
      System.out.printf("edge relaxations per edge: %.2f (%,d edges)%n",
          (double) s.edgeRelaxations() / Math.max(1, g.edgeCount()), g.edgeCount());
      System.out.printf("rounds: %d, transactions: %,d, commits: %,d, aborts: %,d, "
          + "improved: %,d, changed vertices: %,d%n", s.rounds(), s.transactions(), s.commits(),
          s.aborts(), s.improvedWrites(), best.changedVertices().length);
      RelaxationVerifier.Report report = RelaxationVerifier.check(g, k, init, best.values());
      System.out.println("verifier: " + report);
      boolean bareOk = bare == null || compareWithBare(bareRuns, g, k, init, s.kernelNanos(),
          total, visitedEdges(g, best.values()));
      return report.ok() && bareOk ? 0 : 1;
    }
  }

  /**
   * The built-in shortest paths and the same as a program ({@link ProgramRelaxTrial}), taking
   * turns, warm-ups first; each time the best of the runs. Returns 0 when both are verified.
   */
  private int relaxWithProgram(Engine e, CsrGraph g, double[] init, int[] active,
      RelaxOptions opts, int source) {
    try (GraphRelaxer relaxer = new GraphRelaxer(e, g, RelaxationKind.SHORTEST_PATHS, opts);
        ProgramRelaxTrial trial = new ProgramRelaxTrial(e, g, source, programOrder(g))) {
      List<RelaxResult> runs = new ArrayList<>();
      List<ProgramRelaxTrial.Run> programRuns = new ArrayList<>();
      reps.alternate(() -> relaxer.relax(init, active), runs, trial::run, programRuns);
      RelaxResult best = runs.stream()
          .min(Comparator.comparingLong(r -> r.stats().kernelNanos())).orElseThrow();
      long total = runs.stream().mapToLong(r -> r.stats().totalNanos()).min().orElseThrow();
      ProgramRelaxTrial.Run fastest = programRuns.stream()
          .min(Comparator.comparingLong(r -> r.result().kernelNanos())).orElseThrow();
      long programTotal = programRuns.stream().mapToLong(ProgramRelaxTrial.Run::totalNanos)
          .min().orElseThrow();
      RelaxStats s = best.stats();
      System.out.printf("built-in: %.3f ms kernel time, %.3f ms total, %d rounds, %,d "
              + "transactions%n", s.kernelNanos() / 1e6, total / 1e6, s.rounds(),
          s.transactions());
      ProgramRelaxation.Result r = fastest.result();
      System.out.printf("program 'paths': %.3f ms kernel time, %.3f ms total (prepared once "
              + "in %.1f ms), %d rounds, %,d transactions, %,d edges skipped after a look, %,d "
              + "changes, outcomes %s%n",
          r.kernelNanos() / 1e6, programTotal / 1e6, trial.prepareNanos() / 1e6, r.rounds(),
          r.transactions(), r.skipped(), r.changes(), r.outcomes());
      System.out.printf("program speed as a fraction of the built-in's (each time the best of "
              + "%d runs): %.2fx kernel, %.2fx total%n", runs.size(),
          (double) s.kernelNanos() / Math.max(1, r.kernelNanos()),
          (double) total / Math.max(1, programTotal));
      RelaxationVerifier.Report report =
          RelaxationVerifier.check(g, RelaxationKind.SHORTEST_PATHS, init, best.values());
      System.out.println("verifier: " + report);
      String broken = null;
      for (ProgramRelaxTrial.Run run : programRuns) {
        broken = broken != null ? broken : trial.check(run, best.values());
      }
      System.out.println("program verifier: " + (broken == null ? "OK: every run's distances "
          + "equal the built-in's, its parents a shortest-path tree, its hops consistent"
          : "FAILED: " + broken));
      return report.ok() && broken == null ? 0 : 1;
    }
  }

  /** The program's order: lowest distance first in buckets of --program-buckets, or none. */
  private ProgramRelaxation.Order programOrder(CsrGraph g) {
    if (!(programBuckets >= 0) || Double.isInfinite(programBuckets)) {
      throw new IllegalArgumentException("--program-buckets must be 0 or more mean edge "
          + "weights, got " + programBuckets);
    }
    if (programBuckets == 0) {
      return null;
    }
    return ProgramRelaxation.Order.ascending("dist").withWidth(programBuckets * g.meanWeight());
  }

  /**
   * The edges a traversal visits, each once, as Gunrock counts them (re-relaxations not
   * counted): the out-edges of every vertex the relaxation reached.
   */
  static long visitedEdges(CsrGraph g, double[] values) {
    long visited = 0;
    for (int v = 0; v < g.vertexCount(); v++) {
      if (values[v] < Double.POSITIVE_INFINITY) {
        visited += g.degree(v);
      }
    }
    return visited;
  }

  /**
   * Reports the bare-atomic relaxation's runs ({@link BareRelaxKernel}, same graph, same run,
   * taking turns with gstm's): its best kernel time and best total time, both as edges visited
   * per second and time to solution (kernel time, and total time with the host's work between
   * rounds), with gstm's ratio to it. Returns whether the bare run's values pass the verifier.
   */
  private static boolean compareWithBare(List<BareRelaxKernel.Result> runs, CsrGraph g,
      RelaxationKind k, double[] init, long gstmKernelNanos, long gstmTotalNanos, long visited) {
    BareRelaxKernel.Result fastest = runs.stream()
        .min(Comparator.comparingLong(BareRelaxKernel.Result::kernelNanos)).orElseThrow();
    BareRelaxKernel.Result best = new BareRelaxKernel.Result(fastest.values(),
        fastest.rounds(), fastest.examined(), fastest.kernelNanos(),
        runs.stream().mapToLong(BareRelaxKernel.Result::totalNanos).min().orElseThrow());
    System.out.printf("bare atomicMin relaxation (no isolation, warp per frontier vertex): "
            + "%.3f ms kernel time, %.3f ms total, %d rounds, %,d edges examined%n",
        best.kernelNanos() / 1e6, best.totalNanos() / 1e6, best.rounds(), best.examined());
    System.out.printf("edges visited/s (%,d edges, each once): gstm %.3f G over kernel time, "
            + "%.3f G over total time; bare %.3f G, %.3f G%n", visited,
        rate(visited, gstmKernelNanos), rate(visited, gstmTotalNanos),
        rate(visited, best.kernelNanos()), rate(visited, best.totalNanos()));
    System.out.printf("time to solution, gstm / bare (each time the best of %d runs): "
            + "%.2fx kernel, %.2fx total%n", runs.size(),
        (double) gstmKernelNanos / Math.max(1, best.kernelNanos()),
        (double) gstmTotalNanos / Math.max(1, best.totalNanos()));
    RelaxationVerifier.Report report = RelaxationVerifier.check(g, k, init, best.values());
    System.out.println("bare verifier: " + report);
    return report.ok();
  }

  private static double rate(long edges, long nanos) {
    return nanos == 0 ? 0 : edges / (double) nanos;
  }
}
