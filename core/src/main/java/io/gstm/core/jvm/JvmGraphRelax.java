package io.gstm.core.jvm;

import io.gstm.core.graph.RoundStats;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.TxStore;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Graph relaxation rounds on the JVM engine's workers, the twin of the CUDA engine's
 * {@code CudaGraphRelax}: one call runs every round of a relaxation without building a
 * {@code TxBatch} per round, snapshotting the store or copying the values out between rounds.
 *
 * <p>A round takes the frontier's vertices (spread over the engine's workers; smallest value
 * first: for shortest paths nearest first, for components lowest label first). A plain read of
 * the values first drops the out-edges of a vertex that cannot improve their target (values
 * only decrease); the rest, in chunks of up to
 * {@value #CHUNK}, are each one PR-STM transaction ({@link JvmPrStmTx}: the source's value and
 * every kept target in the read set, improved targets written). A vertex with no improving edge
 * runs no transaction. (On the GPU the chunks are cut before the filter.)
 * A vertex that a committed transaction lowered joins the next round's frontier (once per
 * round), unless it is in this round's frontier and not started yet (it will relax from its new
 * value in this round); the source of a chunk abandoned after the retry limit joins it too.
 *
 * <p>The edges live in plain arrays (read-only, shared by the workers, as a transaction reads
 * them with {@code readShared}); only the values region of the store is transactional. The
 * store stays owned by the caller. Not thread-safe: one run at a time.
 */
public final class JvmGraphRelax {
  /** Set capacity of a transaction. */
  public static final int CAPACITY = 16;
  /** Improving edges per transaction at most: the capacity less the entry of the source. */
  public static final int CHUNK = CAPACITY - 1;
  /** Frontier vertices a worker takes at a time. */
  private static final int GRAB = 64;

  private final JvmEngine engine;
  private final JvmTxStore store;
  private final int valuesRegion;
  private final int[] offsets;
  private final int[] targets;
  private final double[] weights;
  private final int vertexCount;
  /** Per vertex: the round in which it was queued for the next round. */
  private final AtomicIntegerArray stamps;
  /** Per vertex: the round whose frontier holds it and has not started it yet (else 0). */
  private final AtomicIntegerArray pending;
  private int stamp;

  /**
   * Relaxation rounds over a CSR graph ({@code offsets}, {@code targets}, {@code weights} or
   * null) whose vertex values are FLOAT64 region {@code valuesRegion} of {@code store}, a store of
   * the JVM engine. The arrays are shared, not copied.
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
    this.stamps = new AtomicIntegerArray(Math.max(1, vertexCount));
    this.pending = new AtomicIntegerArray(Math.max(1, vertexCount));
  }

  /**
   * Relaxes from the store's current values, starting with the out-edges of {@code frontier}
   * (distinct vertices), until a round lowers nothing or {@code maxRounds} rounds have run.
   *
   * @param components min label (connected components) instead of min distance
   * @param weighted shortest paths add the edge weights (else 1 per edge)
   * @param maxRetries attempts of a transaction before its chunk is left to the next round
   */
  public RoundStats run(int[] frontier, boolean components, boolean weighted, int maxRetries,
      int maxRounds) {
    store.checkOpen();
    if (weighted && weights == null && !components) {
      throw new IllegalArgumentException("weighted: the graph has no weights");
    }
    int[] current = withEdges(frontier);
    int workers = engine.workers();
    Worker[] ws = new Worker[workers];
    for (int w = 0; w < workers; w++) {
      ws[w] = new Worker(w, components, weighted && !components, maxRetries);
    }
    int rounds = 0;
    long improved = 0;
    long nanos = 0;
    while (current.length > 0) {
      if (rounds == maxRounds) {
        return stats(ws, rounds, false, improved, nanos);
      }
      int round = nextStamp();
      int[] work = byValue(current);
      for (int v : work) {
        pending.set(v, round);
      }
      AtomicInteger cursor = new AtomicInteger();
      for (Worker w : ws) {
        w.next = 0;
      }
      nanos += engine.runOnWorkers(store, i -> ws[i].round(work, cursor, round));
      rounds++;
      int total = 0;
      for (Worker w : ws) {
        total += w.next;
      }
      int[] next = new int[total];
      int at = 0;
      for (Worker w : ws) {
        System.arraycopy(w.queue, 0, next, at, w.next);
        at += w.next;
      }
      improved += total;
      current = withEdges(next);
    }
    return stats(ws, rounds, true, improved, nanos);
  }

  private static RoundStats stats(Worker[] ws, int rounds, boolean converged, long improved,
      long nanos) {
    long tx = 0;
    long commits = 0;
    long aborts = 0;
    long relaxations = 0;
    for (Worker w : ws) {
      tx += w.transactions;
      commits += w.commits;
      aborts += w.aborts;
      relaxations += w.relaxations;
    }
    return new RoundStats(rounds, converged, tx, commits, aborts, relaxations, improved, nanos);
  }

