package io.gstm.cli;

import io.gstm.core.graph.CsrGraph;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Graphs and answers in the file formats of the GPU codes gstm is measured against
 * ({@code scripts/peers}): ECL's binary CSR (ECL-CC reads it), the Galois binary graph of
 * version 1 (ADDS reads it), ADDS's text output of distances and the component labels the
 * staged ECL-CC writes. Little-endian throughout, as both read on x86.
 */
final class PeerFormats {
  private PeerFormats() {}

  /** Elements per buffer flush: files of hundreds of MB go out in pieces of 4 MB. */
  private static final int CHUNK_INTS = 1 << 20;

  /**
   * ECL's graph: int32 node and edge counts, the node index (nodes + 1 offsets), the neighbour
   * list and, with {@code weights}, an int32 weight per edge (the graph's weights must be whole
   * numbers, as gstm's generators draw them).
   */
  static void writeEcl(CsrGraph g, boolean weights, Path out) throws IOException {
    if (g.vertexCount() < 1) {
      throw new IllegalArgumentException("--out: ECL graphs need at least one vertex");
    }
    try (FileChannel ch = open(out)) {
      ints(ch, new int[] {g.vertexCount(), g.edgeCount()});
      ints(ch, g.offsets());
      ints(ch, g.targets());
      if (weights) {
        ints(ch, wholeWeights(g));
      }
    }
  }

  /**
   * The Galois binary graph, version 1: uint64 version, edge data size (4 with weights, else 0),
   * node and edge counts; each node's end offset as a uint64; the targets as uint32, padded to 8
   * bytes; with weights, a float32 per edge (exact: whole numbers below 2^24).
   */
  static void writeGr(CsrGraph g, boolean weights, Path out) throws IOException {
    try (FileChannel ch = open(out)) {
      int n = g.vertexCount();
      int m = g.edgeCount();
      ByteBuffer head = le(32 + 8L * n);
      head.putLong(1).putLong(weights ? 4 : 0).putLong(n).putLong(m);
      for (int v = 0; v < n; v++) {
        head.putLong(g.offsets()[v + 1]);
      }
      write(ch, head.flip());
      ints(ch, g.targets());
      if (m % 2 == 1) {
        ints(ch, new int[] {0});
      }
      if (weights) {
        int[] w = wholeWeights(g);
        ByteBuffer b = le(4L * Math.min(m, CHUNK_INTS));
        for (int from = 0; from < m; from += CHUNK_INTS) {
          b.clear();
          for (int e = from, end = Math.min(m, from + CHUNK_INTS); e < end; e++) {
            b.putFloat(w[e]);
          }
          write(ch, b.flip());
        }
      }
    }
  }

  /** Each weight as an int, checked whole and below 2^24 (exact as a float32 too). */
  private static int[] wholeWeights(CsrGraph g) {
    int m = g.edgeCount();
    int[] w = new int[m];
    for (int e = 0; e < m; e++) {
      double x = g.weight(e);
      if (x != Math.rint(x) || x >= 1 << 24) {
        throw new IllegalArgumentException("--format: edge " + e + " weighs " + x
            + "; the peers' files hold whole weights below 2^24");
      }
      w[e] = (int) x;
    }
    return w;
  }

  /**
   * ADDS's answer ({@code -o file}): a line "vertex distance" or "vertex INF" per vertex, the
   * distances as float32 printed with {@code %f}.
   */
  static double[] readAddsDistances(Path file, int n) throws IOException {
    double[] d = new double[n];
    boolean[] seen = new boolean[n];
    try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
      String line;
      int lineNo = 0;
      while ((line = r.readLine()) != null) {
        lineNo++;
        if (line.isBlank()) {
          continue;
        }
        String[] f = line.trim().split("\\s+");
        int v;
        try {
          v = Integer.parseInt(f[0]);
          d[v] = f[1].equals("INF") ? Double.POSITIVE_INFINITY : Double.parseDouble(f[1]);
        } catch (RuntimeException e) {
          throw new IllegalArgumentException("--values: line " + lineNo + " of " + file
              + " is not 'vertex distance': " + line);
        }
        seen[v] = true;
      }
    }
    for (int v = 0; v < n; v++) {
      if (!seen[v]) {
        throw new IllegalArgumentException("--values: " + file + " has no line for vertex " + v);
      }
    }
    return d;
  }

  /** The labels the staged ECL-CC writes: an int32 per vertex. */
  static int[] readEclLabels(Path file, int n) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    if (bytes.length != 4L * n) {
      throw new IllegalArgumentException("--values: " + file + " holds " + bytes.length
          + " bytes, expected 4 per vertex (" + 4L * n + ")");
    }
    int[] labels = new int[n];
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(labels);
    return labels;
  }

  /**
   * Where two labellings of the vertices split them differently (-1: they make the same
   * components, whatever each calls them).
   */
  static int firstSplitDifference(int[] labels, double[] reference) {
    int n = labels.length;
    // Each label's reference component, and each reference component's label, both one-to-one.
    Map<Integer, Double> toRef = new HashMap<>();
    Map<Double, Integer> fromRef = new HashMap<>();
    for (int v = 0; v < n; v++) {
      Double r = toRef.putIfAbsent(labels[v], reference[v]);
      Integer l = fromRef.putIfAbsent(reference[v], labels[v]);
      if ((r != null && !r.equals(reference[v])) || (l != null && l != labels[v])) {
        return v;
      }
    }
    return -1;
  }

  private static FileChannel open(Path out) throws IOException {
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    return FileChannel.open(out, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING);
  }

  private static ByteBuffer le(long bytes) {
    return ByteBuffer.allocate(Math.toIntExact(bytes)).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static void ints(FileChannel ch, int[] values) throws IOException {
    ByteBuffer b = le(4L * Math.max(1, Math.min(values.length, CHUNK_INTS)));
    for (int from = 0; from < values.length; from += CHUNK_INTS) {
      int count = Math.min(CHUNK_INTS, values.length - from);
      b.clear();
      b.asIntBuffer().put(values, from, count);
      write(ch, b.limit(4 * count));
    }
  }

  /** Writes {@code b} from its position to its limit. */
  private static void write(FileChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b);
    }
  }

}
