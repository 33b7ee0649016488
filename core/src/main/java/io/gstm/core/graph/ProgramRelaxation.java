package io.gstm.core.graph;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.Program;
import io.gstm.core.program.ValueType;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.TxStore;
import java.util.Map;
import java.util.Objects;

/**
 * A relaxation the user writes: a transaction program run once for each out-edge {@code u -> v}
 * of the vertices that changed in the last round, over the vertex values the user keeps in a
 * store (one word per vertex in each of its regions), until a round changes nothing. Widest
 * paths, shortest paths with their parent and hop count, reachability with labels: whatever a
 * vertex's value tuple and an edge's weight decide, with every tuple updated atomically (the
 * transactions keep a vertex's distance and parent consistent).
 *
 * <p>The program takes {@code src: int32} and {@code dst: int32} (the edge's ends), optionally
 * {@code weight: float64} (1 on an unweighted graph), and has an int32 output {@code changed}:
 * nonzero when the transaction improved {@code dst}'s values, which puts {@code dst} in the
 * next round. For example, widest paths:
 *
 * <pre>
 * program widest(src: int32, dst: int32, weight: float64)
 *     regions width: float64 outputs changed: int32 {
 *   let w = min(width[src], weight);
 *   if (w &gt; width[dst]) { width[dst] = w; changed = 1; }
 * }
 * </pre>
 *
 * <p>Each round is one program batch on the engine: the batch's transactions are serializable
 * (on the GPU's device loop, with what they read of their source taken as an input, below), and
 * a vertex whose value changed during a round, after an edge from it was relaxed, is in the next
 * round, so the rounds end at the relaxation's fixpoint when the program only ever improves
 * values (a monotone relaxation). A
 * relaxation the engine gave up under contention (ABANDONED) puts its source in the next round,
 * so its edge runs again; one the program aborted, or that overflowed, changes nothing.
 *
 * <p>Taken as they come, the vertices of a graph of high diameter (a road network) are relaxed
 * again and again before their values settle. An {@link Order} names the value that settles
 * first (a distance: lowest first); each round then takes only the vertices whose value is
 * within a bucket of the lowest waiting, near-far as the built-in shortest paths do, and the
 * others wait. The fixpoint is the same; only the work to reach it changes.
 *
 * <p>On the GPU (a PR-STM store of the {@link io.gstm.core.cuda.CudaEngine}, programs compiled)
 * the rounds run on the device ({@link io.gstm.core.cuda.CudaProgramRelax}): the edges go up
 * once as the batch's columns ({@link #prepare} keeps them there for several relaxations), the
 * whole run is one launch, and each edge is first looked at over plain reads; an edge whose
 * look would write nothing runs no transaction ({@link Result#skipped()}).
 * For a relaxation that only ever improves values this skips only edges whose transaction would
 * have changed nothing, so the fixpoint is the same. A transaction there takes what it only
 * reads of its source as an input, as the built-in shortest paths take the source's distance: a
 * snapshot of the source's words (one version of them) not validated again at its commit; what
 * it writes stays atomic with what it read of {@code dst}, and a source that changes later is
 * queued again by that change, so the fixpoint is again the same. Elsewhere (the JVM engine, history asked
 * for, a program that does not compile for the device) each round is one program batch on the
 * engine, a host round trip.
 */
public final class ProgramRelaxation {
  /**
   * What a relaxation did.
   *
   * @param rounds rounds run
   * @param transactions transactions run
   * @param skipped edges that ran no transaction: on the GPU each edge is first looked at over
   *     plain reads, and one that would write nothing is skipped (0 on other engines)
   * @param changes commits that reported a change
   * @param outcomes the transactions by outcome
   * @param kernelNanos GPU time of the rounds (0 on the JVM engine)
   */
  public record Result(int rounds, long transactions, long skipped, long changes,
      Map<Outcome, Long> outcomes, long kernelNanos) {}

