package io.gstm.core.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.Program;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.graph.GraphPrograms;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * User-written relaxations on the JVM engine's concurrent workers: widest paths against a serial
 * fixpoint, shortest paths with parent and hop count kept consistent (each vertex's distance is
 * its parent's plus the edge, its hops its parent's plus one) and equal to Dijkstra's, and the
 * programs and inputs a relaxation refuses, naming why.
 */
public class ProgramRelaxationTest {
  private static Engine jvm;

  @BeforeAll
  static void open() {
    jvm = new JvmEngine(4);
  }

  @AfterAll
  static void close() {
    jvm.close();
  }

  /** A random weighted graph of {@code n} vertices and about {@code n * degree} edges. */
  public static CsrGraph graph(int n, int degree, long seed) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int m = n * degree;
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = i < degree ? 0 : rnd.nextInt(n); // the source, vertex 0, has out-edges
      dst[i] = rnd.nextInt(n);
      w[i] = 1 + rnd.nextInt(100);
    }
    return CsrGraph.fromEdges(n, src, dst, w);
  }

  /**
   * One prepared relaxation run from several sources in turn, the values set afresh before each
   * run: each reaches Dijkstra's distances from its source with a consistent tree. Closed, it
   * refuses another run and a second close, naming itself. Returns whether it ran on the device.
   */
  public static boolean preparedRunsFromSeveralSources(Engine engine, CsrGraph g) {
    int n = g.vertexCount();
    PreparedRelaxation prepared;
    boolean onDevice;
    try (TxStore store = engine.createStore(pathsLayout(n))) {
      prepared = ProgramRelaxation.prepare(engine, store, g,
          Program.parse(GraphPrograms.PATHS).get(0), ProgramRelaxation.Settings.defaults()
              .withOrder(ProgramRelaxation.Order.ascending("dist")));
      onDevice = prepared.onDevice();
      for (int source : new int[] {0, n / 3, n - 1, 0}) {
        GraphPrograms.startPaths(store, n, source);
        ProgramRelaxation.Result r = prepared.relax(new int[] {source});
        assertThat(r.outcomes().keySet()).as("source %d", source)
            .doesNotContain(Outcome.TOO_LARGE);
        double[] got = store.readFloat64(0);
        assertThat(got).as("source %d", source).isEqualTo(dijkstra(g, source));
        assertConsistentTree(g, source, got, store.readInt32(1), store.readInt32(2));
      }
      assertThatThrownBy(() -> prepared.relax(null)).isInstanceOf(NullPointerException.class)
          .hasMessage("active");
      prepared.close();
    }
    assertThatThrownBy(() -> prepared.relax(new int[] {0}))
        .isInstanceOf(IllegalStateException.class).hasMessage("prepared relaxation is closed");
    assertThatThrownBy(prepared::close).isInstanceOf(IllegalStateException.class)
        .hasMessage("prepared relaxation already closed");
    return onDevice;
  }

  @Test
  void onePreparedRelaxationRunsFromSeveralSources() {
    assertThat(preparedRunsFromSeveralSources(jvm, graph(3_000, 4, 7))).isFalse();
  }

  /** Widest paths from {@code source}, relaxed serially until nothing changes. */
  public static double[] widestSerially(CsrGraph g, int source) {
    double[] width = new double[g.vertexCount()];
    width[source] = Double.POSITIVE_INFINITY;
    for (boolean changed = true; changed; ) {
      changed = false;
      for (int u = 0; u < g.vertexCount(); u++) {
        for (int i = g.offsets()[u]; i < g.offsets()[u + 1]; i++) {
          double w = Math.min(width[u], g.weights()[i]);
          if (w > width[g.targets()[i]]) {
            width[g.targets()[i]] = w;
            changed = true;
          }
        }
      }
    }
    return width;
  }

  /** Dijkstra's distances from {@code source}. */
  public static double[] dijkstra(CsrGraph g, int source) {
    double[] dist = new double[g.vertexCount()];
    Arrays.fill(dist, Double.POSITIVE_INFINITY);
    dist[source] = 0;
    PriorityQueue<double[]> q = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
    q.add(new double[] {0, source});
    while (!q.isEmpty()) {
      double[] top = q.poll();
      int u = (int) top[1];
      if (top[0] > dist[u]) {
        continue;
      }
      for (int i = g.offsets()[u]; i < g.offsets()[u + 1]; i++) {
        double d = dist[u] + g.weights()[i];
        if (d < dist[g.targets()[i]]) {
          dist[g.targets()[i]] = d;
          q.add(new double[] {d, g.targets()[i]});
        }
      }
    }
    return dist;
  }

  public static StoreLayout widestLayout(int n) {
    return StoreLayout.of(new RegionSpec("width", RegionType.FLOAT64, n, 1));
  }

  /** Distance, parent and hops of each vertex, one lock a vertex (a row's three words). */
  public static StoreLayout pathsLayout(int n) {
    return pathsLayout(n, true);
  }

  /** As {@link #pathsLayout(int)}, or with a lock for each word when not {@code rowLocks}. */
  public static StoreLayout pathsLayout(int n, boolean rowLocks) {
    RegionSpec parent = new RegionSpec("parent", RegionType.INT32, n, 1);
    RegionSpec hops = new RegionSpec("hops", RegionType.INT32, n, 1);
    return StoreLayout.of(new RegionSpec("dist", RegionType.FLOAT64, n, 1),
        rowLocks ? parent.withLocksOf("dist") : parent, rowLocks ? hops.withLocksOf("dist") : hops);
  }

  /** Widest paths from vertex 0 on {@code engine}. */
  public static double[] widest(Engine engine, CsrGraph g) {
    return widest(engine, g, null);
  }

  /** Widest paths from vertex 0 on {@code engine}, the vertices taken in {@code order}. */
  public static double[] widest(Engine engine, CsrGraph g, ProgramRelaxation.Order order) {
    try (TxStore store = engine.createStore(widestLayout(g.vertexCount()))) {
      double[] width = new double[g.vertexCount()];
      width[0] = Double.POSITIVE_INFINITY;
      store.writeFloat64(0, width);
      ProgramRelaxation.Result r = ProgramRelaxation.relax(engine, store, g,
          Program.parse(GraphPrograms.WIDEST).get(0), new int[] {0},
          ProgramRelaxation.Settings.defaults().withOrder(order));
      assertThat(r.outcomes().keySet()).containsOnly(Outcome.COMMITTED);
      assertThat(r.changes()).as("changes").isGreaterThan(g.vertexCount() / 2);
      // Rounds, or on the device a drained bucket or more (a bucket counts as one).
      assertThat(r.rounds()).isPositive();
      return store.readFloat64(0);
    }
  }

  /** Shortest paths from vertex 0 on {@code engine}: distances, parents, hops. */
  public static Object[] paths(Engine engine, CsrGraph g) {
    return paths(engine, g, null);
  }

  /**
   * Shortest paths from vertex 0 on {@code engine}, the vertices taken in {@code order}:
   * distances, parents, hops, and the transactions run (a Long).
   */
  public static Object[] paths(Engine engine, CsrGraph g, ProgramRelaxation.Order order) {
    return paths(engine, g, order, true);
  }

  /** As {@link #paths(Engine, CsrGraph, ProgramRelaxation.Order)}, with row locks or not. */
  public static Object[] paths(Engine engine, CsrGraph g, ProgramRelaxation.Order order,
      boolean rowLocks) {
    int n = g.vertexCount();
    try (TxStore store = engine.createStore(pathsLayout(n, rowLocks))) {
      GraphPrograms.startPaths(store, n, 0);
      ProgramRelaxation.Result r = ProgramRelaxation.relax(engine, store, g,
          Program.parse(GraphPrograms.PATHS).get(0), new int[] {0},
          ProgramRelaxation.Settings.defaults().withOrder(order));
      assertThat(r.changes()).as("changes").isGreaterThan(g.vertexCount() / 2);
      return new Object[] {store.readFloat64(0), store.readInt32(1), store.readInt32(2),
          r.transactions()};
    }
  }

  /** Every reached vertex but the source: distance and hops its parent's plus the edge's. */
  public static void assertConsistentTree(CsrGraph g, double[] dist, int[] parent, int[] hops) {
    assertConsistentTree(g, 0, dist, parent, hops);
  }

  /** As {@link #assertConsistentTree(CsrGraph, double[], int[], int[])} from {@code source}. */
  public static void assertConsistentTree(CsrGraph g, int source, double[] dist, int[] parent,
      int[] hops) {
    for (int v = 0; v < g.vertexCount(); v++) {
      if (v == source) {
        continue;
      }
      if (dist[v] == Double.POSITIVE_INFINITY) {
        assertThat(parent[v]).as("parent of unreached %d", v).isEqualTo(-1);
        continue;
      }
      int p = parent[v];
      boolean edge = false;
      for (int i = g.offsets()[p]; i < g.offsets()[p + 1] && !edge; i++) {
        edge = g.targets()[i] == v && dist[p] + g.weights()[i] == dist[v];
      }
      assertThat(edge).as("vertex %d: distance %s from parent %d at %s", v, dist[v], p, dist[p])
          .isTrue();
      assertThat(hops[v]).as("hops of %d", v).isEqualTo(hops[p] + 1);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3})
  void widestPathsEqualTheSerialFixpoint(long seed) {
    CsrGraph g = graph(3_000, 4, seed);
    assertThat(widest(jvm, g)).isEqualTo(widestSerially(g, 0));
  }

  /** With one lock a vertex (its three words a row) and with one a word: the same answers. */
  @ParameterizedTest(name = "seed {0}, row locks {1}")
  @CsvSource({"1, true", "2, true", "3, true", "1, false", "2, false"})
  void shortestPathsKeepParentAndHopsConsistentWithTheDistance(long seed, boolean rowLocks) {
    CsrGraph g = graph(3_000, 4, seed);
    Object[] r = paths(jvm, g, null, rowLocks);
    double[] dist = (double[]) r[0];
    assertThat(dist).isEqualTo(dijkstra(g, 0));
    assertConsistentTree(g, dist, (int[]) r[1], (int[]) r[2]);
  }

  /** A weighted grid of {@code side} x {@code side} cells: thousands of rounds as they come. */
  public static CsrGraph grid(int side, long seed) {
    return GridGenerator.grid(side, side, seed).toCsr();
  }

  /**
   * Taken lowest distance first, in buckets of every width, shortest paths on a grid reach
   * Dijkstra's distances with a consistent tree, with fewer transactions than taken as they
   * come; ordered by the int32 hop count instead (not the value that settles), the same
   * distances.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2})
  void orderedShortestPathsReachDijkstrasWithLessWork(long seed) {
    CsrGraph g = grid(40, seed);
    double[] expected = dijkstra(g, 0);
    Object[] asTheyCome = paths(jvm, g, null);
    assertThat((double[]) asTheyCome[0]).isEqualTo(expected);
    for (ProgramRelaxation.Order order : new ProgramRelaxation.Order[] {
        ProgramRelaxation.Order.ascending("dist"),
        ProgramRelaxation.Order.ascending("dist").withWidth(0.5),
        ProgramRelaxation.Order.ascending("dist").withWidth(1e9),
        ProgramRelaxation.Order.ascending("hops")}) {
      Object[] r = paths(jvm, g, order);
      assertThat((double[]) r[0]).as("%s", order).isEqualTo(expected);
      assertConsistentTree(g, (double[]) r[0], (int[]) r[1], (int[]) r[2]);
      if (order.region().equals("dist") && order.width() < 1e9) {
        assertThat((long) r[3]).as("transactions, %s", order).isLessThan((long) asTheyCome[3]);
      }
    }
  }

  /** Widest paths taken highest width first, or (against their order) lowest: the same values. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2})
  void orderedWidestPathsEqualTheSerialFixpointInEitherDirection(long seed) {
    CsrGraph g = graph(3_000, 4, seed);
    double[] expected = widestSerially(g, 0);
    assertThat(widest(jvm, g, ProgramRelaxation.Order.descending("width"))).isEqualTo(expected);
    assertThat(widest(jvm, g, ProgramRelaxation.Order.ascending("width").withWidth(3)))
        .isEqualTo(expected);
  }

  /**
   * Edges crowding onto few targets with a retry limit of 1: relaxations the engine gives up
   * run again in the next round, so the fixpoint is still the serial one.
   */
  @Test
  void relaxationsGivenUpUnderContentionRunAgain() {
    SplittableRandom rnd = new SplittableRandom(5);
    int n = 400;
    int m = 20_000;
    int[] src = new int[m];
    int[] dst = new int[m];
    double[] w = new double[m];
    for (int i = 0; i < m; i++) {
      src[i] = i < 20 ? 0 : rnd.nextInt(n);
      dst[i] = rnd.nextInt(8) == 0 ? rnd.nextInt(n) : rnd.nextInt(4);
      w[i] = 1 + rnd.nextInt(100);
    }
    CsrGraph g = CsrGraph.fromEdges(n, src, dst, w);
    try (TxStore store = jvm.createStore(widestLayout(n))) {
      double[] width = new double[n];
      width[0] = Double.POSITIVE_INFINITY;
      store.writeFloat64(0, width);
      ProgramRelaxation.relax(jvm, store, g, Program.parse(GraphPrograms.WIDEST).get(0), new int[] {0}, 10_000,
          RunOptions.defaults().withMaxRetries(1));
      assertThat(store.readFloat64(0)).isEqualTo(widestSerially(g, 0));
    }
  }

  @Test
  void programsAndInputsARelaxationCannotRunAreRefusedNamingWhy() {
    CsrGraph g = graph(10, 2, 1);
    try (TxStore store = jvm.createStore(widestLayout(10));
        TxStore small = jvm.createStore(widestLayout(9))) {
      RunOptions o = RunOptions.defaults();
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, store, g, Program.parse("""
          program p(src: int32, dst: int32) regions width: float64 {
            width[dst] = width[src];
          }
          """).get(0), new int[] {0}, 10, o)).hasMessageContaining("int32 output 'changed'");
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, store, g, Program.parse("""
          program p(src: int32, to: int32) regions width: float64 outputs changed: int32 {
            width[to] = width[src];
          }
          """).get(0), new int[] {0}, 10, o)).hasMessageContaining("parameter 'to'");
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, store, g, Program.parse("""
          program p(src: int32, dst: int32, weight: int32) regions width: float64
              outputs changed: int32 {
            width[dst] = width[src];
          }
          """).get(0), new int[] {0}, 10, o)).hasMessageContaining("'weight' must be");
      Program widest = Program.parse(GraphPrograms.WIDEST).get(0);
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, store, g, widest, new int[] {10},
          10, o)).hasMessageContaining("vertex 10 is not one of the graph's 10");
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, small, g, widest, new int[] {0},
          10, o)).hasMessageContaining("9 words, fewer than the graph's 10 vertices");
      ProgramRelaxation.Settings byDist =
          ProgramRelaxation.Settings.defaults().withOrder(ProgramRelaxation.Order.ascending("dist"));
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, store, g, widest, new int[] {0}, byDist))
          .hasMessageContaining("order: region 'dist' is not one of program 'widest''s [width]");
      assertThatThrownBy(() -> ProgramRelaxation.Order.ascending("width").withWidth(0))
          .hasMessageContaining("width must be positive");
      assertThatThrownBy(() -> ProgramRelaxation.Order.ascending("width").withWidth(-1))
          .hasMessageContaining("got -1.0");
      // A relaxation that never stops improving (every round raises the values) ends at the
      // round limit, naming it.
      CsrGraph ring = CsrGraph.fromEdges(2, new int[] {0, 1}, new int[] {1, 0}, null);
      assertThatThrownBy(() -> ProgramRelaxation.relax(jvm, store, ring, Program.parse("""
          program up(src: int32, dst: int32) regions width: float64 outputs changed: int32 {
            width[dst] = width[src] + 1.0;
            changed = 1;
          }
          """).get(0), new int[] {0}, 50, o)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("after 50 rounds (maxRounds)");
    }
  }
}
