package io.gstm.cli;

import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm check-peer}: a peer's answer on {@code export-graph}'s graph against the
 * reference (Dijkstra, union-find), vertex by vertex; status 1 when it differs.
 */
@Command(name = "check-peer", mixinStandardHelpOptions = true,
    description = "Checks a peer's answer on export-graph's graph (same options) against "
        + "Dijkstra's or union-find's: distances vertex by vertex, components as the same "
        + "split of the vertices. Status 1 when it differs.")
final class CheckPeerCommand implements Callable<Integer> {
  @Mixin PeerGraph.Options input = new PeerGraph.Options();

  @Option(names = "--peer", required = true,
      description = "adds (its -o file: 'vertex distance' lines) or ecl (the staged ECL-CC's "
          + "labels: an int32 per vertex).")
  String peer;

  @Option(names = "--values", required = true, description = "The peer's answer file.")
  Path values;

  @Override
  public Integer call() throws Exception {
    String who = Checks.oneOf("--peer", "peer", peer.toLowerCase(Locale.ROOT), "adds", "ecl");
    PeerGraph p = input.build();
    int n = p.graph().vertexCount();
    double[] expected = RelaxationVerifier.expected(p.graph(), p.kind(), p.initialValues());
    if (who.equals("adds")) {
      if (p.kind() != RelaxationKind.SHORTEST_PATHS) {
        throw new IllegalArgumentException("--peer adds: ADDS computes shortest paths (--kind "
            + "sssp)");
      }
      RelaxationVerifier.Report r = RelaxationVerifier.compare(expected,
          PeerFormats.readAddsDistances(values, n));
      System.out.println("adds: " + r);
      return r.ok() ? 0 : 1;
    }
    if (p.kind() != RelaxationKind.CONNECTED_COMPONENTS) {
      throw new IllegalArgumentException("--peer ecl: ECL-CC computes components (--kind cc)");
    }
    int bad = PeerFormats.firstSplitDifference(PeerFormats.readEclLabels(values, n), expected);
    System.out.println(bad < 0 ? "ecl: OK: " + n + " vertices in the reference's components"
        : "ecl: MISMATCH: vertex " + bad + " is not in its reference component's label");
    return bad < 0 ? 0 : 1;
  }
}
