package io.gstm.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.core.graph.RelaxationVerifier;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The peers' files byte for byte (ECL's CSR, the Galois .gr of version 1 with its padding),
 * their answers read back (ADDS's distances, ECL-CC's labels, components compared as splits),
 * and export-graph and check-peer end to end on a small grid: an answer equal to the
 * reference passes, one wrong vertex fails naming it.
 */
class PeerFormatsTest {
  @TempDir Path dir;

  /** 0 -> 1 (w 3), 0 -> 2 (w 5), 2 -> 1 (w 7): three edges, an odd count. */
  private static CsrGraph small() {
    return new CsrGraph(3, new int[] {0, 2, 2, 3}, new int[] {1, 2, 1}, new double[] {3, 5, 7});
  }

  private static ByteBuffer bytes(Path file) throws IOException {
    return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
  }

  @Test
  void eclIsCountsIndexListAndWeights() throws IOException {
    Path f = dir.resolve("g.egr");
    PeerFormats.writeEcl(small(), true, f);
    ByteBuffer b = bytes(f);
    int[] words = new int[b.remaining() / 4];
    b.asIntBuffer().get(words);
    assertThat(words).containsExactly(3, 3, 0, 2, 2, 3, 1, 2, 1, 3, 5, 7);
    PeerFormats.writeEcl(small(), false, f);
    assertThat(Files.size(f)).isEqualTo(4L * 9);
  }

  @Test
  void grIsTheGaloisVersionOneLayout() throws IOException {
    Path f = dir.resolve("g.gr");
    PeerFormats.writeGr(small(), true, f);
    ByteBuffer b = bytes(f);
    assertThat(new long[] {b.getLong(), b.getLong(), b.getLong(), b.getLong()})
        .containsExactly(1, 4, 3, 3);
    assertThat(new long[] {b.getLong(), b.getLong(), b.getLong()}).containsExactly(2, 2, 3);
    assertThat(new int[] {b.getInt(), b.getInt(), b.getInt()}).containsExactly(1, 2, 1);
    assertThat(b.getInt()).as("padding to 8 bytes after an odd edge count").isZero();
    assertThat(new float[] {b.getFloat(), b.getFloat(), b.getFloat()})
        .containsExactly(3f, 5f, 7f);
    assertThat(b.remaining()).isZero();
    PeerFormats.writeGr(small(), false, f);
    assertThat(Files.size(f)).isEqualTo(32 + 3 * 8 + 4 * 4);
  }

  @Test
  void weightsMustBeWholeAndEclNeedsAVertex() {
    CsrGraph half = new CsrGraph(2, new int[] {0, 1, 1}, new int[] {1}, new double[] {1.5});
    assertThatThrownBy(() -> PeerFormats.writeGr(half, true, dir.resolve("h.gr")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("edge 0 weighs 1.5");
    CsrGraph none = new CsrGraph(0, new int[] {0}, new int[0], null);
    assertThatThrownBy(() -> PeerFormats.writeEcl(none, false, dir.resolve("n.egr")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one vertex");
  }

  @Test
  void answersReadBack() throws IOException {
    Path adds = dir.resolve("adds.txt");
    Files.writeString(adds, "0 0.000000\n2 12.000000\n1 INF\n");
    assertThat(PeerFormats.readAddsDistances(adds, 3))
        .containsExactly(0, Double.POSITIVE_INFINITY, 12);
    assertThatThrownBy(() -> PeerFormats.readAddsDistances(adds, 4))
        .hasMessageContaining("no line for vertex 3");
    Files.writeString(adds, "0 zero\n");
    assertThatThrownBy(() -> PeerFormats.readAddsDistances(adds, 1))
        .hasMessageContaining("line 1").hasMessageContaining("0 zero");

    Path ecl = dir.resolve("labels.bin");
    Files.write(ecl, ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(0).putInt(0)
        .putInt(2).array());
    assertThat(PeerFormats.readEclLabels(ecl, 3)).containsExactly(0, 0, 2);
    assertThatThrownBy(() -> PeerFormats.readEclLabels(ecl, 4))
        .hasMessageContaining("holds 12 bytes, expected 4 per vertex (16)");
  }

  @Test
  void componentsCompareAsSplits() {
    double[] reference = {0, 0, 2, 2, 4};
    assertThat(PeerFormats.firstSplitDifference(new int[] {7, 7, 1, 1, 9}, reference))
        .isEqualTo(-1);
    // Two components merged, or one split.
    assertThat(PeerFormats.firstSplitDifference(new int[] {7, 7, 7, 7, 9}, reference))
        .isEqualTo(2);
    assertThat(PeerFormats.firstSplitDifference(new int[] {7, 8, 1, 1, 9}, reference))
        .isEqualTo(1);
  }

  @Test
  void exportAndCheckEndToEnd() throws IOException {
    Path gr = dir.resolve("grid.gr");
    String out = CliRun.run(0, "export-graph", "--graph", "grid", "--scale", "6", "--format",
        "gr", "--out", gr.toString());
    assertThat(out).contains("source: 0").contains("64 vertices");
    PeerGraph.Options options = new PeerGraph.Options();
    options.graph = new GraphOptions(6, -1, 1);
    options.graph.graph = "grid";
    options.graph.kind = "sssp";
    PeerGraph p = options.build();
    double[] exact = RelaxationVerifier.expected(p.graph(), RelaxationKind.SHORTEST_PATHS,
        p.initialValues());
    Path answer = dir.resolve("adds.txt");
    Files.writeString(answer, IntStream.range(0, exact.length)
        .mapToObj(v -> v + " " + (Double.isInfinite(exact[v]) ? "INF"
            : String.format(Locale.ROOT, "%f", exact[v])))
        .collect(Collectors.joining("\n")));
    assertThat(CliRun.run(0, "check-peer", "--graph", "grid", "--scale", "6", "--peer", "adds",
        "--values", answer.toString())).contains("adds: OK: 64 vertices");
    Files.writeString(answer, Files.readString(answer).replaceFirst("\n5 [0-9.]+", "\n5 1.0"));
    assertThat(CliRun.run(1, "check-peer", "--graph", "grid", "--scale", "6", "--peer", "adds",
        "--values", answer.toString())).contains("MISMATCH").contains("vertex 5");

    Path egr = dir.resolve("grid.egr");
    CliRun.run(0, "export-graph", "--graph", "grid", "--scale", "6", "--kind", "cc",
        "--format", "ecl", "--out", egr.toString());
    ByteBuffer labels = ByteBuffer.allocate(4 * 64).order(ByteOrder.LITTLE_ENDIAN);
    for (int v = 0; v < 64; v++) {
      labels.putInt(0); // a grid is one component
    }
    Path ecl = dir.resolve("labels.bin");
    Files.write(ecl, labels.array());
    assertThat(CliRun.run(0, "check-peer", "--graph", "grid", "--scale", "6", "--kind", "cc",
        "--peer", "ecl", "--values", ecl.toString())).contains("ecl: OK: 64 vertices");
    assertThat(CliRun.run(2, "check-peer", "--graph", "grid", "--scale", "6", "--peer", "ecl",
        "--values", ecl.toString())).contains("ECL-CC computes components");
  }
}
