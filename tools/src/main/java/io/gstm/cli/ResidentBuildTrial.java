package io.gstm.cli;

import io.gstm.core.cuda.CudaCsrBuild;
import io.gstm.core.cuda.CudaEngine;
import io.gstm.core.cuda.DeviceCsr;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code bench-graph --csr resident}: a GPU executor's superstep at full size, without Spark.
 * The edges come in parts (as the input partitions a Spark task gathers), keep their global
 * ids, are numbered and built into a CSR on the GPU that stays there, and a relaxer is made
 * from it on the device ({@link GraphRelaxer#onDevice}) and relaxes once. Each run does all of
 * it and frees it, as a Spark run does; the report says where its time went.
 */
final class ResidentBuildTrial {
  /** One run's phases, in nanoseconds. */
  record Run(CudaCsrBuild.Built built, long buildNanos, long relaxerNanos, long relaxNanos,
      long kernelNanos, long totalNanos) {}

  private final CudaEngine engine;
  private final List<CudaCsrBuild.Part> parts = new ArrayList<>();
  private final int idBound;
  private final int sourceId;
  private final RelaxationKind kind;
  private final RelaxOptions options;
  private final boolean weighted;

  /**
   * @param sourceId the source's global id (shortest paths), else ignored
   * @param partCount how many parts the edges come in
   */
  ResidentBuildTrial(CudaEngine engine, EdgeList edges, int sourceId, RelaxationKind kind,
      RelaxOptions options, int partCount) {
    this.engine = engine;
    this.idBound = edges.vertexCount();
    this.sourceId = sourceId;
    this.kind = kind;
    this.options = options;
    this.weighted = edges.weights() != null && kind == RelaxationKind.SHORTEST_PATHS;
    int m = edges.edgeCount();
    for (int k = 0; k < partCount; k++) {
      int from = (int) ((long) m * k / partCount);
      int to = (int) ((long) m * (k + 1) / partCount);
      double[] w = weighted ? Arrays.copyOfRange(edges.weights(), from, to) : null;
      // The weights' sum, as the connector's reader finds it while it reads a partition.
      double sum = 0;
      for (int i = 0; w != null && i < w.length; i++) {
        sum += w[i];
      }
      parts.add(new CudaCsrBuild.Part(Arrays.copyOfRange(edges.src(), from, to),
          Arrays.copyOfRange(edges.dst(), from, to), w, to - from,
          weighted ? sum : Double.NaN));
    }
  }

  /** The vertex with the most out-edges, the lowest such id: a source that reaches much. */
  static int largestOutDegree(EdgeList edges) {
    int[] degree = new int[edges.vertexCount()];
    for (int s : edges.src()) {
      degree[s]++;
    }
    int best = 0;
    for (int v = 1; v < degree.length; v++) {
      if (degree[v] > degree[best]) {
        best = v;
      }
    }
    return best;
  }

  /** One run; with {@code verify}, its values are checked against the CSR read back. */
  Run run(boolean verify) {
    boolean cc = kind == RelaxationKind.CONNECTED_COMPONENTS;
    int[] extra = cc ? new int[0] : new int[] {sourceId};
    long t0 = System.nanoTime();
    CudaCsrBuild.Numbered b = CudaCsrBuild.fromPartsNumbered(engine, idBound, parts, extra,
        weighted, cc, true);
    long t1 = System.nanoTime();
    try (DeviceCsr csr = b.device()) {
      long t2;
      RelaxResult result;
      double[] init;
      try (GraphRelaxer relaxer = GraphRelaxer.onDevice(csr, kind, options)) {
        t2 = System.nanoTime();
        int n = csr.vertexCount();
        int source = cc ? 0 : Arrays.binarySearch(b.ids(), sourceId);
        init = RelaxationVerifier.initialValues(kind, n, source);
        result = cc ? relaxer.relaxAll(init) : relaxer.relax(init, new int[] {source});
      }
      long t3 = System.nanoTime();
      if (verify) {
        CsrGraph g = csr.download();
        RelaxationVerifier.Report report = RelaxationVerifier.check(g,
            kind, init, result.values());
        System.out.println("verifier: " + report);
        if (!report.ok()) {
          throw new IllegalStateException("the resident build's relaxation failed its check: "
              + report);
        }
      }
      return new Run(b.built(), t1 - t0, t2 - t1, t3 - t2, result.stats().kernelNanos(),
          t3 - t0);
    }
  }

  /** Runs once to warm up, {@code reps} timed, the last verified; prints each; 0 when OK. */
  int report(int reps) {
    run(false);
    List<Run> runs = new ArrayList<>();
    for (int i = 0; i < reps; i++) {
      Run r = run(i == reps - 1);
      runs.add(r);
      System.out.printf("resident run %d: %.1f ms in all: build %.1f ms (%s), relaxer from the "
              + "device CSR %.1f ms, relaxation %.1f ms (kernels %.1f ms)%n", i + 1,
          r.totalNanos() / 1e6, r.buildNanos() / 1e6, r.built().phases(),
          r.relaxerNanos() / 1e6, r.relaxNanos() / 1e6, r.kernelNanos() / 1e6);
    }
    long best = runs.stream().mapToLong(Run::totalNanos).min().orElseThrow();
    System.out.printf("resident: best of %d runs %.1f ms (%d parts, %s)%n", reps, best / 1e6,
        parts.size(), weighted ? "weighted" : "unweighted");
    return 0;
  }
}
