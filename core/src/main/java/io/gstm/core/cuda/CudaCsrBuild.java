package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import io.gstm.core.graph.CsrGraph;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;

/**
 * {@link CsrGraph#fromEdges} on the GPU ({@code csr_build.cu}): the edge list goes up through
 * the engine's pinned staging, is sorted by (source, target) with a radix sort on the device,
 * its duplicates merged at the lightest weight and its self-loops dropped, and the CSR comes
 * back: the very arrays the host build makes, in a fraction of its time for large graphs
 * (docs/benchmarks.md). {@link #undirected} builds the symmetric graph in the same pass (every
 * edge in both directions), as {@code fromEdges(...).undirected()} does on the host in two.
 *
 * <p>Takes device memory for about 24 bytes per key (an edge, or two for {@link #undirected}:
 * two key and two position buffers for the sort), 16 per edge for the edges in and their
 * weights, and the result, all freed before it returns; a graph that does not fit throws
 * {@link DeviceOutOfMemoryException} and leaves nothing allocated.
 */
public final class CudaCsrBuild {
  static final String MODULE = "csr_build";
  static final String PACK = "gstm_csr_pack";
  static final String CHECK_WEIGHTS = "gstm_csr_check_weights";
  static final String HISTOGRAM = "gstm_csr_histogram";
  static final String SCAN_TILES = "gstm_csr_scan_tiles";
  static final String SCAN_ADD = "gstm_csr_scan_add";
  static final String SCATTER = "gstm_csr_scatter";
  static final String HEADS = "gstm_csr_heads";
  static final String COMPACT = "gstm_csr_compact";
  static final String OFFSETS = "gstm_csr_offsets";
  static final String MAP_IDS = "gstm_csr_map_ids";
  static final String MARK_IDS = "gstm_csr_mark_ids";
  static final String NUMBER_IDS = "gstm_csr_number_ids";
  static final String DEGREES = "gstm_csr_degrees";
  static final String DEGREE_KEYS = "gstm_csr_degree_keys";
  static final String INVERT = "gstm_csr_invert";
  /** The kernels' symbols, for {@link CudaEngine#kernelSymbols()}. */
  static final List<String> SYMBOLS = List.of(PACK, CHECK_WEIGHTS, HISTOGRAM, SCAN_TILES,
      SCAN_ADD, SCATTER, HEADS, COMPACT, OFFSETS, MAP_IDS, MARK_IDS, NUMBER_IDS, DEGREES,
      DEGREE_KEYS, INVERT);

  /** Threads per block of every kernel, and keys per tile (csr_build.cu's kTile). */
  private static final int THREADS = 256;
  static final int TILE = THREADS * 8;
  private static final int DIGIT_BITS = 8;

  private CudaCsrBuild() {}

  /** A graph built (null when its CSR stayed on the device), and where the build's time went. */
  public record Built(CsrGraph graph, Times times) {
    /** A build that took no device memory. */
    Built(CsrGraph graph, long checkNanos) {
      this(graph, new Times(checkNanos, 0, 0, 0, 0, 0, 0));
    }

    /** The phases in milliseconds, for a log line. */
    public String phases() {
      return times.toString();
    }
  }

  /**
   * Where a build's time went (wall time of each phase, the device synchronized at their ends).
   *
   * @param checkNanos the edge list's checks (its arrays on the host, {@link
   *     CsrGraph#checkEdgeArrays}; its ids and weights on the device, in the sort's time)
   * @param uploadNanos the edges (and weights) to the device
   * @param sortNanos keys packed and radix-sorted
   * @param mergeNanos runs merged, offsets found
   * @param downloadNanos the CSR's arrays back
   * @param graphNanos the arrays made a {@link CsrGraph}
   * @param memoryNanos time in device memory calls, within the phases and after them (the
   *     build's buffers go back to the engine's pool before it returns; a free of a small buffer
   *     waits for the kernels before it)
   */
  public record Times(long checkNanos, long uploadNanos, long sortNanos, long mergeNanos,
      long downloadNanos, long graphNanos, long memoryNanos) {
    @Override
    public String toString() {
      return String.format(java.util.Locale.ROOT,
          "checks %.0f ms, upload %.0f ms, sort %.0f ms, merge %.0f ms, download %.0f ms, "
              + "graph %.0f ms; in device memory calls %.0f ms",
          checkNanos / 1e6, uploadNanos / 1e6, sortNanos / 1e6, mergeNanos / 1e6,
          downloadNanos / 1e6, graphNanos / 1e6, memoryNanos / 1e6);
    }
  }

