package io.gstm.spark.graph;

import io.gstm.core.graph.CsrGraph;
import java.io.Serializable;
import java.util.Arrays;

/**
 * One partition's subgraph: the vertices it owns (local ids {@code [0, owned)}, sorted by global
 * id), the ghosts its edges reach in other partitions (local ids {@code [owned, size)}, sorted),
 * and the CSR of its owned vertices' out-edges in local ids. Cached across supersteps.
 */
final class LocalGraph implements Serializable {
  private static final long serialVersionUID = 1L;

  final int partition;
  final int partitions;
  final int[] globalIds;
  final int owned;
  final int[] offsets;
  final int[] targets;
  final double[] weights;

  private LocalGraph(int partition, int partitions, int[] globalIds, int owned, CsrGraph csr) {
    this.partition = partition;
    this.partitions = partitions;
    this.globalIds = globalIds;
    this.owned = owned;
    this.offsets = csr.offsets();
    this.targets = csr.targets();
    this.weights = csr.weights();
  }

  int size() {
    return globalIds.length;
  }

  int edgeCount() {
    return targets.length;
  }

  CsrGraph csr() {
    return new CsrGraph(globalIds.length, offsets, targets, weights);
  }

  /** The local id of an owned global id, or -1. */
  int ownedLocal(int globalId) {
    int i = Arrays.binarySearch(globalIds, 0, owned, globalId);
    return i >= 0 ? i : -1;
  }

  /**
   * Builds partition {@code p}'s subgraph from the edges whose source it owns and the extra vertex
   * ids it owns (edge targets, isolated vertices, the source). Self-loops are dropped and of
   * duplicate edges the lightest is kept (by {@link CsrGraph#fromEdges}).
   */
  static LocalGraph build(int p, int partitions, EdgeChunk all) {
    int m = all.size();
    int maxId = -1;
    for (int i = 0; i < m; i++) {
      maxId = Math.max(maxId, Math.max(all.src[i], all.dst[i]));
    }
    for (int i = 0; i < all.vertexCount(); i++) {
      maxId = Math.max(maxId, all.vertices[i]);
    }
    // Dense ids (the usual case): one table lookup per endpoint instead of sorting and searching.
    long limit = 4L * (m + all.vertexCount()) + (1 << 20);
    if (maxId + 1L <= limit) {
      return buildDense(p, partitions, all, maxId);
    }
    int[] ownedIds = new int[m + all.vertexCount()];
    int n = 0;
    for (int i = 0; i < m; i++) {
      ownedIds[n++] = all.src[i];
    }
    for (int i = 0; i < all.vertexCount(); i++) {
      ownedIds[n++] = all.vertices[i];
    }
    int[] owned = sortedUnique(ownedIds, n);
    int[] ghostIds = new int[m];
    int g = 0;
    for (int i = 0; i < m; i++) {
      int d = all.dst[i];
      if (Partitioning.owner(d, partitions) != p) {
        ghostIds[g++] = d;
      }
    }
    int[] ghosts = sortedUnique(ghostIds, g);
    int[] globalIds = Arrays.copyOf(owned, owned.length + ghosts.length);
    System.arraycopy(ghosts, 0, globalIds, owned.length, ghosts.length);
    int[] lsrc = new int[m];
    int[] ldst = new int[m];
    for (int i = 0; i < m; i++) {
      lsrc[i] = Arrays.binarySearch(owned, all.src[i]);
      int d = all.dst[i];
      ldst[i] = Partitioning.owner(d, partitions) == p
          ? Arrays.binarySearch(owned, d)
          : owned.length + Arrays.binarySearch(ghosts, d);
    }
    CsrGraph csr = CsrGraph.fromEdges(globalIds.length, lsrc, ldst, all.weights());
    return new LocalGraph(p, partitions, globalIds, owned.length, csr);
  }

  private static final int OWNED = -2;
  private static final int GHOST = -3;

