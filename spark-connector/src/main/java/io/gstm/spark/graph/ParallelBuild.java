package io.gstm.spark.graph;

import io.gstm.core.graph.CsrGraph;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LocalGraph#build(int, int, EdgeChunk, boolean, boolean)}'s dense-id path on the common
 * fork-join pool, over a list of chunks read in place: on a GPU executor the whole graph is one
 * subgraph, one task, and its single-threaded build took most of a shortest-paths run while the
 * other cores idled (issue 16). Every phase gives exactly the sequential build's arrays: the
 * same numbering ({@link LocalGraph#numberDense}), the CSR by {@link ParallelCsr}.
 */
final class ParallelBuild {
  private static final Logger LOG = LoggerFactory.getLogger(ParallelBuild.class);
  private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);

  /** Edges from which a subgraph is built in parallel; below, the sequential build is fast. */
  static final int MIN_EDGES = 1 << 20;
  /** Edges per unit of parallel work. */
  static final int PIECE_EDGES = 1 << 16;

  private ParallelBuild() {}

  /**
   * Builds a subgraph's CSR from its chunks, their ids mapped through {@code table}, or returns
   * null to leave it to the host's {@link ParallelCsr} ({@link DeviceCsrBuild}: on the GPU).
   */
  @FunctionalInterface
  interface CsrBuilder {
    CsrGraph build(int vertexCount, int[] table, List<EdgeChunk> chunks, boolean weighted,
        boolean undirected);

    /**
     * The CSR with the numbering too, the vertices in ascending order of global id (ids below
     * {@code idBound}); null to leave both to the host.
     */
    default Numbered buildNumbered(int idBound, List<EdgeChunk> chunks, boolean weighted,
        boolean undirected) {
      return null;
    }
  }

  /**
   * A CSR and the global id of each of its vertices, ascending; the CSR on the host, or (csr
   * null) its edges left on the GPU ({@code onDevice}).
   */
  record Numbered(CsrGraph csr, int[] globalIds, OnDevice onDevice) {}

  /** A CSR whose edges stayed on the GPU: its offsets, its edge count, how to read it back. */
  record OnDevice(int[] offsets, int edges, java.util.function.Supplier<CsrGraph> download) {}

  /** Every CSR on the host. */
  static final CsrBuilder ON_HOST = (n, table, chunks, weighted, undirected) -> null;

  /**
   * A run of edges {@code [from, to)} of one chunk, whose edge 0 is edge {@code base} of the
   * whole sequence: the unit of parallel work.
   */
  record Piece(EdgeChunk chunk, int from, int to, int base) {}

  /**
   * The subgraph of these chunks, or null when their ids are sparse (far beyond the edge count:
   * the sequential build sorts them instead of a table over them).
   */
  static LocalGraph build(int p, int partitions, List<EdgeChunk> chunks, boolean weighted,
      boolean undirected, boolean byDegree, int pieceEdges) {
    return build(p, partitions, chunks, weighted, undirected, byDegree, pieceEdges, ON_HOST);
  }

  /** As above, the CSR by {@code device} unless it returns null. */
  static LocalGraph build(int p, int partitions, List<EdgeChunk> chunks, boolean weighted,
      boolean undirected, boolean byDegree, int pieceEdges, CsrBuilder device) {
    long t0 = System.nanoTime();
    Piece[] pieces = pieces(chunks, pieceEdges);
    int m = pieces.length == 0 ? 0 : pieces[pieces.length - 1].base
        + pieces[pieces.length - 1].to;
    long extra = 0;
    for (EdgeChunk c : chunks) {
      extra += c.vertexCount();
    }
    // Each chunk found its largest id as it was read: no pass over the edges here.
    int maxId = -1;
    for (EdgeChunk c : chunks) {
      maxId = Math.max(maxId, c.maxId());
    }
    if (maxId + 1L > 4L * (m + extra) + (1 << 20)) {
      return null; // the sequential build's bound: beyond it, sorting beats a table
    }
    if (!byDegree) {
      // Numbered by global id: the device may find the numbering as well as the CSR.
      Numbered built = device.buildNumbered(maxId + 1, chunks, weighted, undirected);
      if (built != null) {
        int[] globalIds = built.globalIds();
        int[] sortedLocal = new int[globalIds.length];
        java.util.Arrays.parallelSetAll(sortedLocal, i -> i);
        LOG.debug("gstm relaxation: subgraph {}: ids and csr on the GPU {} ms", p,
            ms(System.nanoTime() - t0));
        LocalGraph.Numbering numbering = new LocalGraph.Numbering(globalIds, globalIds.clone(),
            sortedLocal);
        OnDevice d = built.onDevice();
        return d != null
            ? new LocalGraph(p, partitions, numbering, d.offsets(), d.edges(), d.download())
            : new LocalGraph(p, partitions, numbering, built.csr());
      }
    }
    int[] table = new int[maxId + 1];
    IntStream.range(0, pieces.length).parallel().forEach(k -> mark(pieces[k], table, byDegree));
    for (EdgeChunk c : chunks) {
      for (int i = 0; i < c.vertexCount(); i++) {
        if (table[c.vertices[i]] == 0) {
          table[c.vertices[i]] = -1; // present, degree 0
        }
      }
    }
    LocalGraph.Numbering ids = byDegree
        ? LocalGraph.numberDense(table, true) : numberAscending(table);
    long t1 = System.nanoTime();
    // The table now maps global ids to local ones: the CSR build maps the endpoints as it reads
    // them, with no arrays of the edges in local ids.
    int n = ids.globalIds().length;
    CsrGraph csr = device.build(n, table, chunks, weighted, undirected);
    String where = csr == null ? "" : " on the GPU";
    if (csr == null) {
      csr = ParallelCsr.build(n, table, pieces, undirected, weighted);
    }
    long t2 = System.nanoTime();
    LOG.debug("gstm relaxation: subgraph {} in parallel: ids {} ms, csr{} {} ms", p,
        ms(t1 - t0), where, ms(t2 - t1));
    return new LocalGraph(p, partitions, ids, csr);
  }

  /** Nanoseconds as milliseconds to a tenth, for the debug log. */
  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
  }

  /** The chunks' edges cut into pieces of at most {@code pieceEdges}, in input order. */
  static Piece[] pieces(List<EdgeChunk> chunks, int pieceEdges) {
    List<Piece> out = new ArrayList<>();
    long base = 0;
    for (EdgeChunk c : chunks) {
      for (long from = 0; from < c.size(); from += pieceEdges) {
        out.add(new Piece(c, (int) from, (int) Math.min(c.size(), from + pieceEdges),
            Math.toIntExact(base)));
      }
      base += c.size();
    }
    Math.toIntExact(base); // the edges are indexed by int, as in one chunk
    return out.toArray(new Piece[0]);
  }

  /**
   * Counts each endpoint's degree in the table (atomically: pieces share vertices), or, when the
   * numbering ignores degrees, only marks it present: racing writes of the same 1 are benign.
   */
  private static void mark(Piece piece, int[] table, boolean byDegree) {
    int[] src = piece.chunk.src;
    int[] dst = piece.chunk.dst;
    if (byDegree) {
      for (int i = piece.from; i < piece.to; i++) {
        INTS.getAndAdd(table, src[i], 1);
        INTS.getAndAdd(table, dst[i], 1);
      }
    } else {
      // Read before writing: a hub's entry is marked once, not claimed by every core's writes
      // of the same 1 (its cache line passed from core to core at every edge of the hub).
      for (int i = piece.from; i < piece.to; i++) {
        if (table[src[i]] == 0) {
          table[src[i]] = 1;
        }
        if (table[dst[i]] == 0) {
          table[dst[i]] = 1;
        }
      }
    }
  }

  /**
   * {@link LocalGraph#numberDense}'s numbering when not by degree (local ids are the ranks of
   * the present global ids), by blocks of the table: counted, summed, then numbered in parallel.
   */
  static LocalGraph.Numbering numberAscending(int[] table) {
    int block = 1 << 16;
    int blocks = (int) ((table.length + (long) block - 1) / block);
    int[] first = new int[blocks + 1];
    IntStream.range(0, blocks).parallel().forEach(b -> {
      int count = 0;
      int end = (int) Math.min(table.length, (long) b * block + block);
      for (int v = b * block; v < end; v++) {
        count += table[v] != 0 ? 1 : 0;
      }
      first[b + 1] = count;
    });
    for (int b = 0; b < blocks; b++) {
      first[b + 1] += first[b];
    }
    int n = first[blocks];
    int[] globalIds = new int[n];
    int[] sortedIds = new int[n];
    int[] sortedLocal = new int[n];
    IntStream.range(0, blocks).parallel().forEach(b -> {
      int k = first[b];
      int end = (int) Math.min(table.length, (long) b * block + block);
      for (int v = b * block; v < end; v++) {
        if (table[v] != 0) {
          globalIds[k] = v;
          sortedIds[k] = v;
          sortedLocal[k] = k;
          table[v] = k++;
        }
      }
    });
    return new LocalGraph.Numbering(globalIds, sortedIds, sortedLocal);
  }
}