  /** A fresh round stamp; stamps start over (cleared) before the int wraps. */
  private int nextStamp() {
    if (stamp == Integer.MAX_VALUE) {
      for (int v = 0; v < stamps.length(); v++) {
        stamps.set(v, 0);
        pending.set(v, 0);
      }
      stamp = 0;
    }
    return ++stamp;
  }

  /**
   * The frontier smallest value first (by the values as floats): nearest first for shortest
   * paths, lowest label first for components, so that a round's early commits lower what its
   * later vertices relax from (components on a degree-ordered subgraph examined about twice the
   * edges in local-id order).
   */
  private int[] byValue(int[] frontier) {
    if (frontier.length < 2) {
      return frontier;
    }
    AtomicLongArray values = store.data[valuesRegion];
    long[] keys = new long[frontier.length];
    for (int i = 0; i < keys.length; i++) {
      float d = (float) Double.longBitsToDouble(values.get(frontier[i]));
      keys[i] = ((long) Float.floatToRawIntBits(d) << 32) | frontier[i];
    }
    Arrays.sort(keys);
    int[] out = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      out[i] = (int) keys[i];
    }
    return out;
  }

  /** The vertices of {@code vertices} that have out-edges. */
  private int[] withEdges(int[] vertices) {
    int n = 0;
    for (int v : vertices) {
      if (offsets[v + 1] > offsets[v]) {
        n++;
      }
    }
    if (n == vertices.length) {
      return vertices;
    }
    int[] out = new int[n];
    n = 0;
    for (int v : vertices) {
      if (offsets[v + 1] > offsets[v]) {
        out[n++] = v;
      }
    }
    return out;
  }

  /** One worker's state, reused across rounds. */
  private final class Worker {
    final int id;
    final boolean components;
    final boolean weighted;
    final int maxRetries;
    final JvmPrStmTx tx;
    final AtomicLongArray values;
    final int[] keep = new int[CHUNK];
    final boolean[] wrote = new boolean[CHUNK];
    int[] queue = new int[256];
    int next;
    long transactions;
    long commits;
    long aborts;
    long relaxations;

    Worker(int id, boolean components, boolean weighted, int maxRetries) {
      this.id = id;
      this.components = components;
      this.weighted = weighted;
      this.maxRetries = maxRetries;
      this.tx = new JvmPrStmTx(store, CAPACITY);
      this.values = store.data[valuesRegion];
    }

    void round(int[] frontier, AtomicInteger cursor, int round) {
      int n = frontier.length;
      for (int start = cursor.getAndAdd(GRAB); start < n; start = cursor.getAndAdd(GRAB)) {
        int end = Math.min(n, start + GRAB);
        for (int i = start; i < end; i++) {
          int u = frontier[i];
          // Started: from now on a drop of u's value queues u for the next round. (This store
          // comes before the reads of u's value, so a drop that still saw u pending is seen.)
          pending.set(u, 0);
          int first = offsets[u];
          int last = offsets[u + 1];
          relaxations += last - first;
          double du = Double.longBitsToDouble(values.get(u));
          int kept = 0;
          for (int e = first; e < last; e++) {
            double candidate = components ? du : du + (weighted ? weights[e] : 1.0);
            if (candidate < Double.longBitsToDouble(values.get(targets[e]))) {
              keep[kept++] = e;
              if (kept == CHUNK) {
                transaction(u, kept, round);
                kept = 0;
              }
            }
          }
          if (kept > 0) {
            transaction(u, kept, round);
          }
        }
      }
    }

    /** One transaction over the first {@code kept} edges of {@code keep}, all out of {@code u}. */
    private void transaction(int u, int kept, int round) {
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
          if (wrote[k]) {
            tx.write(valuesRegion, v, Double.doubleToRawLongBits(candidate));
          }
        }
        if (tx.commit()) {
          commits++;
          for (int k = 0; k < kept; k++) {
            if (wrote[k]) {
              enqueue(targets[keep[k]], round);
            }
          }
          return;
        }
        aborts++;
        if (tx.status() == JvmPrStmTx.Status.OVERFLOW) {
          throw new IllegalStateException("graph relaxation transaction overflowed its sets");
        }
        if (attempt >= maxRetries) {
          // Abandoned: the source stays active, so the next round tries its edges again.
          enqueue(u, round);
          return;
        }
        Thread.onSpinWait();
      }
    }

    private void enqueue(int v, int round) {
      // A vertex this round has not started yet will relax from its new value anyway.
      if (pending.get(v) == round) {
        return;
      }
      if (stamps.get(v) == round || stamps.getAndSet(v, round) == round) {
        return;
      }
      if (next == queue.length) {
        queue = Arrays.copyOf(queue, next * 2);
      }
      queue[next++] = v;
    }
  }
}
