package io.gstm.core.jvm;

import io.gstm.core.batch.TxCounts;
import io.gstm.core.graph.RoundStats;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.graph.GraphRelaxWorkload;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Graph relaxation on the JVM engine's workers, the twin of the CUDA engine's
 * {@code CudaGraphRelax}: one call relaxes to the fixpoint without building a {@code TxBatch},
 * snapshotting the store or copying the values out.
 *
 * <p><b>Order.</b> Work stays near Dijkstra's: each worker scans the vertex of smallest value
 * it knows of next (a heap per worker; for components the lowest label, which then floods its
 * component before any higher label moves); an entry whose vertex has since dropped below its
 * key is skipped (the lower value has its own entry). With several workers the values are also
 * cut into buckets of width {@link #bucketWidth} (delta-stepping): a phase relaxes one bucket, the
 * workers taking its vertices smallest first, and an improvement that falls beyond the bucket
 * waits for a later phase, so no worker runs far ahead of the others along a path that a lower
 * value will overwrite. With one worker (the Spark connector's default) there is one bucket,
 * and the order is Dijkstra's. (The earlier label-correcting rounds, a whole frontier per
 * round, scanned tens of times the edges of a weighted grid.)
 *
 * <p><b>Transactions.</b> A plain read of the values first drops the out-edges of the scanned
 * vertex that cannot improve their target (values only decrease); the rest, in chunks of up to
 * {@value #CHUNK}, are each one PR-STM transaction ({@link JvmPrStmTx}: the source's value and
 * every kept target in the read set, improved targets written). A target that a committed
 * transaction lowered goes to the committing worker's heap (or a later bucket); the source of
 * a chunk abandoned after the retry limit goes to the next phase.
 *
 * <p>The edges live in plain arrays (read-only, shared by the workers, as a transaction reads
 * them with {@code readShared}); only the values region of the store is transactional. The
 * store stays owned by the caller. Not thread-safe: one run at a time.
 */
public final class JvmGraphRelax {
  private static final int CAPACITY = GraphRelaxWorkload.CAPACITY;
  /** Improving edges per transaction at most: the capacity less the entry of the source. */
  private static final int CHUNK = GraphRelaxWorkload.CHUNK;
  /** Phase vertices a worker moves into its heap at a time. */
  private static final int GRAB = 64;
  /**
   * Bucket width with several workers, in mean edge weights: wide enough that a phase keeps
   * every worker busy, narrow enough that little of what they do is overwritten.
   */
  static final double BUCKET_EDGES = 8;

  private final JvmEngine engine;
  private final JvmTxStore store;
  private final int valuesRegion;
  private final int[] offsets;
  private final int[] targets;
  private final double[] weights;
  private final int vertexCount;
  /** Per vertex: the phase that last took it (dedupes a phase's vertices). */
  private final int[] taken;
  private int phase;
  /** The mean edge weight, computed on first use (-1 before). */
  private double meanWeight = -1;

  /**
   * Relaxation over a CSR graph ({@code offsets}, {@code targets}, {@code weights} or null)
   * whose vertex values are FLOAT64 region {@code valuesRegion} of {@code store}, a store of the
   * JVM engine. The arrays are shared, not copied.
   */
  public JvmGraphRelax(TxStore store, int valuesRegion, int[] offsets, int[] targets,
      double[] weights) {
    if (!(store instanceof JvmTxStore s)) {
      throw new IllegalArgumentException("store: not a PR-STM store of the JVM engine");
    }
    s.layout().checkRegion(valuesRegion, RegionType.FLOAT64, "valuesRegion");
    this.vertexCount = offsets.length - 1;
    if (s.layout().region(valuesRegion).length() < vertexCount) {
      throw new IllegalArgumentException("valuesRegion: holds "
          + s.layout().region(valuesRegion).length() + " values for " + vertexCount + " vertices");
    }
    if (weights != null && weights.length != targets.length) {
      throw new IllegalArgumentException("weights: expected one per edge (" + targets.length
          + "), got " + weights.length);
    }
    this.store = s;
    this.engine = s.engine();
    this.valuesRegion = valuesRegion;
    this.offsets = offsets;
    this.targets = targets;
    this.weights = weights;
    this.taken = new int[Math.max(1, vertexCount)];
  }

  /**
   * The width of a bucket of values: +infinity (one bucket) with one worker or for components
   * (a label floods its component at one value); else {@value #BUCKET_EDGES} mean edge weights.
   */
  double bucketWidth(boolean components, boolean weighted) {
    if (components || engine.workers() == 1 || targets.length == 0) {
      return Double.POSITIVE_INFINITY;
    }
    if (!weighted) {
      return BUCKET_EDGES;
    }
    if (meanWeight < 0) {
      double sum = 0;
      for (double w : weights) {
        sum += w;
      }
      meanWeight = sum / weights.length;
    }
    return meanWeight > 0 ? BUCKET_EDGES * meanWeight : Double.POSITIVE_INFINITY;
  }

  /**
   * Relaxes from the store's current values, starting with the out-edges of {@code frontier}
   * (distinct vertices), until nothing improves or {@code maxRounds} phases have run.
   *
   * @param components min label (connected components) instead of min distance
   * @param weighted shortest paths add the edge weights (else 1 per edge)
   * @param maxRetries attempts of a transaction before its chunk is left to the next phase
   */
  public RoundStats run(int[] frontier, boolean components, boolean weighted, int maxRetries,
      int maxRounds) {
    store.checkOpen();
    if (weighted && weights == null && !components) {
      throw new IllegalArgumentException("weighted: the graph has no weights");
    }
    double width = bucketWidth(components, weighted && !components);
    int workers = engine.workers();
    Worker[] ws = new Worker[workers];
    for (int w = 0; w < workers; w++) {
      ws[w] = new Worker(w, components, weighted && !components, maxRetries);
    }
    AtomicLongArray values = store.data[valuesRegion];
    // Buckets of vertices waiting for a later phase, by floor(value / width).
    TreeMap<Long, IntList> buckets = new TreeMap<>();
    IntList first = new IntList();
    for (int v : frontier) {
      first.add(v);
    }
    file(buckets, first, values, width);
    int rounds = 0;
    long nanos = 0;
    while (true) {
      Map.Entry<Long, IntList> lowest = buckets.pollFirstEntry();
      if (lowest == null) {
        return stats(ws, rounds, true, nanos);
      }
      long[] work = phaseVertices(lowest.getValue(), values);
      if (work.length == 0) {
        continue;
      }
      if (rounds == maxRounds) {
        return stats(ws, rounds, false, nanos);
      }
      double end = Double.isInfinite(width) ? Double.POSITIVE_INFINITY
          : (lowest.getKey() + 1) * width;
      AtomicInteger cursor = new AtomicInteger();
      nanos += engine.runOnWorkers(store, i -> ws[i].phase(work, cursor, end));
      rounds++;
      for (Worker w : ws) {
        file(buckets, w.later, values, width);
        w.later.clear();
      }
    }
  }

  private static RoundStats stats(Worker[] ws, int rounds, boolean converged, long nanos) {
    long tx = 0;
    long commits = 0;
    long aborts = 0;
    long relaxations = 0;
    long improved = 0;
    for (Worker w : ws) {
      tx += w.transactions;
      commits += w.commits;
      aborts += w.aborts;
      relaxations += w.relaxations;
      improved += w.improved;
    }
    return new RoundStats(rounds, converged, new TxCounts(tx, commits, aborts), relaxations,
        improved, nanos);
  }

  /** Files each vertex of {@code list} with out-edges under the bucket of its current value. */
  private void file(TreeMap<Long, IntList> buckets, IntList list, AtomicLongArray values,
      double width) {
    for (int i = 0; i < list.size; i++) {
      int v = list.items[i];
      if (offsets[v + 1] == offsets[v]) {
        continue;
      }
      double d = Double.longBitsToDouble(values.get(v));
      if (!(d < Double.POSITIVE_INFINITY)) {
        continue; // relaxing from +infinity improves nothing
      }
      long key = Double.isInfinite(width) ? 0 : (long) Math.floor(d / width);
      buckets.computeIfAbsent(key, k -> new IntList()).add(v);
    }
  }

  /**
   * A phase's vertices, each once, smallest value first (for components lowest label first), as
   * heap entries ({@link VertexHeap#entry}) keyed by their values now: one that drops before a
   * worker takes it is then skipped as stale (its drop queued it again).
   */
  private long[] phaseVertices(IntList list, AtomicLongArray values) {
    int stamp = nextPhase();
    long[] keys = new long[list.size];
    int n = 0;
    for (int i = 0; i < list.size; i++) {
      int v = list.items[i];
      double d = Double.longBitsToDouble(values.get(v));
      if (taken[v] == stamp) {
        continue;
      }
      taken[v] = stamp;
      keys[n++] = VertexHeap.entry(v, d);
    }
    Arrays.sort(keys, 0, n);
    return n == keys.length ? keys : Arrays.copyOf(keys, n);
  }

  /** A fresh phase stamp; stamps start over (cleared) before the int wraps. */
  private int nextPhase() {
    if (phase == Integer.MAX_VALUE) {
      Arrays.fill(taken, 0);
      phase = 0;
    }
    return ++phase;
  }

  /** A growable list of vertex ids. */
  static final class IntList {
    int[] items = new int[16];
    int size;

    void add(int v) {
      if (size == items.length) {
        items = Arrays.copyOf(items, size * 2);
      }
      items[size++] = v;
    }

    void clear() {
      size = 0;
    }
  }

  /** One worker's state, reused across phases. */
  private final class Worker {
    final int id;
    final boolean components;
    final boolean weighted;
    final int maxRetries;
    final JvmPrStmTx tx;
    final AtomicLongArray values;
    final VertexHeap heap = new VertexHeap();
    final IntList later = new IntList();
    final int[] keep = new int[CHUNK];
    final boolean[] wrote = new boolean[CHUNK];
    final double[] candidates = new double[CHUNK];
    double end;
    long transactions;
    long commits;
    long aborts;
    long relaxations;
    long improved;

    Worker(int id, boolean components, boolean weighted, int maxRetries) {
      this.id = id;
      this.components = components;
      this.weighted = weighted;
      this.maxRetries = maxRetries;
      this.tx = new JvmPrStmTx(store, CAPACITY);
      this.values = store.data[valuesRegion];
    }

    /**
     * Relaxes the values below {@code end}: takes the phase's vertices {@value #GRAB} at a time
     * while none of its own heap comes before them, and scans the smallest it holds until both
     * are exhausted.
     */
    void phase(long[] work, AtomicInteger cursor, double end) {
      this.end = end;
      heap.clear();
      int n = work.length;
      while (true) {
        int next = cursor.get();
        boolean more = next < n;
        if (more && (heap.isEmpty() || work[next] < heap.peek())) {
          int start = cursor.getAndAdd(GRAB);
          for (int i = start; i < Math.min(n, start + GRAB); i++) {
            heap.push(work[i]);
          }
          continue;
        }
        if (heap.isEmpty()) {
          return;
        }
        long entry = heap.pop();
        scan((int) entry, (int) (entry >>> 32));
      }
    }

    private double value(int v) {
      return Double.longBitsToDouble(values.get(v));
    }

    /**
     * Relaxes {@code u}'s out-edges, unless its value has dropped below the key it was queued
     * with ({@code keyBits}, a float's bits): whoever lowered it queued it again, with the
     * lower key, so this entry is stale. (No per-vertex record of what was scanned: one more
     * random read per vertex cost more than the rare entry queued twice at one value.)
     */
    private void scan(int u, int keyBits) {
      double du = value(u);
      if (Float.floatToRawIntBits((float) du) < keyBits) {
        return;
      }
      int first = offsets[u];
      int last = offsets[u + 1];
      relaxations += last - first;
      int kept = 0;
      for (int e = first; e < last; e++) {
        double candidate = components ? du : du + (weighted ? weights[e] : 1.0);
        if (candidate < value(targets[e])) {
          keep[kept++] = e;
          if (kept == CHUNK) {
            transaction(u, kept);
            kept = 0;
          }
        }
      }
      if (kept > 0) {
        transaction(u, kept);
      }
    }

    /** One transaction over the first {@code kept} edges of {@code keep}, all out of {@code u}. */
    private void transaction(int u, int kept) {
      transactions++;
      for (int attempt = 1; ; attempt++) {
        tx.begin(Priority.ordinary(id));
        double txU = Double.longBitsToDouble(tx.read(valuesRegion, u));
        for (int k = 0; k < kept; k++) {
          int e = keep[k];
          int v = targets[e];
          double candidate = components ? txU : txU + (weighted ? weights[e] : 1.0);
          double dv = Double.longBitsToDouble(tx.read(valuesRegion, v));
          wrote[k] = candidate < dv;
          candidates[k] = candidate;
          if (wrote[k]) {
            tx.write(valuesRegion, v, Double.doubleToRawLongBits(candidate));
          }
        }
        if (tx.commit()) {
          commits++;
          for (int k = 0; k < kept; k++) {
            if (wrote[k]) {
              improved++;
              queue(targets[keep[k]], candidates[k]);
            }
          }
          return;
        }
        aborts++;
        if (tx.status() == JvmPrStmTx.Status.OVERFLOW) {
          throw new IllegalStateException("graph relaxation transaction overflowed its sets");
        }
        if (attempt >= maxRetries) {
          // Abandoned: u is scanned again in the next phase.
          later.add(u);
          return;
        }
        Thread.onSpinWait();
      }
    }

    private void queue(int v, double value) {
      if (offsets[v + 1] == offsets[v]) {
        return; // nothing to scan
      }
      if (value < end) {
        heap.push(v, value);
      } else {
        later.add(v);
      }
    }
  }
}
