package io.gstm.core.graph;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.cuda.CudaProgramRelax;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.OpenState;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.TxStore;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * A user relaxation checked and readied once ({@link ProgramRelaxation#prepare}) for as many
 * runs as the caller makes over one store and graph, each from its own active vertices and over
 * the values the store holds when it runs. On the GPU (a PR-STM store of the CUDA engine,
 * programs compiled) the edges stay on the device between runs ({@link CudaProgramRelax}) and
 * each run is one launch; elsewhere each round of a run is one program batch on the engine.
 * Not for use by several threads at once. Close it to free the device's copy of the edges.
 */
public final class PreparedRelaxation implements AutoCloseable {
  /** The order's store region, its type, direction and bucket width in its values. */
  record Ordering(int region, RegionType type, boolean descending, double width) {}

  private final Engine engine;
  private final TxStore store;
  private final CsrGraph graph;
  private final CompiledProgram program;
  private final boolean weighted;
  private final Ordering ordering;
  private final int maxRounds;
  private final RunOptions options;
  /** The device's rounds, or null where each round is a batch on the engine. */
  private final CudaProgramRelax device;
  private final OpenState open = new OpenState("prepared relaxation");

  PreparedRelaxation(Engine engine, TxStore store, CsrGraph graph, CompiledProgram program,
      boolean weighted, Ordering ordering, int maxRounds, RunOptions options) {
    this.engine = engine;
    this.store = store;
    this.graph = graph;
    this.program = program;
    this.weighted = weighted;
    this.ordering = ordering;
    this.maxRounds = maxRounds;
    this.options = options;
    this.device = CudaProgramRelax.open(engine, store, graph, program, weighted, options);
  }

  /** Whether the runs go to the device in one launch each (the edges kept there). */
  public boolean onDevice() {
    return device != null;
  }

  /**
   * Relaxes from the vertices {@code active} until a round changes nothing.
   *
   * @throws IllegalArgumentException if a vertex of {@code active} is not one of the graph's
   * @throws IllegalStateException if the rounds did not end within the settings' round limit
   *     (the store then holds the values the last round left), or this is closed
   */
  public ProgramRelaxation.Result relax(int[] active) {
    Objects.requireNonNull(active, "active");
    open.check();
    int n = graph.vertexCount();
    boolean[] next = new boolean[n];
    for (int v : active) {
      if (v < 0 || v >= n) {
        throw new IllegalArgumentException("active: vertex " + v + " is not one of the graph's "
            + n + " (0.." + (n - 1) + ")");
      }
      next[v] = true;
    }
    if (device != null) {
      CudaProgramRelax.Rounds r = ordering == null
          ? device.relax(marked(next), maxRounds, -1, null, false, Double.POSITIVE_INFINITY)
          : device.relax(marked(next), maxRounds, ordering.region(), ordering.type(),
              ordering.descending(), ordering.width());
      return new ProgramRelaxation.Result(r.rounds(), r.transactions(), r.skipped(),
          r.changes(), r.outcomes(), r.kernelNanos());
    }
    return hostRounds(next);
  }

  /** Each round one program batch on the engine, from the vertices marked in {@code pending}. */
  private ProgramRelaxation.Result hostRounds(boolean[] pending) {
    int n = graph.vertexCount();
    ProgramSet set = ProgramSet.of(program);
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    long transactions = 0;
    long changes = 0;
    long kernelNanos = 0;
    int rounds = 0;
    double width = ordering == null ? Double.POSITIVE_INFINITY : ordering.width();
    double bound = ordering == null ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
    while (true) {
      double[] keys = ordering == null ? null : priorities(n);
      int[] frontier = take(pending, keys, bound);
      if (frontier.length == 0) {
        double lowest = lowest(pending, keys);
        if (Double.isNaN(lowest)) {
          break; // nothing waits
        }
        bound = Math.max(bound, lowest) + width;
        frontier = take(pending, keys, bound);
      }
      if (rounds == maxRounds) {
        throw new IllegalStateException("program '" + program.name() + "': " + frontier.length
            + " vertices still changed after " + maxRounds + " rounds (maxRounds); a "
            + "relaxation that does not only improve values may never end");
      }
      rounds++;
      int m = 0;
      for (int v : frontier) {
        m += graph.offsets()[v + 1] - graph.offsets()[v];
      }
      if (m == 0) {
        continue;
      }
      int[] src = new int[m];
      int[] dst = new int[m];
      double[] weight = weighted ? new double[m] : null;
      int e = 0;
      for (int v : frontier) {
        for (int i = graph.offsets()[v]; i < graph.offsets()[v + 1]; i++) {
          src[e] = v;
          dst[e] = graph.targets()[i];
          if (weighted) {
            weight[e] = graph.weight(i);
          }
          e++;
        }
      }
      ProgramBatch.Builder b = ProgramBatch.builder(set).all(program.name(), m)
          .column(Column.wrapInt32("src", src)).column(Column.wrapInt32("dst", dst));
      if (weighted) {
        b.column(Column.ofFloat64("weight", weight));
      }
      ProgramResult r = engine.run(store, b.build(), options);
      transactions += m;
      kernelNanos += r.stats().kernelNanos();
      for (int t = 0; t < m; t++) {
        Outcome o = r.outcome(t);
        outcomes.merge(o, 1L, Long::sum);
        if (o == Outcome.COMMITTED && r.outputBits(t, "changed") != 0) {
          pending[dst[t]] = true;
          changes++;
        } else if (o == Outcome.ABANDONED || o == Outcome.ABANDONED_SEMANTIC) {
          pending[src[t]] = true; // given up under contention: the edge runs again next round
        } else if (o == Outcome.TOO_LARGE) {
          throw new IllegalStateException("program '" + program.name() + "': a relaxation "
              + "of edge " + src[t] + " -> " + dst[t] + " ended TOO_LARGE (more reads or "
              + "writes than its set holds)");
        }
      }
    }
    return new ProgramRelaxation.Result(rounds, transactions, 0, changes, outcomes,
        kernelNanos);
  }

  private static int[] marked(boolean[] marked) {
    return take(marked.clone(), null, Double.POSITIVE_INFINITY);
  }

  /**
   * The pending vertices whose key is not above {@code bound} (all of them without keys), in
   * order, taken off {@code pending}.
   */
  private static int[] take(boolean[] pending, double[] keys, double bound) {
    int count = 0;
    for (int v = 0; v < pending.length; v++) {
      count += pending[v] && !(keys != null && keys[v] > bound) ? 1 : 0;
    }
    int[] out = new int[count];
    int k = 0;
    for (int v = 0; v < pending.length && k < count; v++) {
      if (pending[v] && !(keys != null && keys[v] > bound)) {
        out[k++] = v;
        pending[v] = false;
      }
    }
    return out;
  }

  /** The lowest key of a pending vertex; NaN if none is pending. */
  private static double lowest(boolean[] pending, double[] keys) {
    double lowest = Double.NaN;
    for (int v = 0; v < pending.length; v++) {
      if (pending[v] && (Double.isNaN(lowest) || keys[v] < lowest)) {
        lowest = keys[v];
      }
    }
    return lowest;
  }

  /** Each vertex's place in the order: its value as a number, negated when descending. */
  private double[] priorities(int n) {
    double[] keys = new double[n];
    int region = ordering.region();
    switch (ordering.type()) {
      case INT32 -> {
        int[] v = store.readInt32(region);
        for (int i = 0; i < n; i++) {
          keys[i] = v[i];
        }
      }
      case INT64 -> {
        long[] v = store.readInt64(region);
        for (int i = 0; i < n; i++) {
          keys[i] = v[i];
        }
      }
      case FLOAT32 -> {
        float[] v = store.readFloat32(region);
        for (int i = 0; i < n; i++) {
          keys[i] = v[i];
        }
      }
      case FLOAT64 -> System.arraycopy(store.readFloat64(region), 0, keys, 0, n);
      default -> throw new IllegalStateException("region type " + ordering.type());
    }
    if (ordering.descending()) {
      for (int i = 0; i < n; i++) {
        keys[i] = -keys[i];
      }
    }
    return keys;
  }

  @Override
  public void close() {
    open.close();
    if (device != null) {
      device.close();
    }
  }
}
