package io.gstm.core.cuda;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.engine.Resources;
import io.gstm.core.history.History;
import io.gstm.core.history.HistoryFlattener;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;

/**
 * The device buffers of one batch: what every kernel writes (outcomes, counters, results,
 * semantic-conflict counts, optional history) plus the table buffers a launch adds with
 * {@link #table(long)}. They come from the engine's {@link DeviceBufferPool}; closing gives them
 * all back, and setup that fails part-way frees what it took. Large copies go through the
 * engine's pinned staging buffer, and what the counters show the kernel left at zero (results,
 * semantic conflicts) is not copied at all.
 */
final class BatchBuffers implements AutoCloseable {
  private final List<DeviceBuffer> owned = new ArrayList<>();
  private final DeviceBufferPool pool;
  private final PinnedStaging staging;
  private final int n;
  private final int capacity;
  final DeviceBuffer outcomes;
  /**
   * The semantic kernels' control words after the counters ({@code gstm/quiescence.cuh}:
   * finishes, stuck threads, finished threads, in-vain flag), zeroed with them.
   */
  static final int QUIESCENCE_WORDS = 4;
  final DeviceBuffer counters;
  final DeviceBuffer results;
  private boolean resultsAllZero;
  final DeviceBuffer semanticConflicts;
  final DeviceBuffer histReads;
  final DeviceBuffer histWrites;
  final DeviceBuffer histCounts;

  /** Zeroed output buffers for {@code n} transactions; history ones only if asked. */
  BatchBuffers(CudaEngine engine, int n, int capacity, boolean history) {
    this.pool = engine.bufferPool();
    this.staging = engine.staging();
    this.n = n;
    this.capacity = capacity;
    DeviceBuffer[] held = Resources.closeOnExcept(owned, all -> new DeviceBuffer[] {
        zeroed(n),
        zeroed(8L * (Counter.COUNT + QUIESCENCE_WORDS)),
        zeroed(8L * n),
        zeroed(4L * n),
        history ? table(8L * n * capacity) : null,
        history ? table(8L * n * capacity) : null,
        history ? zeroed(4L * n) : null});
    outcomes = held[0];
    counters = held[1];
    results = held[2];
    semanticConflicts = held[3];
    histReads = held[4];
    histWrites = held[5];
    histCounts = held[6];
  }

  /**
   * The results stay on the device and read 0: the kernel writes only zeros (a program's result
   * is its first output, and no program of the batch has one; a batch of ten million transfers
   * with one read-only commit downloaded 80 MB of zeros), or the caller reads none
   * ({@code RunOptions.withoutResults}).
   */
  void resultsAllZero() {
    resultsAllZero = true;
  }

  /** Another buffer of at least {@code bytes}, given back with the others. */
  DeviceBuffer table(long bytes) {
    DeviceBuffer b = pool.take(bytes);
    owned.add(b);
    return b;
  }

  private DeviceBuffer zeroed(long bytes) {
    DeviceBuffer b = table(bytes);
    b.zero();
    return b;
  }

  /** Uploads {@code values} to 32-bit word {@code offsetWords} of {@code dst}. */
  void upload(DeviceBuffer dst, long offsetWords, int[] values) {
    staging.uploadArrayAt(dst, 4L * offsetWords, 4L * values.length, 4, Pointer.to(values),
        (b, from, k) -> b.asIntBuffer().put(values, from, k));
  }

  /** Uploads {@code values} to byte {@code offset} of {@code dst}. */
  void upload(DeviceBuffer dst, long offset, long[] values) {
    staging.uploadArrayAt(dst, offset, 8L * values.length, 8, Pointer.to(values),
        (b, from, k) -> b.asLongBuffer().put(values, from, k));
  }

  /** The first {@code into.length} values of {@code src}. */
  void download(DeviceBuffer src, long[] into) {
    staging.downloadArray(src, 8L * into.length, 8, Pointer.to(into),
        (b, from, k) -> b.asLongBuffer().get(into, from, k));
  }

  /** The first {@code into.length} values of {@code src}. */
  void download(DeviceBuffer src, int[] into) {
    staging.downloadArray(src, 4L * into.length, 4, Pointer.to(into),
        (b, from, k) -> b.asIntBuffer().get(into, from, k));
  }

