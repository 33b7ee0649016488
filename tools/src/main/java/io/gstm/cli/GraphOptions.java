package io.gstm.cli;

import io.gstm.core.graph.EdgeList;
import io.gstm.core.graph.GridGenerator;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RmatGenerator;
import java.util.Locale;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The generated graph and the relaxation run on it: R-MAT, a weighted grid or a road-like grid,
 * shortest paths or components (public: {@code gstm-spark relax} shares it with
 * {@code gstm bench-graph}, so that both jobs relax the same graphs).
 */
public final class GraphOptions {
  @Option(names = "--graph", defaultValue = "rmat", description = "rmat, grid (a square "
      + "weighted grid of 2^scale cells, row-major ids) or road (the grid less 10%% of its "
      + "streets, plus 2^(scale-10) shortcuts). Default ${DEFAULT-VALUE}.")
  String graph;

  @Option(names = "--scale", description = "log2 of the vertex count. Default ${DEFAULT-VALUE}.")
  int scale;

  @Option(names = "--edges",
      description = "R-MAT edges; -1: 16 per vertex. Default ${DEFAULT-VALUE}.")
  int edges;

  @Option(names = "--shuffle", description = "Shuffle the generated edges' order (the input "
      + "then says nothing about which edges are near each other).")
  boolean shuffle;

  @Option(names = "--kind", defaultValue = "sssp",
      description = "sssp (weighted shortest paths) or cc (components). Default ${DEFAULT-VALUE}.")
  String kind;

  @Mixin SeedOption seed;

  /** The command's defaults, shown in its help. */
  public GraphOptions(int scale, int edges, long seed) {
    this.scale = scale;
    this.edges = edges;
    this.seed = new SeedOption(seed);
  }

  /** The relaxation of {@code --kind}; an unknown one is an error naming the option. */
  public RelaxationKind kind() {
    return Checks.oneOf("--kind", "relaxation", kind.toLowerCase(Locale.ROOT), "sssp", "cc")
        .equals("sssp") ? RelaxationKind.SHORTEST_PATHS : RelaxationKind.CONNECTED_COMPONENTS;
  }

  /** {@code --graph}, checked. */
  private String graph() {
    return Checks.oneOf("--graph", "graph", graph.toLowerCase(Locale.ROOT), "rmat", "grid",
        "road");
  }

  public boolean isRmat() {
    return graph().equals("rmat");
  }

  public boolean shuffled() {
    return shuffle;
  }

  public long seed() {
    return seed.seed();
  }

  /** R-MAT's edge count: {@code --edges}, or 16 a vertex. */
  public int rmatEdgeCount() {
    return edges >= 0 ? edges : 16 << scale;
  }

  /**
   * The R-MAT graph of {@link #edges} before its ids are scrambled, and the permutation that
   * scrambles them ({@link RmatGenerator#generateUnscrambled}; shuffled as {@code edges}
   * shuffles), for a build that maps them on the GPU.
   *
   * @throws IllegalStateException when {@code --graph} is not rmat
   */
  public RmatGenerator.Unscrambled rmatUnscrambled(boolean unweighted) {
    if (!isRmat()) {
      throw new IllegalStateException("--graph " + graph + " is not rmat");
    }
    RmatGenerator.Unscrambled u = RmatGenerator.generateUnscrambled(scale, rmatEdgeCount(),
        seed(), !unweighted);
    return shuffle ? new RmatGenerator.Unscrambled(GridGenerator.shuffled(u.edges(), seed() + 1),
        u.perm()) : u;
  }

  /** The graph of {@code --graph}: R-MAT weighted or not, a grid always weighted. */
  public EdgeList generate(boolean weightedRmat) {
    long s = seed();
    EdgeList g = switch (graph()) {
      case "rmat" -> RmatGenerator.generate(scale, rmatEdgeCount(), s, weightedRmat);
      case "grid" -> GridGenerator.square(1 << scale, s);
      default -> {
        int side = (int) Math.ceil(Math.sqrt(1 << scale));
        yield GridGenerator.roadLike(side, side, s, 0.1, 1 << Math.max(0, scale - 10));
      }
    };
    return shuffle ? GridGenerator.shuffled(g, s + 1) : g;
  }

  /** The graph of {@code --graph}, every weight 1 when {@code unweighted} (grids included). */
  public EdgeList edges(boolean unweighted) {
    EdgeList g = generate(!unweighted);
    return unweighted && g.weights() != null
        ? new EdgeList(g.vertexCount(), g.src(), g.dst(), null) : g;
  }

  /** E.g. "R-MAT scale 18", "a weighted grid of about 2^20 cells". */
  public String describe() {
    return switch (graph()) {
      case "rmat" -> "R-MAT scale " + scale;
      case "grid" -> "a weighted grid of about 2^" + scale + " cells";
      default -> "a road-like grid of about 2^" + scale + " cells";
    };
  }
}