  /**
   * {@link CsrGraph#fromEdges} on {@code engine}'s GPU, with its checks and the same result.
   *
   * @throws IllegalArgumentException as {@link CsrGraph#fromEdges}
   */
  public static CsrGraph fromEdges(CudaEngine engine, int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull) {
    return build(engine, vertexCount, src, dst, weightsOrNull, false).graph();
  }

  /**
   * {@code CsrGraph.fromEdges(vertexCount, src, dst, w).undirected()} in one build: every edge
   * and its reverse, duplicates merged at the lightest weight, self-loops dropped.
   *
   * @throws IllegalArgumentException as {@link CsrGraph#fromEdges}, or when the edges in both
   *     directions would number more than {@code Integer.MAX_VALUE}
   */
  public static CsrGraph undirected(CudaEngine engine, int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull) {
    return build(engine, vertexCount, src, dst, weightsOrNull, true).graph();
  }

  /**
   * {@link #fromEdges} ({@code undirected} false) or {@link #undirected}, with the time of each
   * phase.
   */
  public static Built build(CudaEngine engine, int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull, boolean undirected) {
    return build(engine, vertexCount, src, dst, weightsOrNull, undirected, false, null)
        .built();
  }

  /**
   * A graph built numbered by degree ({@link #buildByDegree}): the CSR, and the new id of each
   * vertex of the edge list ({@code newIds[v]}).
   */
  public record ByDegree(Built built, int[] newIds) {}

  /**
   * {@link #build} of the same edges with the vertices numbered by degree, highest first, on
   * the device: the graph {@code DegreeOrder.relabel(edges, DegreeOrder.newIds(edges))} builds,
   * without relabelling the edge list on the host (on R-MAT 2^22 with 16 edges a vertex, 1.4 s
   * on one core).
   *
   * @throws IllegalArgumentException as {@link #build}
   */
  public static ByDegree buildByDegree(CudaEngine engine, int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull, boolean undirected) {
    Numbered built = build(engine, vertexCount, src, dst, weightsOrNull, undirected, true, null);
    return new ByDegree(built.built(), built.ids());
  }

  /**
   * {@link #buildByDegree} of the edges with each end {@code v} first mapped to {@code
   * idTable[v]} on the device, as it uploads them: the graph of edges whose ids another
   * numbering gave, without mapping them on the host (R-MAT drawn unscrambled, {@code
   * RmatGenerator.generateUnscrambled}, with its permutation). {@code newIds} are of the mapped
   * ids.
   *
   * @param idTable {@code vertexCount} ids in {@code [0, vertexCount)}
   * @throws IllegalArgumentException as {@link #build}, or naming the table's first entry out
   *     of range
   */
  public static ByDegree buildByDegree(CudaEngine engine, int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull, boolean undirected, int[] idTable) {
    if (idTable == null || idTable.length != vertexCount) {
      throw new IllegalArgumentException("idTable must hold vertexCount (" + vertexCount
          + ") ids, got " + (idTable == null ? "null" : idTable.length));
    }
    for (int v = 0; v < idTable.length; v++) {
      if (idTable[v] < 0 || idTable[v] >= vertexCount) {
        throw new IllegalArgumentException("idTable[" + v + "] = " + idTable[v]
            + " is out of range: vertexCount is " + vertexCount);
      }
    }
    Numbered built = build(engine, vertexCount, src, dst, weightsOrNull, undirected, true,
        idTable);
    return new ByDegree(built.built(), built.ids());
  }

  /**
   * {@link #build}; with {@code byDegree}, numbered so, its ids the new id of each vertex; with
   * an {@code idTable}, the ends mapped through it first (the table checked by the caller).
   */
  private static Numbered build(CudaEngine engine, int vertexCount, int[] src, int[] dst,
      double[] weightsOrNull, boolean undirected, boolean byDegree, int[] idTable) {
    long t0 = System.nanoTime();
    // The ids and weights are checked on the device, on their way into the sort.
    CsrGraph.checkEdgeArrays(vertexCount, src, dst, weightsOrNull);
    if (undirected && 2L * src.length > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("src: " + src.length + " edges are "
          + 2L * src.length + " in both directions, more than a graph holds ("
          + Integer.MAX_VALUE + ")");
    }
    long checks = System.nanoTime() - t0;
    return run(engine, vertexCount, src.length, weightsOrNull != null, undirected, checks,
        idTable, byDegree ? BY_DEGREE : null, (staging, srcIn, dstIn, weightsIn) -> {
          staging.uploadArray(srcIn, 4L * src.length, 4, Pointer.to(src),
              (b, from, count) -> b.asIntBuffer().put(src, from, count));
          staging.uploadArray(dstIn, 4L * dst.length, 4, Pointer.to(dst),
              (b, from, count) -> b.asIntBuffer().put(dst, from, count));
          if (weightsIn != null) {
            staging.uploadArray(weightsIn, 8L * src.length, 8, Pointer.to(weightsOrNull),
                (b, from, count) -> b.asDoubleBuffer().put(weightsOrNull, from, count));
          }
        },
        firstBad -> {
          // The host's checks find the same edge and say what is wrong with it.
          CsrGraph.checkEdges(vertexCount, src, dst, weightsOrNull);
          return new IllegalStateException("the device found a bad edge (first src, dst, "
              + "weight: " + java.util.Arrays.toString(firstBad) + ") that the host's checks "
              + "did not");
        });
  }