  /**
   * Values {@code rows} (ascending) of the first {@code n} ints of {@code src}: the others are
   * not kept (through the staging buffer, each piece read for its rows as it lands).
   */
  int[] downloadPicked(DeviceBuffer src, int n, int[] rows) {
    int[] picked = new int[rows.length];
    if (4L * n < PinnedStaging.MIN_BYTES) {
      int[] all = new int[n];
      download(src, all);
      for (int k = 0; k < rows.length; k++) {
        picked[k] = all[rows[k]];
      }
      return picked;
    }
    staging.downloadArray(src, 4L * n, 4, null, (b, from, k) -> {
      int j = java.util.Arrays.binarySearch(rows, from);
      for (j = j >= 0 ? j : -j - 1; j < rows.length && rows[j] < from + k; j++) {
        picked[j] = b.getInt(4 * (rows[j] - from));
      }
    });
    return picked;
  }

  /**
   * Per region {@code s} of {@code n} longs of {@code src} (an output slot of every
   * transaction), the values {@code rows[s]} (ascending): the others are not kept.
   */
  long[][] downloadPicked(DeviceBuffer src, int n, int[][] rows) {
    long[][] picked = new long[rows.length][];
    int total = 0;
    for (int s = 0; s < rows.length; s++) {
      picked[s] = new long[rows[s].length];
      total += rows[s].length;
    }
    if (total == 0) {
      return picked;
    }
    long bytes = 8L * n * rows.length;
    if (bytes < PinnedStaging.MIN_BYTES) {
      long[] all = new long[n * rows.length];
      download(src, all);
      for (int s = 0; s < rows.length; s++) {
        for (int k = 0; k < rows[s].length; k++) {
          picked[s][k] = all[s * n + rows[s][k]];
        }
      }
      return picked;
    }
    staging.downloadArray(src, bytes, 8, null, (b, from, k) -> {
      // The piece holds elements [from, from + k): parts of one or more slots' regions.
      for (int s = from / n; s < rows.length && (long) s * n < from + k; s++) {
        long base = (long) s * n; // the slot's first element
        int lo = (int) (Math.max(from, base) - base);
        int hi = (int) (Math.min((long) from + k, base + n) - base);
        int j = java.util.Arrays.binarySearch(rows[s], lo);
        for (j = j >= 0 ? j : -j - 1; j < rows[s].length && rows[s][j] < hi; j++) {
          picked[s][j] = b.getLong((int) (8 * (base + rows[s][j] - from)));
        }
      }
    });
    return picked;
  }

  /** The first {@code into.length} bytes of {@code src}. */
  void download(DeviceBuffer src, byte[] into) {
    staging.downloadArray(src, into.length, 1, Pointer.to(into),
        (b, from, k) -> b.get(into, from, k));
  }

  static long addressOrZero(DeviceBuffer b) {
    return b == null ? 0 : b.address();
  }

  /**
   * Downloads everything the kernel wrote into a result. Results are downloaded when some
   * read-only transaction committed (the kernels write no others; CSMV writes every commit's:
   * {@code everyCommitHasAResult}), semantic conflicts when the counters saw one.
   */
  BatchResult collect(String engine, int[] initialVersions, long uploadNanos, long kernelNanos) {
    return collect(engine, initialVersions, uploadNanos, kernelNanos, false);
  }

  BatchResult collect(String engine, int[] initialVersions, long uploadNanos, long kernelNanos,
      boolean everyCommitHasAResult) {
    long t0 = System.nanoTime();
    byte[] outcomeCodes = new byte[n];
    download(outcomes, outcomeCodes);
    long[] counterValues = new long[Counter.COUNT];
    counters.download(Pointer.to(counterValues), 8L * Counter.COUNT);
    long resultsWritten = counterValues[everyCommitHasAResult ? Counter.COMMITS.ordinal()
        : Counter.READ_ONLY_COMMITS.ordinal()];
    long[] resultValues = null;
    if (resultsWritten > 0 && !resultsAllZero) {
      resultValues = new long[n];
      download(results, resultValues);
    }
    int[] semantic = null;
    if (counterValues[Counter.SEMANTIC_CONFLICTS.ordinal()] > 0) {
      semantic = new int[n];
      download(semanticConflicts, semantic);
    }
    History history = null;
    if (histCounts != null) {
      long[] reads = new long[n * capacity];
      long[] writes = new long[n * capacity];
      int[] counts = new int[n];
      histReads.download(Pointer.to(reads), 8L * reads.length);
      histWrites.download(Pointer.to(writes), 8L * writes.length);
      histCounts.download(Pointer.to(counts), 4L * n);
      history = HistoryFlattener.committed(initialVersions, outcomeCodes, counts, reads, writes,
          capacity);
    }
    return BatchResult.builder(engine, outcomeCodes).counters(counterValues).results(resultValues)
        .semanticConflicts(semantic).history(history)
        .timings(uploadNanos, kernelNanos, System.nanoTime() - t0).build();
  }

  @Override
  public void close() {
    RuntimeException failure = null;
    for (DeviceBuffer b : owned) {
      try {
        pool.give(b);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    owned.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