  /**
   * The order a relaxation takes its vertices in: lowest value of {@code region} first (highest
   * when {@code descending}), in near-far buckets {@code width} wide. The order should be the
   * one the program improves values in (a distance falls: ascending; a width rises:
   * descending); another order costs time, never values.
   *
   * @param region a region of the program, one word per vertex (any numeric type)
   * @param width the buckets' width in the region's values; NaN for {@link #AUTO_WIDTH} mean
   *     edge weights (1 per edge on an unweighted graph)
   */
  public record Order(String region, boolean descending, double width) {
    /**
     * The buckets' width when none is given, in mean edge weights: narrower than the built-in
     * shortest paths' ({@link RelaxOptions#DEFAULT_BUCKET_EDGES}, 32), whose transaction costs
     * less than a program's. On the H200 the paths program took the road-like grid of 2^24
     * cells 117.5-118.4 ms of kernel at 24 against 119.4-120.2 at 32 (56.9 M transactions
     * against 69.9 M, in 1,080 rounds against 1,049), the 2^20 grid 24.01 against 23.92-23.95
     * ms; 20 and 16 did no better on the road grid, and the 2^20 grid took 24.44 ms at 20;
     * R-MAT's few rounds are the same at any width (docs/benchmark-log.md, 2026-12-03 noon).
     */
    public static final double AUTO_WIDTH = 24;

    public Order {
      Objects.requireNonNull(region, "region");
      if (!(width > 0) && !Double.isNaN(width)) {
        throw new IllegalArgumentException("order: width must be positive (NaN: "
            + AUTO_WIDTH + " mean edge weights), got " + width);
      }
    }

    /** Lowest value of {@code region} first (a distance, a hop count). */
    public static Order ascending(String region) {
      return new Order(region, false, Double.NaN);
    }

    /** Highest value of {@code region} first (a width, a capacity). */
    public static Order descending(String region) {
      return new Order(region, true, Double.NaN);
    }

    /** The same order in buckets {@code width} wide. */
    public Order withWidth(double width) {
      return new Order(region, descending, width);
    }

    /** The width on {@code graph}: as given, or AUTO_WIDTH mean edge weights. */
    double widthOn(CsrGraph graph) {
      if (!Double.isNaN(width)) {
        return width;
      }
      double mean = graph.meanWeight();
      // Weights too large to sum: one bucket.
      return Double.isFinite(mean) ? AUTO_WIDTH * mean : Double.POSITIVE_INFINITY;
    }
  }

  /**
   * How a relaxation runs: the order it takes its vertices in (null: as they come), the most
   * rounds before it fails, and the engine's options for its batches.
   */
  public record Settings(Order order, int maxRounds, RunOptions options) {
    public Settings {
      Objects.requireNonNull(options, "options");
      if (maxRounds < 1) {
        throw new IllegalArgumentException("maxRounds must be at least 1, got " + maxRounds);
      }
    }

    /** As they come, at most 100,000 rounds, the engine's default options. */
    public static Settings defaults() {
      return new Settings(null, 100_000, RunOptions.defaults());
    }

    /** The same, taking the vertices in {@code value} (null: as they come). */
    public Settings withOrder(Order value) {
      return new Settings(value, maxRounds, options);
    }

    /** The same with at most {@code value} rounds. */
    public Settings withMaxRounds(int value) {
      return new Settings(order, value, options);
    }

    /** The same with the engine's options {@code value}. */
    public Settings withOptions(RunOptions value) {
      return new Settings(order, maxRounds, value);
    }
  }

  private ProgramRelaxation() {}

  /**
   * Relaxes {@code store}'s vertex values over {@code graph} with {@code program}, starting
   * from the vertices {@code active}, for at most {@code maxRounds} rounds.
   *
   * @throws IllegalArgumentException if the program lacks the parameters or output above, a
   *     vertex of {@code active} is not one of the graph's, or a store region the program uses
   *     has fewer words than the graph has vertices
   * @throws IllegalStateException if the rounds did not end within {@code maxRounds} (the
   *     store then holds the values the last round left)
   */
  public static Result relax(Engine engine, TxStore store, CsrGraph graph, Program program,
      int[] active, int maxRounds, RunOptions options) {
    return relax(engine, store, graph, program, active, new Settings(null, maxRounds, options));
  }

