package io.gstm.core.graph;

import io.gstm.core.cuda.CudaGraphRelax;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The vertices a GPU run lowered, listed when a {@link RelaxResult} is first asked for them:
 * while the run's bits are still on the device, by the device ({@link
 * CudaGraphRelax#changedVertices}); once the relaxer has moved on (its next run or its close
 * calls {@link #detach}), from a copy of the bits taken then (a bit per vertex: 512 KB at 2^22
 * vertices, where the list of a components run is 16 MB).
 */
final class ChangedVertices implements Supplier<int[]> {
  /** Bitmap words per slice of the host's listing. */
  static final int SLICE_WORDS = 1 << 14;

  private final CudaGraphRelax device;
  private final int vertexCount;
  private boolean onDevice = true;
  private int[] bits;
  private int[] list;

  ChangedVertices(CudaGraphRelax device, int vertexCount) {
    this.device = device;
    this.vertexCount = vertexCount;
  }

  @Override
  public synchronized int[] get() {
    if (list == null) {
      list = onDevice ? device.changedVertices() : fromBits(bits, vertexCount);
      bits = null;
    }
    return list;
  }

  /** Before the device's bits change: keeps a copy of them unless the list was made. */
  synchronized void detach() {
    if (onDevice && list == null) {
      bits = device.changedBits();
    }
    onDevice = false;
  }

  /** The set bits of {@code words} below {@code n}, ascending; slices counted and filled on all cores. */
  static int[] fromBits(int[] words, int n) {
    int w = (n + 31) / 32;
    int slices = (w + SLICE_WORDS - 1) / SLICE_WORDS;
    int[] first = new int[slices + 1];
    IntStream.range(0, slices).parallel().forEach(s -> {
      int k = 0;
      for (int i = s * SLICE_WORDS, end = Math.min(w, (s + 1) * SLICE_WORDS); i < end; i++) {
        k += Integer.bitCount(masked(words, i, n));
      }
      first[s + 1] = k;
    });
    for (int s = 0; s < slices; s++) {
      first[s + 1] += first[s];
    }
    int[] out = new int[first[slices]];
    IntStream.range(0, slices).parallel().forEach(s -> {
      int at = first[s];
      for (int i = s * SLICE_WORDS, end = Math.min(w, (s + 1) * SLICE_WORDS); i < end; i++) {
        for (int word = masked(words, i, n); word != 0; word &= word - 1) {
          out[at++] = (i << 5) + Integer.numberOfTrailingZeros(word);
        }
      }
    });
    return out;
  }

  /** Word {@code i} with the bits of ids at or past {@code n} cleared. */
  private static int masked(int[] words, int i, int n) {
    int past = n - (i << 5);
    return past >= 32 ? words[i] : words[i] & ((1 << past) - 1);
  }
}