  /**
   * Edges {@code [0, size)} of these arrays: one run of a longer sequence of edges ({@link
   * #fromParts}), such as one input partition's.
   *
   * @param weights the edges' weights, or null (for an unweighted build)
   * @param weightSum the sum of the weights {@code [0, size)}, when the caller found it as it
   *     read them (a build that keeps its CSR on the GPU then needs no pass for its mean); NaN
   *     when not known
   */
  public record Part(int[] src, int[] dst, double[] weights, int size, double weightSum) {
    /** A part whose weights' sum is not known (found when needed). */
    public Part(int[] src, int[] dst, double[] weights, int size) {
      this(src, dst, weights, size, Double.NaN);
    }

    public Part {
      if (src == null || dst == null) {
        throw new IllegalArgumentException("src and dst must not be null");
      }
      if (size < 0 || size > src.length || size > dst.length
          || (weights != null && size > weights.length)) {
        throw new IllegalArgumentException("size: " + size + " edges, but the arrays hold "
            + src.length + " sources, " + dst.length + " targets"
            + (weights == null ? "" : " and " + weights.length + " weights"));
      }
    }
  }

  /**
   * The CSR of the edges of {@code parts}, taken in order as one list, each endpoint mapped on
   * the device through {@code idTable} (a caller's id to its vertex in {@code [0,
   * vertexCount)}): what {@link #fromEdges}, or {@link #undirected}, gives for the mapped edges,
   * without an array of them on the host. An id outside the table or mapped outside the
   * vertices, or a negative or NaN weight, throws IllegalArgumentException naming the edge.
   *
   * @param weighted take the parts' weights (each part must have them); false builds an
   *     unweighted graph whatever the parts hold
   */
  public static Built fromParts(CudaEngine engine, int vertexCount, List<Part> parts,
      int[] idTable, boolean weighted, boolean undirected) {
    long t0 = System.nanoTime();
    if (vertexCount < 0) {
      throw new IllegalArgumentException("vertexCount must be non-negative, got " + vertexCount);
    }
    if (idTable == null) {
      throw new IllegalArgumentException("idTable must not be null");
    }
    long m = edgeCount(parts, weighted, undirected);
    int edges = (int) m;
    long checks = System.nanoTime() - t0;
    return run(engine, vertexCount, edges, weighted, undirected, checks, idTable, null,
        uploadParts(parts), firstBad -> badPart(parts, idTable, vertexCount, firstBad)).built();
  }

  /**
   * A graph built by {@link #fromPartsNumbered}: the CSR, the id of each of its vertices
   * (ascending), and, for a build that keeps the CSR on the GPU, its {@link DeviceCsr} (the
   * caller closes it; {@code built.graph()} is then null).
   */
  public record Numbered(Built built, int[] ids, DeviceCsr device) {}

  /**
   * {@link #fromParts} with the numbering found on the device too: the vertices are the ids in
   * {@code [0, idBound)} that some edge ends at or {@code extraIds} lists, numbered in ascending
   * order of id, and each edge's ends are mapped to them there. An id outside {@code [0,
   * idBound)} throws IllegalArgumentException naming it.
   */
  public static Numbered fromPartsNumbered(CudaEngine engine, int idBound, List<Part> parts,
      int[] extraIds, boolean weighted, boolean undirected) {
    return fromPartsNumbered(engine, idBound, parts, extraIds, weighted, undirected, false);
  }

  /**
   * As above; with {@code onDevice} the CSR's targets and weights stay on the GPU: the result's
   * {@link Numbered#device()} holds them (the caller closes it) and its graph is null.
   */
  public static Numbered fromPartsNumbered(CudaEngine engine, int idBound, List<Part> parts,
      int[] extraIds, boolean weighted, boolean undirected, boolean onDevice) {
    long t0 = System.nanoTime();
    if (idBound < 0) {
      throw new IllegalArgumentException("idBound must be non-negative, got " + idBound);
    }
    long m = edgeCount(parts, weighted, undirected);
    long checks = System.nanoTime() - t0;
    int[] extra = extraIds.clone();
    return run(engine, -1, (int) m, weighted, undirected, checks, null,
        new Renumber(idBound, extra, firstBad -> badNumbered(parts, extra, idBound, firstBad)),
        uploadParts(parts), firstBad -> badPart(parts, null, -1, firstBad), onDevice,
        onDevice && weighted ? meanWeight(parts) : 1.0);
  }