  /**
   * As {@link #relax(Engine, TxStore, CsrGraph, Program, int[], int, RunOptions)}, with the
   * order, round limit and options of {@code settings}. On the GPU a round in which every
   * queued vertex is past the bucket counts towards the round limit. One relaxation: {@link
   * #prepare} keeps what the runs share (on the GPU the edges, uploaded once) for several.
   *
   * @throws IllegalArgumentException also if the order's region is not one of the program's
   */
  public static Result relax(Engine engine, TxStore store, CsrGraph graph, Program program,
      int[] active, Settings settings) {
    try (PreparedRelaxation prepared = prepare(engine, store, graph, program, settings)) {
      return prepared.relax(active);
    }
  }

  /**
   * Checks {@code program} against {@code store} and {@code graph} once and readies its
   * relaxations, each from its own active vertices over the values the store holds when it
   * runs ({@link PreparedRelaxation#relax}): on the GPU the edges go to the device and the
   * kernel is loaded once, so that each relaxation after the first costs its kernel's time and
   * little more. Close it to free the device's copy of the edges; the store stays the caller's.
   *
   * @throws IllegalArgumentException as {@link #relax(Engine, TxStore, CsrGraph, Program, int[],
   *     Settings)} does for the program, the store's regions and the order
   */
  public static PreparedRelaxation prepare(Engine engine, TxStore store, CsrGraph graph,
      Program program, Settings settings) {
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(graph, "graph");
    Objects.requireNonNull(program, "program");
    Objects.requireNonNull(settings, "settings");
    Order order = settings.order();
    CompiledProgram compiled = program.compile();
    boolean weighted = check(compiled);
    for (Program.RegionDecl r : program.regions()) {
      int length = store.layout().region(store.layout().regionNamed(r.name(),
          r.type().regionType(), "program '" + program.name() + "'")).length();
      if (length < graph.vertexCount()) {
        throw new IllegalArgumentException("program '" + program.name() + "': region '"
            + r.name() + "' has " + length + " words, fewer than the graph's "
            + graph.vertexCount() + " vertices");
      }
    }
    PreparedRelaxation.Ordering ordering = null;
    if (order != null) {
      Program.RegionDecl decl = program.regions().stream()
          .filter(r -> r.name().equals(order.region())).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("order: region '" + order.region()
              + "' is not one of program '" + program.name() + "''s " + program.regions()
              .stream().map(Program.RegionDecl::name).toList()));
      RegionType type = decl.type().regionType();
      ordering = new PreparedRelaxation.Ordering(store.layout().regionNamed(decl.name(), type,
          "program '" + program.name() + "'"), type, order.descending(), order.widthOn(graph));
    }
    return new PreparedRelaxation(engine, store, graph, compiled, weighted, ordering,
        settings.maxRounds(), settings.options());
  }

  /** Checks the program's interface; returns whether it takes a weight. */
  private static boolean check(CompiledProgram p) {
    boolean src = false;
    boolean dst = false;
    boolean weight = false;
    for (Program.Param param : p.params()) {
      switch (param.name()) {
        case "src", "dst" -> {
          if (param.type() != ValueType.INT32 || param.isArray()) {
            throw new IllegalArgumentException("program '" + p.name() + "': parameter '"
                + param.name() + "' must be a scalar int32 (a vertex), got " + param.type());
          }
          src |= param.name().equals("src");
          dst |= param.name().equals("dst");
        }
        case "weight" -> {
          if (param.type() != ValueType.FLOAT64 || param.isArray()) {
            throw new IllegalArgumentException("program '" + p.name() + "': parameter 'weight' "
                + "must be a scalar float64 (the edge's weight), got " + param.type());
          }
          weight = true;
        }
        default -> throw new IllegalArgumentException("program '" + p.name() + "': parameter '"
            + param.name() + "' is none of a relaxation's (src: int32, dst: int32, weight: "
            + "float64)");
      }
    }
    if (!src || !dst) {
      throw new IllegalArgumentException("program '" + p.name() + "': a relaxation takes "
          + "parameters src: int32 and dst: int32 (the edge's ends)");
    }
    int changed = p.outputIndex("changed");
    if (changed < 0 || p.outputs().get(changed).type() != ValueType.INT32) {
      throw new IllegalArgumentException("program '" + p.name() + "': a relaxation needs an "
          + "int32 output 'changed' (nonzero when it improved dst's values)");
    }
    return weight;
  }
}
