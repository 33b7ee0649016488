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
 * {@link #table(long)}. Closing frees them all; setup that fails part-way frees what it took.
 */
final class BatchBuffers implements AutoCloseable {
  private final List<DeviceBuffer> owned = new ArrayList<>();
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
  final DeviceBuffer semanticConflicts;
  final DeviceBuffer histReads;
  final DeviceBuffer histWrites;
  final DeviceBuffer histCounts;

  /** Zeroed output buffers for {@code n} transactions; history ones only if asked. */
  BatchBuffers(int n, int capacity, boolean history) {
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

  /** Another buffer of {@code bytes}, freed with the others. */
  DeviceBuffer table(long bytes) {
    DeviceBuffer b = new DeviceBuffer(bytes);
    owned.add(b);
    return b;
  }

  private DeviceBuffer zeroed(long bytes) {
    DeviceBuffer b = table(bytes);
    b.zero();
    return b;
  }

  static long addressOrZero(DeviceBuffer b) {
    return b == null ? 0 : b.address();
  }

  /** Downloads everything the kernel wrote into a result. */
  BatchResult collect(String engine, int[] initialVersions, long uploadNanos, long kernelNanos) {
    long t0 = System.nanoTime();
    byte[] outcomeCodes = new byte[n];
    outcomes.download(Pointer.to(outcomeCodes), n);
    long[] counterValues = new long[Counter.COUNT];
    counters.download(Pointer.to(counterValues), 8L * Counter.COUNT);
    long[] resultValues = new long[n];
    results.download(Pointer.to(resultValues), 8L * n);
    int[] semantic = new int[n];
    semanticConflicts.download(Pointer.to(semantic), 4L * n);
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
    try {
      DeviceBuffer.closeAll(owned);
    } finally {
      owned.clear();
    }
  }
}
