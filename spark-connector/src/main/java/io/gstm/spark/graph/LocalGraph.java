package io.gstm.spark.graph;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.DegreeOrder;
import io.gstm.core.graph.VertexIds;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.IntConsumer;
import org.roaringbitmap.PeekableIntIterator;
import org.roaringbitmap.RoaringBitmap;

/**
 * One partition's subgraph (a vertex cut): the edges of one slice of the input, kept where they
 * were read, and every vertex they touch. A vertex that edges of several partitions touch is
 * replicated in each of them ({@link Replicas} says where). Local ids {@code [0, size)} go by
 * degree, highest first, ties by global id ({@link DegreeOrder}: hub values stay cached), or by
 * global id ({@code spark.gstm.graph.vertexOrder}). The CSR holds the local out-edges in local
 * ids (for components, every edge in both directions). Cached across supersteps.
 */
// Kryo (spark.serializer) would skip the edges on the GPU: it serializes this class as Java does.
@DefaultSerializer(JavaSerializer.class)
final class LocalGraph implements Serializable {
  private static final long serialVersionUID = 4L;

  final int partition;
  final int partitions;
  /** Global id of each local vertex (local ids by degree, not ascending global ids). */
  final int[] globalIds;
  /** The global ids ascending, and the local id of each: the lookup of {@link #local}. */
  private final int[] sortedIds;
  private final int[] sortedLocal;
  final int[] offsets;
  /**
   * The targets and weights; null while they are only on the GPU that built them ({@link
   * #onDevice}), until something asks for them on the host ({@link #csr}, a copy).
   */
  private int[] targets;
  private double[] weights;
  private final int edges;
  /** The checked CSR these arrays came from; rebuilt (and checked again) after a copy. */
  private transient CsrGraph csr;
  /**
   * Reads the edges back from the GPU that built them (from the relaxer that holds them there);
   * null when they are on the host.
   */
  private transient Supplier<CsrGraph> onDevice;
  /** {@link Replicas#needMasks} of this subgraph, found once per cached copy. */
  private transient int[] needMasks;
  /** {@link #localTable}, found once per cached copy. */
  private transient int[] localTable;

  private LocalGraph(int partition, int partitions, int[] globalIds, int[] sortedIds,
      int[] sortedLocal, CsrGraph csr) {
    this.partition = partition;
    this.partitions = partitions;
    this.globalIds = globalIds;
    this.sortedIds = sortedIds;
    this.sortedLocal = sortedLocal;
    this.offsets = csr.offsets();
    this.targets = csr.targets();
    this.weights = csr.weights();
    this.edges = targets.length;
    this.csr = csr;
  }

  /**
   * A subgraph whose edges stayed on the GPU that built them: {@code offsets} on the host,
   * {@code edges} edges, read back by {@code onDevice} only when the host needs them.
   */
  LocalGraph(int partition, int partitions, Numbering ids, int[] offsets, int edges,
      Supplier<CsrGraph> onDevice) {
    this.partition = partition;
    this.partitions = partitions;
    this.globalIds = ids.globalIds;
    this.sortedIds = ids.sortedIds;
    this.sortedLocal = ids.sortedLocal;
    this.offsets = offsets;
    this.edges = edges;
    this.onDevice = onDevice;
  }

  LocalGraph(int partition, int partitions, Numbering ids, CsrGraph csr) {
    this(partition, partitions, ids.globalIds, ids.sortedIds, ids.sortedLocal, csr);
  }

  int size() {
    return globalIds.length;
  }

  int edgeCount() {
    return edges;
  }

  /** The targets on the host (read back first when they are only on the GPU). */
  int[] targets() {
    csr();
    return targets;
  }

  /** The weights on the host, or null (read back first when they are only on the GPU). */
  double[] weights() {
    csr();
    return weights;
  }

  /** Whether the edges are only on the GPU that built them (so far). */
  boolean edgesOnDevice() {
    return targets == null;
  }

