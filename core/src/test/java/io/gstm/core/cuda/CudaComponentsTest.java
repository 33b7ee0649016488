package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.GraphTestGraphs;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import io.gstm.core.graph.RmatGenerator;
import io.gstm.core.graph.VertexIds;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.GpuCondition;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Components by union-find on the device ({@link CudaComponents}) end where the JVM engine's
 * label propagation ends, value for value and changed vertex for changed vertex, on graphs that
 * stress it: R-MAT (a giant component and hubs: most vertices skip their edges), long paths
 * (deep trees), grids, many small parts (no giant component), stars; with starting values that
 * are the ids, shuffled, decreasing with the id (every root's own value the highest of its
 * component), negative, or shared by many vertices; one lock per vertex or per four.
 */
@EnabledIfGpu
class CudaComponentsTest {
  private static CudaEngine gpu;
  private static JvmEngine jvm;

  @BeforeAll
  static void open() {
    gpu = CudaEngine.open(GpuCondition.device());
    jvm = new JvmEngine(4);
  }

  @AfterAll
  static void close() {
    jvm.close();
    gpu.close();
  }

  @ParameterizedTest(name = "{0}, values {1}, coverage {2}, seed {3}")
  @CsvSource({"rmat, ids, 1, 1", "rmat, shuffled, 1, 2", "rmat, decreasing, 4, 3",
      "rmat, negative, 1, 4", "rmat, few, 2, 5", "path, ids, 1, 6", "path, decreasing, 1, 7",
      "grid, shuffled, 1, 8", "parts, ids, 1, 9", "parts, decreasing, 3, 10",
      "stars, ids, 1, 11", "stars, shuffled, 1, 12", "hubs, few, 1, 13",
      "empty, ids, 1, 14"})
  void unionFindEqualsTheJvmEngine(String graph, String values, int coverage, long seed) {
    CsrGraph g = graph(graph, seed).toCsr().undirected();
    int n = g.vertexCount();
    double[] init = values(values, n, seed);
    int[] all = IntStream.range(0, n).toArray();
    RelaxationKind kind = RelaxationKind.CONNECTED_COMPONENTS;
    RelaxOptions opts = RelaxOptions.defaults().withLockCoverage(coverage);
    RelaxResult onGpu;
    RelaxResult again;
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, kind, opts.withSymmetric(true))) {
      onGpu = r.relax(init, all);
      // A second run on the same relaxer (its forest reused) from the fixpoint changes nothing.
      again = r.relax(onGpu.values(), all);
    }
    RelaxResult onJvm;
    try (GraphRelaxer r = new GraphRelaxer(jvm, g, kind, opts)) {
      onJvm = r.relax(init, all);
    }
    assertThat(onGpu.values()).isEqualTo(onJvm.values());
    assertThat(onGpu.changedVertices()).isEqualTo(onJvm.changedVertices());
    assertThat(again.values()).isEqualTo(onGpu.values());
    assertThat(again.changedVertices()).isEmpty();
    if (n > 0) {
      // One "round": union-find ran, not the rounds (a path takes thousands of them).
      assertThat(onGpu.stats().rounds()).isEqualTo(1);
      assertThat(onGpu.stats().improvedWrites()).isEqualTo(onJvm.changedVertices().length);
    }
    if (!values.equals("negative")) {
      RelaxationVerifier.Report report = RelaxationVerifier.check(g, kind, init, onGpu.values());
      assertThat(report.ok()).as(report.toString()).isTrue();
    }
  }

  /**
   * On R-MAT, most vertices are in the giant component and skip their edges: the edges linked
   * are far fewer than the graph's, and the transactions are the vertices lowered.
   */
  @Test
  void theGiantComponentSkipsItsEdges() {
    CsrGraph g = RmatGenerator.generate(14, 1 << 17, 21, false).toCsr().undirected();
    int n = g.vertexCount();
    double[] init = RelaxationVerifier.initialValues(RelaxationKind.CONNECTED_COMPONENTS, n, 0);
    RelaxResult r;
    try (GraphRelaxer relaxer = new GraphRelaxer(gpu, g, RelaxationKind.CONNECTED_COMPONENTS,
        RelaxOptions.defaults().withSymmetric(true))) {
      r = relaxer.relax(init, IntStream.range(0, n).toArray());
    }
    assertThat(r.stats().edgeRelaxations()).isLessThan(g.edgeCount() / 4);
    assertThat(r.stats().tx().transactions()).isEqualTo(r.changedVertices().length);
  }

  /** Union-find and the rounds ({@code gstm.graph.components=rounds}) reach the same values. */
  @ParameterizedTest(name = "{0}, seed {1}")
  @CsvSource({"rmat, 41", "parts, 42", "grid, 43"})
  void unionFindEqualsTheRounds(String graph, long seed) {
    CsrGraph g = graph(graph, seed).toCsr().undirected();
    int n = g.vertexCount();
    double[] init = values("shuffled", n, seed);
    int[] all = IntStream.range(0, n).toArray();
    RelaxOptions opts = RelaxOptions.defaults().withSymmetric(true);
    RelaxResult union;
    RelaxResult rounds;
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, RelaxationKind.CONNECTED_COMPONENTS, opts)) {
      union = r.relax(init, all);
    }
    String before = System.getProperty("gstm.graph.components");
    System.setProperty("gstm.graph.components", "rounds");
    try (GraphRelaxer r = new GraphRelaxer(gpu, g, RelaxationKind.CONNECTED_COMPONENTS, opts)) {
      rounds = r.relax(init, all);
    } finally {
      if (before == null) {
        System.clearProperty("gstm.graph.components");
      } else {
        System.setProperty("gstm.graph.components", before);
      }
    }
    assertThat(union.values()).isEqualTo(rounds.values());
    assertThat(union.changedVertices()).isEqualTo(rounds.changedVertices());
    assertThat(rounds.stats().rounds()).isGreaterThan(1);
  }

  private static EdgeList graph(String graph, long seed) {
    return switch (graph) {
      case "rmat" -> RmatGenerator.generate(13, 1 << 15, seed, false);
      case "path" -> GraphTestGraphs.path(20_000, seed);
      case "grid" -> GridGenerator.shuffled(GridGenerator.grid(96, 96, seed), seed);
      case "parts" -> GraphTestGraphs.random(8000, 6000, 400, seed);
      case "stars" -> stars(50, 60, seed);
      case "hubs" -> GraphTestGraphs.hubsLoopsAndDuplicates(7000, 30_000, false, false, seed);
      case "empty" -> new EdgeList(0, new int[0], new int[0], null);
      default -> throw new IllegalArgumentException(graph);
    };
  }

  /** {@code stars} stars of {@code leaves} leaves each, ids shuffled. */
  private static EdgeList stars(int stars, int leaves, long seed) {
    int n = stars * (leaves + 1);
    int[] id = shuffledIds(n, seed);
    int[] src = new int[stars * leaves];
    int[] dst = new int[stars * leaves];
    for (int s = 0, e = 0; s < stars; s++) {
      for (int l = 1; l <= leaves; l++, e++) {
        src[e] = id[s * (leaves + 1)];
        dst[e] = id[s * (leaves + 1) + l];
      }
    }
    return new EdgeList(n, src, dst, null);
  }

  private static double[] values(String how, int n, long seed) {
    double[] v = new double[n];
    int[] perm = shuffledIds(n, seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    for (int i = 0; i < n; i++) {
      v[i] = switch (how) {
        case "ids" -> i;
        case "shuffled" -> perm[i];
        case "decreasing" -> n - i;
        case "negative" -> -1.5 * perm[i] - 1;
        case "few" -> rnd.nextInt(5);
        default -> throw new IllegalArgumentException(how);
      };
    }
    return v;
  }

  private static int[] shuffledIds(int n, long seed) {
    return VertexIds.permutation(n, new SplittableRandom(seed * 31 + 7));
  }
}