  /**
   * The parts' mean weight (a bucket width for the relaxation: the input's duplicates and loops
   * count; 1 when there are no edges or the sum is not positive): from the sums the parts
   * carry, the others summed on all cores.
   */
  private static double meanWeight(List<Part> parts) {
    double sum = parts.parallelStream().mapToDouble(p -> {
      if (!Double.isNaN(p.weightSum())) {
        return p.weightSum();
      }
      double s = 0;
      double[] w = p.weights();
      for (int i = 0; i < p.size(); i++) {
        s += w[i];
      }
      return s;
    }).sum();
    long m = parts.stream().mapToLong(Part::size).sum();
    return m == 0 || !(sum > 0) ? 1.0 : sum / m;
  }

  /** The parts' edge count, checked: a weighted build needs every part's weights. */
  private static long edgeCount(List<Part> parts, boolean weighted, boolean undirected) {
    long m = 0;
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      if (weighted && p.weights() == null) {
        throw new IllegalArgumentException("parts[" + i + "]: no weights for a weighted build");
      }
      m += p.size();
    }
    if ((undirected ? 2 * m : m) > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("parts: " + m + " edges" + (undirected
          ? " are " + 2 * m + " in both directions," : "") + " more than a graph holds ("
          + Integer.MAX_VALUE + ")");
    }
    return m;
  }

  /**
   * The ids the device numbers: those below the bound, and the vertices beyond the edges'; the
   * error for the first id outside the bound (of a source, a target, an extra id).
   */
  private record Renumber(int bound, int[] extraIds, BadEdge badId) {}

  /**
   * The numbering by degree ({@link #buildByDegree}): the vertices stay those of the edge list,
   * renamed in place; a bad id is the pack's to name.
   */
  private static final Renumber BY_DEGREE = new Renumber(-1, new int[0], null);

  /** The error for the first id outside the bound: of a source, a target or an extra id. */
  private static IllegalArgumentException badNumbered(List<Part> parts, int[] extraIds,
      int idBound, int[] firstBad) {
    String range = "outside the ids 0.." + (idBound - 1);
    if (firstBad[0] == -1 && firstBad[1] == -1) {
      int i = firstBad[2];
      return new IllegalArgumentException("extraIds[" + i + "] = " + extraIds[i] + " is "
          + range);
    }
    int which = firstBad[0] != -1 ? 0 : 1;
    PartEdge e = locate(parts, firstBad[which]);
    if (e == null) {
      return new IllegalArgumentException("parts: the device found an id " + range);
    }
    return new IllegalArgumentException(e.where() + ": " + (which == 0
        ? "source " + e.part().src()[e.index()] : "target " + e.part().dst()[e.index()]) + " is "
        + range);
  }

  /** Edge {@code index} of part number {@code partIndex}. */
  private record PartEdge(int partIndex, Part part, int index) {
    String where() {
      return "parts[" + partIndex + "] edge " + index;
    }
  }

  /** Where edge {@code edge} (unsigned) of the parts taken in order lies; null past their end. */
  private static PartEdge locate(List<Part> parts, int edge) {
    long at = Integer.toUnsignedLong(edge);
    for (int i = 0; i < parts.size(); i++) {
      Part p = parts.get(i);
      if (at < p.size()) {
        return new PartEdge(i, p, (int) at);
      }
      at -= p.size();
    }
    return null;
  }

  /** Uploads the parts' edges one after the other. */
  private static Upload uploadParts(List<Part> parts) {
    return (staging, srcIn, dstIn, weightsIn) -> {
      long at = 0;
      for (Part p : parts) {
        int[] ps = p.src();
        int[] pd = p.dst();
        staging.uploadArrayAt(srcIn, 4 * at, 4L * p.size(), 4, Pointer.to(ps),
            (b, from, count) -> b.asIntBuffer().put(ps, from, count));
        staging.uploadArrayAt(dstIn, 4 * at, 4L * p.size(), 4, Pointer.to(pd),
            (b, from, count) -> b.asIntBuffer().put(pd, from, count));
        if (weightsIn != null) {
          double[] pw = p.weights();
          staging.uploadArrayAt(weightsIn, 8 * at, 8L * p.size(), 8, Pointer.to(pw),
              (b, from, count) -> b.asDoubleBuffer().put(pw, from, count));
        }
        at += p.size();
      }
    };
  }

  /** The error for the first bad edge the device found among {@code parts}. */
  private static IllegalArgumentException badPart(List<Part> parts, int[] idTable,
      int vertexCount, int[] firstBad) {
    int which = firstBad[0] != -1 ? 0 : firstBad[1] != -1 ? 1 : 2;
    PartEdge e = locate(parts, firstBad[which]);
    if (e == null) {
      return new IllegalArgumentException("parts: the device found a bad edge at "
          + Integer.toUnsignedLong(firstBad[which]));
    }
    String where = e.where();
    int j = e.index();
    if (which == 2) {
      return new IllegalArgumentException(where + ": weight " + e.part().weights()[j]
          + " (weights must be non-negative numbers)");
    }
    int id = which == 0 ? e.part().src()[j] : e.part().dst()[j];
    String end = which == 0 ? "source" : "target";
    if (idTable == null) {
      return new IllegalArgumentException(where + ": " + end + " " + id
          + " was numbered outside the vertices");
    }
    return new IllegalArgumentException(id < 0 || id >= idTable.length
        ? where + ": " + end + " " + id + " is outside idTable (ids 0.." + (idTable.length - 1)
            + ")"
        : where + ": " + end + " " + id + " maps to " + idTable[id]
            + ", outside the vertices 0.." + (vertexCount - 1));
  }

  /** Puts the edges on the device: sources, targets and (when weighted) weights. */
  @FunctionalInterface
  private interface Upload {
    void into(PinnedStaging staging, DeviceBuffer src, DeviceBuffer dst, DeviceBuffer weights);
  }

  /** The error for a bad edge the device found: the first bad source, target, weight (or -1). */
  @FunctionalInterface
  private interface BadEdge {
    RuntimeException error(int[] firstBad);
  }

  /** Bits of a vertex id in a key: enough for {@code vertexCount - 1}, at least 1. */
  static int idBits(int vertexCount) {
    return Math.max(1, 32 - Integer.numberOfLeadingZeros(Math.max(0, vertexCount - 1)));
  }

  /** Radix passes over keys of {@code 2 * idBits} bits. */
  static int passes(int vertexCount) {
    return (2 * idBits(vertexCount) + DIGIT_BITS - 1) / DIGIT_BITS;
  }

  /**
   * A build of {@code m} edges (twice as many keys when {@code reversed}), their ids mapped
   * through {@code idTable} or numbered on the device ({@code renumber}, n then -1), or neither.
   */
  private static Numbered run(CudaEngine engine, int n, int m, boolean weighted,
      boolean reversed, long checks, int[] idTable, Renumber renumber, Upload upload,
      BadEdge bad) {
    return run(engine, n, m, weighted, reversed, checks, idTable, renumber, upload, bad, false,
        1.0);
  }

  /**
   * As above; with {@code keep} the targets and weights stay on the device ({@link DeviceCsr},
   * {@code meanWeight} its bucket width's mean) and only the offsets come back.
   */
  private static Numbered run(CudaEngine engine, int n, int m, boolean weighted,
      boolean reversed, long checks, int[] idTable, Renumber renumber, Upload upload,
      BadEdge bad, boolean keep, double meanWeight) {
    int keys = reversed ? 2 * m : m;
    if (keys == 0) {
      int[] ids = null;
      if (renumber == BY_DEGREE) {
        // No edges: every degree 0, every vertex keeps its id.
        ids = java.util.stream.IntStream.range(0, n).toArray();
      } else if (renumber != null) {
        // No edges: the vertices are the extra ids alone.
        for (int i = 0; i < renumber.extraIds().length; i++) {
          int id = renumber.extraIds()[i];
          if (id < 0 || id >= renumber.bound()) {
            throw renumber.badId().error(new int[] {-1, -1, i});
          }
        }
        ids = java.util.Arrays.stream(renumber.extraIds()).sorted().distinct().toArray();
        n = ids.length;
      }
      if (keep) {
        return new Numbered(new Built(null, checks), ids, DeviceCsr.empty(engine, n, weighted));
      }
      return new Numbered(new Built(new CsrGraph(n, new int[n + 1], new int[0],
          weighted ? new double[0] : null), checks), ids, null);
    }
    engine.bind();
    List<DeviceBuffer> held = new ArrayList<>();
    try {
      Run r = new Run(engine, n, m, keys, reversed, held);
      Built built = r.build(upload, weighted, idTable, renumber, bad, checks, keep, meanWeight);
      return new Numbered(built, r.ids, r.onDevice);
    } finally {
      engine.bufferPool().giveAll(held); // a build that failed (bad input) leaves them too
    }
  }

  /** One build's device buffers and launches. */
  private static final class Run {
    private final CudaEngine engine;
    /** The vertices: given, or found by the numbering. */
    private int n;
    private final int m;
    private final int keys;
    private final boolean reversed;
    private int shift;
    private final List<DeviceBuffer> held;
    private final int grid;
    /**
     * The numbering's ids of the vertices, ascending; numbered by degree, the new id of each
     * vertex (null without a numbering).
     */
    private int[] ids;
    /** The CSR left on the device by a build that keeps it; else null. */
    private DeviceCsr onDevice;

    Run(CudaEngine engine, int n, int m, int keys, boolean reversed, List<DeviceBuffer> held) {
      this.engine = engine;
      this.n = n;
      this.m = m;
      this.keys = keys;
      this.reversed = reversed;
      this.shift = idBits(n);
      this.held = held;
      this.grid = engine.multiprocessors() * 8;
    }

    /** Time spent taking and giving back device memory. */
    private long memoryNanos;

    /**
     * A buffer of at least {@code bytes} from the engine's pool (the next build of the same
     * size takes it again): the kernels are given sizes and counts, never its own size.
     */
    private DeviceBuffer take(long bytes) {
      long t0 = System.nanoTime();
      DeviceBuffer b = engine.bufferPool().take(bytes);
      held.add(b);
      memoryNanos += System.nanoTime() - t0;
      return b;
    }

    /** Gives back the buffers the build still holds (its result's are no longer among them). */
    private void freeHeld() {
      long t0 = System.nanoTime();
      List<DeviceBuffer> all = new ArrayList<>(held);
      held.clear();
      engine.bufferPool().giveAll(all);
      memoryNanos += System.nanoTime() - t0;
    }

    /** Waits for the device; the nanoseconds since {@code from}. */
    private static long since(long from) {
      CudaErrors.call("cuCtxSynchronize", JCudaDriver::cuCtxSynchronize);
      return System.nanoTime() - from;
    }

    Built build(Upload edges, boolean weighted, int[] idTable, Renumber renumber,
        BadEdge onBad, long checks, boolean keep, double meanWeight) {
      long t0 = System.nanoTime();
      PinnedStaging staging = engine.staging();
      DeviceBuffer keysA = take(8L * keys);
      DeviceBuffer keysB = take(8L * keys);
      DeviceBuffer posA = take(4L * keys);
      DeviceBuffer posB = take(4L * keys);
      // The edges in, where the sort's second key buffer will be: packed before it is used.
      DeviceBuffer srcIn = take(4L * m);
      DeviceBuffer dstIn = take(4L * m);
      DeviceBuffer weightsIn = weighted ? take(8L * m) : null;
      edges.into(staging, srcIn, dstIn, weightsIn);
      if (idTable != null) {
        DeviceBuffer table = take(4L * Math.max(1, idTable.length));
        staging.uploadArray(table, 4L * idTable.length, 4, Pointer.to(idTable),
            (b, from, count) -> b.asIntBuffer().put(idTable, from, count));
        launch(MAP_IDS, grid, srcIn, m, table, idTable.length);
        launch(MAP_IDS, grid, dstIn, m, table, idTable.length);
        close(table);
      }
      if (renumber == BY_DEGREE) {
        numberByDegree(srcIn, dstIn);
      } else if (renumber != null) {
        number(srcIn, dstIn, renumber);
      }
      long upload = since(t0);
      t0 = System.nanoTime();
      DeviceBuffer bad = badWords();
      launch(PACK, grid, srcIn, dstIn, m, n, shift, reversed ? 1 : 0, keysA, posA, bad);
      if (weightsIn != null) {
        launch(CHECK_WEIGHTS, grid, weightsIn, m, bad);
      }
      throwIfBad(bad, onBad);
      close(srcIn);
      close(dstIn);

      DeviceBuffer[] sortKeys = {keysA, keysB};
      DeviceBuffer[] sortPositions = {posA, posB};
      radixSort(sortKeys, sortPositions, keys, passes(n) * DIGIT_BITS);
      keysA = sortKeys[0];
      posA = sortPositions[0];
      posB = sortPositions[1];
      close(sortKeys[1]);
      long sort = since(t0);
      t0 = System.nanoTime();

      // Runs of equal keys: their first, unless a self-loop, is an edge of the CSR.
      DeviceBuffer flags = posB; // free after the last pass
      launch(HEADS, grid, keysA, keys, shift, flags);
      DeviceBuffer at = take(4L * keys);
      int kept = exclusiveSums(flags, at, keys);
      DeviceBuffer sources = take(4L * kept);
      DeviceBuffer targets = take(4L * kept);
      DeviceBuffer weightsOut = weightsIn == null ? null : take(8L * kept);
      launch(COMPACT, grid, keysA, posA, flags, at, keys, shift, weightsIn, sources, targets,
          weightsOut);
      DeviceBuffer offsets = take(4L * (n + 1));
      launch(OFFSETS, grid, sources, kept, n, offsets);
      long merge = since(t0);
      t0 = System.nanoTime();

      int[] off = new int[n + 1];
      staging.downloadArray(offsets, 4L * (n + 1), 4, Pointer.to(off),
          (b, from, count) -> b.asIntBuffer().get(off, from, count));
      if (keep) {
        // The targets and weights are the device CSR's now, not this build's to free.
        held.remove(targets);
        held.remove(weightsOut);
        onDevice = new DeviceCsr(engine, off, kept, targets, weightsOut, weighted, meanWeight);
        long download = System.nanoTime() - t0;
        freeHeld();
        return new Built(null, new Times(checks, upload, sort, merge, download, 0,
            memoryNanos));
      }
      int[] tgt = new int[kept];
      double[] wt = weightsIn == null ? null : new double[kept];
      staging.downloadArray(targets, 4L * kept, 4, Pointer.to(tgt),
          (b, from, count) -> b.asIntBuffer().get(tgt, from, count));
      if (wt != null) {
        staging.downloadArray(weightsOut, 8L * kept, 8, Pointer.to(wt),
            (b, from, count) -> b.asDoubleBuffer().get(wt, from, count));
      }
      long download = System.nanoTime() - t0;
      freeHeld();
      t0 = System.nanoTime();
      // Built from edges the device checked: the arrays are not checked again.
      CsrGraph graph = CsrGraph.ofBuiltArrays(n, off, tgt, wt);
      return new Built(graph, new Times(checks, upload, sort, merge, download,
          System.nanoTime() - t0, memoryNanos));
    }

    /**
     * Numbers the ids the edges end at and the extra ids, ascending, on the device: each marked
     * present, the marks scanned (an id's sum is its vertex), the edges' ends mapped through the
     * sums; sets {@link #n}, {@link #shift} and {@link #ids}.
     */
    private void number(DeviceBuffer srcIn, DeviceBuffer dstIn, Renumber r) {
      int bound = r.bound();
      int[] extra = r.extraIds();
      DeviceBuffer present = take(4L * Math.max(1, bound));
      present.zero();
      DeviceBuffer bad = badWords();
      launch(MARK_IDS, grid, srcIn, m, present, bound, bad, 0);
      launch(MARK_IDS, grid, dstIn, m, present, bound, bad, 1);
      if (extra.length > 0) {
        DeviceBuffer extraIn = take(4L * extra.length);
        extraIn.upload(Pointer.to(extra), 4L * extra.length);
        launch(MARK_IDS, grid, extraIn, extra.length, present, bound, bad, 2);
        close(extraIn);
      }
      throwIfBad(bad, r.badId());
      DeviceBuffer at = take(4L * Math.max(1, bound));
      int count = exclusiveSums(present, at, bound);
      DeviceBuffer idsOut = take(4L * Math.max(1, count));
      launch(NUMBER_IDS, grid, present, at, bound, idsOut);
      close(present);
      launch(MAP_IDS, grid, srcIn, m, at, bound);
      launch(MAP_IDS, grid, dstIn, m, at, bound);
      close(at);
      int[] out = new int[count];
      engine.staging().downloadArray(idsOut, 4L * count, 4, Pointer.to(out),
          (b, from, c) -> b.asIntBuffer().get(out, from, c));
      close(idsOut);
      ids = out;
      n = count;
      shift = idBits(count);
    }

    /**
     * Renames the edges' ends by degree (out plus in), highest first, equal degrees in order of
     * id, as {@code DegreeOrder.newIds} does: the degrees counted, the vertices sorted by them
     * with the build's radix passes, each given its place; sets {@link #ids} to the new id of
     * each vertex.
     */
    private void numberByDegree(DeviceBuffer srcIn, DeviceBuffer dstIn) {
      if (n == 0) {
        ids = new int[0];  // every edge's ends are bad ids: the pack names the first
        return;
      }
      DeviceBuffer degree = take(4L * n);
      degree.zero();
      launch(DEGREES, grid, srcIn, m, n, degree);
      launch(DEGREES, grid, dstIn, m, n, degree);
      DeviceBuffer[] keys = {take(8L * n), take(8L * n)};
      DeviceBuffer[] order = {take(4L * n), take(4L * n)};
      launch(DEGREE_KEYS, grid, degree, n, keys[0], order[0]);
      close(degree);
      radixSort(keys, order, n, Integer.SIZE);
      close(keys[0]);
      close(keys[1]);
      close(order[1]);
      DeviceBuffer newIds = take(4L * n);
      launch(INVERT, grid, order[0], n, newIds);
      close(order[0]);
      launch(MAP_IDS, grid, srcIn, m, newIds, n);
      launch(MAP_IDS, grid, dstIn, m, newIds, n);
      int[] out = new int[n];
      engine.staging().downloadArray(newIds, 4L * n, 4, Pointer.to(out),
          (b, from, c) -> b.asIntBuffer().get(out, from, c));
      close(newIds);
      ids = out;
    }

    /**
     * Sorts the first {@code count} keys of {@code keys[0]} by their low {@code bits} bits, and
     * the positions of {@code positions[0]} with them: stable, a pass an 8-bit digit, each
     * pass from the first buffer of each pair into the second, which then change places; the
     * sorted keys and positions end first in their pairs.
     */
    private void radixSort(DeviceBuffer[] keys, DeviceBuffer[] positions, int count, int bits) {
      int tiles = (count + TILE - 1) / TILE;
      DeviceBuffer counts = take(4L * tiles * THREADS);
      for (int bit = 0; bit < bits; bit += DIGIT_BITS) {
        launch(HISTOGRAM, tiles, keys[0], count, bit, tiles, counts);
        scan(counts, tiles * THREADS);
        launch(SCATTER, tiles, keys[0], positions[0], count, bit, tiles, counts, keys[1],
            positions[1]);
        swap(keys);
        swap(positions);
      }
      close(counts);
    }

    private static void swap(DeviceBuffer[] pair) {
      DeviceBuffer t = pair[0];
      pair[0] = pair[1];
      pair[1] = t;
    }

    /** Three words for the kernels' first bad source, target and weight (or id), all ones. */
    private DeviceBuffer badWords() {
      DeviceBuffer bad = take(12);
      bad.fill32(-1, 3);
      return bad;
    }

    /** Throws {@code onBad}'s error if a kernel noted a bad edge in {@code bad}; frees it. */
    private void throwIfBad(DeviceBuffer bad, BadEdge onBad) {
      int[] firstBad = new int[3];
      bad.download(Pointer.to(firstBad), 12);
      close(bad);
      if (firstBad[0] != -1 || firstBad[1] != -1 || firstBad[2] != -1) {
        throw onBad.error(firstBad);
      }
    }

    /**
     * The exclusive sums of the first {@code count} (at least 1) 0/1 words of {@code flags} into
     * {@code at} (as large); their total.
     */
    private int exclusiveSums(DeviceBuffer flags, DeviceBuffer at, int count) {
      flags.copyTo(at, 4L * count);
      scan(at, count);
      int[] lastFlag = new int[1];
      int[] lastAt = new int[1];
      flags.downloadAtByte(4L * (count - 1), Pointer.to(lastFlag), 4);
      at.downloadAtByte(4L * (count - 1), Pointer.to(lastAt), 4);
      return lastAt[0] + lastFlag[0];
    }

    /** Exclusive sums of the first {@code count} words of {@code data}, in place. */
    private void scan(DeviceBuffer data, int count) {
      int tiles = (count + TILE - 1) / TILE;
      DeviceBuffer sums = take(4L * tiles);
      launch(SCAN_TILES, tiles, data, count, sums);
      if (tiles > 1) {
        scan(sums, tiles);
        launch(SCAN_ADD, tiles, data, count, sums);
      }
      close(sums);
    }

    private void close(DeviceBuffer b) {
      long t0 = System.nanoTime();
      held.remove(b);
      engine.bufferPool().give(b);
      memoryNanos += System.nanoTime() - t0;
    }

    /** Launches {@code symbol} on {@code blocks} blocks; buffers (or null) and ints as its args. */
    private void launch(String symbol, int blocks, Object... args) {
      Pointer[] params = new Pointer[args.length];
      for (int i = 0; i < args.length; i++) {
        Object a = args[i];
        if (a instanceof DeviceBuffer b) {
          params[i] = Pointer.to(b.pointer());
        } else if (a == null) {
          params[i] = Pointer.to(new long[] {0});
        } else {
          params[i] = Pointer.to(new int[] {(Integer) a});
        }
      }
      CUfunction f = engine.function(MODULE, symbol);
      CudaErrors.call("launch " + symbol, () -> cuLaunchKernel(f, Math.max(1, blocks), 1, 1,
          THREADS, 1, 1, 0, null, Pointer.to(params), null));
    }
  }
}
