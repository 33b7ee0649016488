package io.gstm.cli;

import io.gstm.core.engine.Engine;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.PreparedRelaxation;
import io.gstm.core.graph.ProgramRelaxation;
import io.gstm.core.program.Program;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.graph.GraphPrograms;

/**
 * {@code bench-graph --program paths}: shortest paths written as a transaction program that
 * keeps each vertex's distance, parent and hop count together ({@link GraphPrograms#PATHS}),
 * relaxed by {@link ProgramRelaxation} on the same graph, engine and source as the built-in
 * relaxation (prepared once, as the built-in's relaxer keeps its graph); its distances must
 * equal the built-in's (verified against Dijkstra) and its parents form a shortest-path tree
 * with consistent hop counts.
 */
final class ProgramRelaxTrial implements AutoCloseable {
  /** One run: the relaxation's report, its values, and its time in all. */
  record Run(ProgramRelaxation.Result result, double[] dist, int[] parent, int[] hops,
      long totalNanos) {}

  private final CsrGraph graph;
  private final int source;
  private final Program program = Program.parse(GraphPrograms.PATHS).get(0);
  private final TxStore store;
  /** Readied once for every run, as a user relaxing again and again would (edges on the GPU). */
  private final PreparedRelaxation prepared;
  private final long prepareNanos;

  /** @param order the order the vertices are taken in (lowest distance first), or null */
  ProgramRelaxTrial(Engine engine, CsrGraph graph, int source, ProgramRelaxation.Order order) {
    this.graph = graph;
    this.source = source;
    int n = graph.vertexCount();
    this.store = engine.createStore(StoreLayout.of(
        new RegionSpec("dist", RegionType.FLOAT64, n, 1),
        new RegionSpec("parent", RegionType.INT32, n, 1).withLocksOf("dist"),
        new RegionSpec("hops", RegionType.INT32, n, 1).withLocksOf("dist")));
    long t0 = System.nanoTime();
    try {
      this.prepared = ProgramRelaxation.prepare(engine, store, graph, program,
          ProgramRelaxation.Settings.defaults().withOrder(order).withMaxRounds(1_000_000));
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
    this.prepareNanos = System.nanoTime() - t0;
  }

  /** The time the relaxation took to ready (its edges to the device, its kernel loaded). */
  long prepareNanos() {
    return prepareNanos;
  }

  /** Relaxes from the source; the store's values are set afresh first. */
  Run run() {
    GraphPrograms.startPaths(store, graph.vertexCount(), source);
    long t0 = System.nanoTime();
    ProgramRelaxation.Result r = prepared.relax(new int[] {source});
    long total = System.nanoTime() - t0;
    return new Run(r, store.readFloat64(0), store.readInt32(1), store.readInt32(2), total);
  }

  /**
   * Null if the run's distances equal {@code expected} and every reached vertex but the source
   * has a parent whose distance plus an edge to it is its own and hops one more than its
   * parent's; else the first vertex that breaks it.
   */
  String check(Run run, double[] expected) {
    for (int v = 0; v < graph.vertexCount(); v++) {
      if (Double.compare(run.dist()[v], expected[v]) != 0) {
        return "vertex " + v + ": distance " + run.dist()[v] + ", expected " + expected[v];
      }
      if (v == source || run.dist()[v] == Double.POSITIVE_INFINITY) {
        continue;
      }
      int p = run.parent()[v];
      if (p < 0 || p >= graph.vertexCount()) {
        return "vertex " + v + ": parent " + p;
      }
      boolean edge = false;
      for (int i = graph.offsets()[p]; i < graph.offsets()[p + 1] && !edge; i++) {
        edge = graph.targets()[i] == v && run.dist()[p] + graph.weight(i) == run.dist()[v];
      }
      if (!edge) {
        return "vertex " + v + ": no edge from parent " + p + " gives its distance";
      }
      if (run.hops()[v] != run.hops()[p] + 1) {
        return "vertex " + v + ": " + run.hops()[v] + " hops, its parent " + p + " "
            + run.hops()[p];
      }
    }
    return null;
  }

  @Override
  public void close() {
    try {
      prepared.close();
    } finally {
      store.close();
    }
  }
}