  /** The CSR on the host (read back from the GPU first when the edges are only there). */
  CsrGraph csr() {
    if (csr == null && targets == null) {
      CsrGraph back;
      try {
        back = onDevice.get();
      } catch (RuntimeException e) {
        throw new IllegalStateException("subgraph " + partition + ": its edges were kept on "
            + "the GPU that built them and cannot be read back there (" + e.getMessage() + ")",
            e);
      }
      targets = back.targets();
      weights = back.weights();
      csr = back;
    } else if (csr == null) {
      csr = new CsrGraph(globalIds.length, offsets, targets, weights);
    }
    return csr;
  }

  /** A copy (a cache block spilled or sent to another executor) carries the edges. */
  private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
    csr();
    out.defaultWriteObject();
  }

  /** The local id of a global id, or -1 if this subgraph does not hold it. */
  int local(int globalId) {
    int i = Arrays.binarySearch(sortedIds, globalId);
    return i >= 0 ? sortedLocal[i] : -1;
  }

  /**
   * The local id of each global id up to the largest held, -1 for those not held, when that
   * span is at most {@link #DENSE_SPAN} times the vertices (a direct lookup for the boundary
   * updates of every superstep: a binary search over millions of ids costs a cache miss per
   * level); else null. Built once per cached copy.
   */
  int[] localTable() {
    if (localTable == null && sortedIds.length > 0) {
      long span = (long) sortedIds[sortedIds.length - 1] + 1;
      if (span <= (long) DENSE_SPAN * sortedIds.length && span <= Integer.MAX_VALUE - 8) {
        int[] t = new int[(int) span];
        Arrays.fill(t, -1);
        for (int i = 0; i < sortedIds.length; i++) {
          t[sortedIds[i]] = sortedLocal[i];
        }
        localTable = t;
      }
    }
    return localTable;
  }

  /** Largest id span, in vertices held, that {@link #localTable} covers directly. */
  static final int DENSE_SPAN = 4;

  /**
   * Calls {@code action} with the local id of each global id of {@code ids} (all held here), in
   * one walk along the sorted ids.
   */
  void forEachLocal(RoaringBitmap ids, IntConsumer action) {
    int i = 0;
    PeekableIntIterator it = ids.getIntIterator();
    while (it.hasNext()) {
      int v = it.next();
      while (i < sortedIds.length && sortedIds[i] < v) {
        i++;
      }
      if (i == sortedIds.length || sortedIds[i] != v) {
        throw new IllegalStateException("partition " + partition + " does not hold vertex " + v);
      }
      action.accept(sortedLocal[i]);
    }
  }

  /** {@code replicas.needMasks(this)}, kept with this copy of the subgraph (one run's). */
  int[] needMasks(Replicas replicas) {
    if (needMasks == null) {
      needMasks = replicas.needMasks(this);
    }
    return needMasks;
  }

  /** The global ids this subgraph holds, ascending (this graph's own array: do not modify). */
  int[] sortedGlobalIds() {
    return sortedIds;
  }

  /**
   * Builds partition {@code p}'s subgraph from its edges and extra vertex ids (isolated vertices,
   * the source); {@code undirected} adds every edge in both directions. Self-loops are dropped
   * and of duplicate edges the lightest is kept (see {@link #csrBySource}).
   */
  static LocalGraph build(int p, int partitions, EdgeChunk all, boolean undirected) {
    return build(p, partitions, all, undirected, true);
  }

  /**
   * As {@link #build(int, int, EdgeChunk, boolean, boolean)} over the chunks as consecutive runs
   * of one edge sequence (chunk order is input order), without first copying them into one. A
   * large subgraph (on GPU executors the only task of its stage) is built on the common
   * fork-join pool ({@link ParallelBuild}), to exactly the arrays of the sequential build. The
   * chunks, at least one, are all weighted or none.
   */
  static LocalGraph build(int p, int partitions, List<EdgeChunk> chunks, boolean undirected,
      boolean byDegree) {
    return build(p, partitions, chunks, undirected, byDegree, ParallelBuild.MIN_EDGES,
        ParallelBuild.PIECE_EDGES);
  }

  /** As above, built in parallel from {@code parallelEdges} edges, in pieces of so many. */
  static LocalGraph build(int p, int partitions, List<EdgeChunk> chunks, boolean undirected,
      boolean byDegree, int parallelEdges, int pieceEdges) {
    return build(p, partitions, chunks, undirected, byDegree, parallelEdges, pieceEdges,
        ParallelBuild.ON_HOST);
  }

  /** As above, a parallel build's CSR by {@code device} where it builds one. */
  static LocalGraph build(int p, int partitions, List<EdgeChunk> chunks, boolean undirected,
      boolean byDegree, int parallelEdges, int pieceEdges, ParallelBuild.CsrBuilder device) {
    if (chunks.isEmpty()) {
      throw new IllegalArgumentException("no edge chunks");
    }
    boolean weighted = chunks.get(0).w != null;
    long m = 0;
    for (EdgeChunk c : chunks) {
      m += c.size();
    }
    if (m >= parallelEdges) {
      LocalGraph g = ParallelBuild.build(p, partitions, chunks, weighted, undirected, byDegree,
          pieceEdges, device);
      if (g != null) {
        return g;
      }
    }
    EdgeChunk all = chunks.size() == 1 ? chunks.get(0) : EdgeChunk.concat(chunks, weighted);
    return build(p, partitions, all, undirected, byDegree);
  }

  /**
   * As {@link #build(int, int, EdgeChunk, boolean)}; {@code byDegree} false numbers the vertices
   * by ascending global id instead of by degree.
   */
  static LocalGraph build(int p, int partitions, EdgeChunk all, boolean undirected,
      boolean byDegree) {
    int m = all.size();
    int extra = all.vertexCount();
    int maxId = all.maxId(); // found as the chunk was read
    int n;
    int[] globalIds;
    int[] sortedIds;
    int[] sortedLocal;
    int[] lsrc = new int[undirected ? 2 * m : m];
    int[] ldst = new int[lsrc.length];
    // Local ids by degree, highest first, ties by global id (DegreeOrder's numbering).
    long limit = 4L * (m + extra) + (1 << 20);
    if (maxId + 1L <= limit) {
      // Dense ids (the usual case): a table over the global ids counts the degrees and then
      // maps every endpoint, one lookup each, without sorting or searching.
      int[] table = new int[maxId + 1];
      for (int i = 0; i < m; i++) {
        table[all.src[i]]++;
        table[all.dst[i]]++;
      }
      for (int i = 0; i < extra; i++) {
        if (table[all.vertices[i]] == 0) {
          table[all.vertices[i]] = -1; // present, degree 0
        }
      }
      Numbering ids = numberDense(table, byDegree);
      n = ids.globalIds.length;
      globalIds = ids.globalIds;
      sortedIds = ids.sortedIds;
      sortedLocal = ids.sortedLocal;
      for (int i = 0; i < m; i++) {
        lsrc[i] = table[all.src[i]];
        ldst[i] = table[all.dst[i]];
      }
    } else {
      int[] ids = new int[2 * m + extra];
      System.arraycopy(all.src, 0, ids, 0, m);
      System.arraycopy(all.dst, 0, ids, m, m);
      System.arraycopy(all.vertices, 0, ids, 2 * m, extra);
      sortedIds = VertexIds.sortDistinct(ids); // ids is ours to sort
      n = sortedIds.length;
      int[] degree = new int[n];
      for (int i = 0; i < m; i++) {
        lsrc[i] = Arrays.binarySearch(sortedIds, all.src[i]);
        ldst[i] = Arrays.binarySearch(sortedIds, all.dst[i]);
        degree[lsrc[i]]++;
        degree[ldst[i]]++;
      }
      if (!byDegree) {
        Arrays.fill(degree, 0); // equal degrees: the numbering keeps the ascending ids
      }
      sortedLocal = DegreeOrder.newIds(degree);
      globalIds = new int[n];
      for (int v = 0; v < n; v++) {
        globalIds[sortedLocal[v]] = sortedIds[v];
      }
      for (int i = 0; i < m; i++) {
        lsrc[i] = sortedLocal[lsrc[i]];
        ldst[i] = sortedLocal[ldst[i]];
      }
    }
    // The chunk's own weights (csrBySource reads the first m, or 2m for an undirected copy): no
    // trimmed copy of a 16 MB array per 2 M-edge partition.
    double[] w = all.w;
    if (undirected) {
      System.arraycopy(lsrc, 0, ldst, m, m);
      System.arraycopy(ldst, 0, lsrc, m, m);
      if (w != null) {
        w = Arrays.copyOf(w, 2 * m);
        System.arraycopy(w, 0, w, m, m);
      }
    }
    CsrGraph csr = csrBySource(n, lsrc, ldst, w);
    return new LocalGraph(p, partitions, globalIds, sortedIds, sortedLocal, csr);
  }

  /** The numbering of a subgraph's vertices: {@link #globalIds}, {@link #sortedIds}, {@link
   * #sortedLocal}. */
  record Numbering(int[] globalIds, int[] sortedIds, int[] sortedLocal) {}

  /**
   * Numbers the vertices of a dense id table ({@code table[v]} the degree of global id {@code v},
   * -1 for a vertex of degree 0, 0 for an absent one) by degree, highest first, ties by global id
   * ({@link DegreeOrder}'s numbering), or by global id when not {@code byDegree}; leaves each
   * present vertex's local id in the table.
   */
  static Numbering numberDense(int[] table, boolean byDegree) {
    int n = 0;
    int maxDegree = 0;
    for (int v = 0; v < table.length; v++) {
      if (table[v] != 0) {
        n++;
        maxDegree = Math.max(maxDegree, table[v]);
      }
    }
    if (!byDegree) {
      maxDegree = 0; // one bucket: ascending global ids
    }
    int[] start = new int[maxDegree + 2];
    for (int v = 0; v < table.length; v++) {
      if (table[v] != 0) {
        start[maxDegree - Math.min(maxDegree, Math.max(0, table[v])) + 1]++;
      }
    }
    for (int d = 0; d <= maxDegree; d++) {
      start[d + 1] += start[d];
    }
    int[] globalIds = new int[n];
    int[] sortedIds = new int[n];
    int[] sortedLocal = new int[n];
    int k = 0;
    for (int v = 0; v < table.length; v++) {
      if (table[v] != 0) {
        int id = start[maxDegree - Math.min(maxDegree, Math.max(0, table[v]))]++;
        globalIds[id] = v;
        sortedIds[k] = v;
        sortedLocal[k++] = id;
        table[v] = id;
      }
    }
    return new Numbering(globalIds, sortedIds, sortedLocal);
  }

  /**
   * The CSR form of these edges (ids in {@code [0, n)}) by one stable counting sort by source:
   * self-loops dropped; of duplicate edges the lightest kept (the first in input order among
   * equal weights), as {@link CsrGraph#fromEdges} does, but each vertex's out-edges stay in input
   * order instead of being sorted by target. Reads the edges once in order; a vertex's
   * duplicates are found with a table of the last source that reached each target.
   */
  static CsrGraph csrBySource(int n, int[] src, int[] dst, double[] w) {
    int m = src.length;
    int[] offsets = CsrGraph.offsetsBySource(n, src, dst);
    int kept = offsets[n];
    int[] fill = Arrays.copyOf(offsets, n);
    int[] targets = new int[kept];
    double[] weights = w == null ? null : new double[kept];
    for (int i = 0; i < m; i++) {
      int s = src[i];
      if (s != dst[i]) {
        int at = fill[s]++;
        targets[at] = dst[i];
        if (weights != null) {
          weights[at] = w[i];
        }
      }
    }
    // Compact in place: a target already seen from this source keeps the smaller weight.
    int[] lastSource = fill; // reused: n entries
    Arrays.fill(lastSource, -1);
    int[] slot = new int[n];
    int out = 0;
    int begin = 0;
    for (int v = 0; v < n; v++) {
      int end = offsets[v + 1];
      offsets[v] = out;
      for (int j = begin; j < end; j++) {
        int t = targets[j];
        if (lastSource[t] == v) {
          if (weights != null && weights[j] < weights[slot[t]]) {
            weights[slot[t]] = weights[j];
          }
          continue;
        }
        lastSource[t] = v;
        slot[t] = out;
        targets[out] = t;
        if (weights != null) {
          weights[out] = weights[j];
        }
        out++;
      }
      begin = end;
    }
    offsets[n] = out;
    if (out < kept) {
      targets = Arrays.copyOf(targets, out);
      weights = weights == null ? null : Arrays.copyOf(weights, out);
    }
    return new CsrGraph(n, offsets, targets, weights);
  }
}
