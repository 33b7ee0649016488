package io.gstm.cli;

import io.gstm.core.graph.RelaxationKind;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gstm export-graph}: {@code bench-graph}'s graph in a peer's file format, for
 * {@code scripts/peers} (ECL-CC reads ECL's CSR, ADDS the Galois .gr).
 */
@Command(name = "export-graph", mixinStandardHelpOptions = true,
    description = "Writes bench-graph's graph (same options, same edges, the generator's ids; "
        + "components: the undirected graph) in a peer's format for scripts/peers, and prints "
        + "its source vertex.")
final class ExportGraphCommand implements Callable<Integer> {
  @Mixin PeerGraph.Options input = new PeerGraph.Options();

  @Option(names = "--format", required = true,
      description = "ecl (ECL's binary CSR, as ECL-CC reads it) or gr (the Galois binary graph, "
          + "version 1, float weights, as ADDS reads it).")
  String format;

  @Option(names = "--out", required = true, description = "The file to write.")
  Path out;

  @Override
  public Integer call() throws Exception {
    String f = Checks.oneOf("--format", "format", format.toLowerCase(Locale.ROOT), "ecl", "gr");
    PeerGraph p = input.build();
    // Components need no weights (ECL-CC reads none); shortest paths carry theirs.
    boolean weights = p.kind() == RelaxationKind.SHORTEST_PATHS && p.graph().weights() != null;
    if (f.equals("ecl")) {
      PeerFormats.writeEcl(p.graph(), weights, out);
    } else {
      PeerFormats.writeGr(p.graph(), weights, out);
    }
    System.out.printf("graph: %s, %s, %,d vertices, %,d edges%s, written to %s (%s)%n",
        input.graph.describe(), p.kind(), p.graph().vertexCount(), p.graph().edgeCount(),
        weights ? ", weighted" : "", out, f);
    System.out.println("source: " + p.source());
    return 0;
  }
}