  private static LocalGraph buildDense(int p, int partitions, EdgeChunk all, int maxId) {
    int m = all.size();
    int[] local = new int[maxId + 1];
    for (int i = 0; i < m; i++) {
      local[all.src[i]] = OWNED;
    }
    for (int i = 0; i < all.vertexCount(); i++) {
      local[all.vertices[i]] = OWNED;
    }
    for (int i = 0; i < m; i++) {
      int d = all.dst[i];
      if (local[d] == 0) {
        local[d] = Partitioning.owner(d, partitions) == p ? OWNED : GHOST;
      }
    }
    int owned = 0;
    int ghosts = 0;
    for (int v = 0; v <= maxId; v++) {
      if (local[v] == OWNED) {
        owned++;
      } else if (local[v] == GHOST) {
        ghosts++;
      }
    }
    int[] globalIds = new int[owned + ghosts];
    int o = 0;
    int g = owned;
    for (int v = 0; v <= maxId; v++) {
      if (local[v] == OWNED) {
        globalIds[o] = v;
        local[v] = o++;
      } else if (local[v] == GHOST) {
        globalIds[g] = v;
        local[v] = g++;
      }
    }
    int[] lsrc = new int[m];
    int[] ldst = new int[m];
    for (int i = 0; i < m; i++) {
      lsrc[i] = local[all.src[i]];
      ldst[i] = local[all.dst[i]];
    }
    CsrGraph csr = csrByCounting(globalIds.length, lsrc, ldst, all.weights());
    return new LocalGraph(p, partitions, globalIds, owned, csr);
  }

  /**
   * The graph {@link CsrGraph#fromEdges} builds from these edges (ids in {@code [0, n)}), by two
   * stable counting sorts (by target, then by source) instead of a comparison sort of every
   * adjacency: self-loops dropped, of duplicate edges the lightest kept (the first in input
   * order among equal weights, as there).
   */
  static CsrGraph csrByCounting(int n, int[] src, int[] dst, double[] w) {
    int m = src.length;
    int[] byDst = new int[n + 1];
    int[] offsets = new int[n + 1];
    int kept = 0;
    for (int i = 0; i < m; i++) {
      if (src[i] != dst[i]) {
        byDst[dst[i] + 1]++;
        offsets[src[i] + 1]++;
        kept++;
      }
    }
    for (int v = 0; v < n; v++) {
      byDst[v + 1] += byDst[v];
      offsets[v + 1] += offsets[v];
    }
    int[] order = new int[kept];
    for (int i = 0; i < m; i++) {
      if (src[i] != dst[i]) {
        order[byDst[dst[i]]++] = i;
      }
    }
    int[] fill = Arrays.copyOf(offsets, n);
    int[] bySrc = new int[kept];
    for (int j = 0; j < kept; j++) {
      int i = order[j];
      bySrc[fill[src[i]]++] = i;
    }
    int[] outOffsets = new int[n + 1];
    int[] targets = new int[kept];
    double[] weights = w == null ? null : new double[kept];
    int out = 0;
    for (int v = 0; v < n; v++) {
      for (int j = offsets[v]; j < offsets[v + 1]; j++) {
        int i = bySrc[j];
        int t = dst[i];
        if (out > outOffsets[v] && targets[out - 1] == t) {
          if (weights != null && w[i] < weights[out - 1]) {
            weights[out - 1] = w[i];
          }
          continue;
        }
        targets[out] = t;
        if (weights != null) {
          weights[out] = w[i];
        }
        out++;
      }
      outOffsets[v + 1] = out;
    }
    return new CsrGraph(n, outOffsets, Arrays.copyOf(targets, out),
        weights == null ? null : Arrays.copyOf(weights, out));
  }

  private static int[] sortedUnique(int[] a, int n) {
    int[] s = Arrays.copyOf(a, n);
    Arrays.sort(s);
    int m = 0;
    for (int i = 0; i < s.length; i++) {
      if (m == 0 || s[i] != s[m - 1]) {
        s[m++] = s[i];
      }
    }
    return Arrays.copyOf(s, m);
  }
}
