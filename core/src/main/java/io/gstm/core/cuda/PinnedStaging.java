package io.gstm.core.cuda;

import static jcuda.driver.CUevent_flags.CU_EVENT_DISABLE_TIMING;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.stream.IntStream;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;

/**
 * A page-locked host buffer that large copies between Java arrays and device memory go through.
 * The driver copies a pageable array through small staging buffers of its own: on the H100 node
 * 32 MB of graph values came back in 18.5 ms (1.7 GB/s). A DMA into pinned memory runs at tens
 * of GB/s, and the copy between it and the array at memory speed. One per engine, allocated at
 * its first large copy and freed with the engine; copies through it take turns (one buffer).
 */
final class PinnedStaging implements AutoCloseable {
  /** Bytes of the buffer: larger copies go through it a piece at a time. */
  static final int CHUNK_BYTES = 32 << 20;
  /**
   * The smallest and largest piece. The buffer is a ring of pieces, each copied by the cores
   * while the DMA moves others, so a copy costs about the larger of the two plus one piece, and
   * each piece a few tens of microseconds of hand-offs: a copy is cut into about {@value
   * #PIECES_PER_COPY} pieces within these bounds. On the H200 node a components relaxation at
   * R-MAT 2^22 (32 MB of values up and down) took 5.4-7.5 ms in all with pieces of 4 MB and
   * 6.2-7.3 ms with 16 MB, the JVM's heap touched at start (docs/benchmark-log.md).
   */
  static final int MIN_PIECE_BYTES = 4 << 20;
  static final int MAX_PIECE_BYTES = 16 << 20;
  private static final int PIECES_PER_COPY = 8;
  /**
   * The smallest slice of a piece: a piece is cut into slices of at least this many bytes, up to
   * one per core, copied on all cores. One core moves 4-5 GB/s between the Java heap and pinned
   * memory, a tenth of the DMA's rate: 100 M 8-D k-means points (6.4 GB) took 1.6 s to reach the
   * GPU on one core.
   */
  static final int MIN_SLICE_BYTES = 512 << 10;
  /** Smaller copies go straight between the array and the device: staging would not pay. */
  static final long MIN_BYTES = 1 << 20;
  /** Pieces of the ring at most (of the smallest size). */
  private static final int MAX_PIECES = CHUNK_BYTES / MIN_PIECE_BYTES;

  /** Copies {@code elements} elements of an array, from element {@code from}, to or from one. */
  @FunctionalInterface
  interface Part {
    void copy(ByteBuffer chunk, int from, int elements);
  }

  private Pointer host;
  private ByteBuffer view;
  /** Per slot of the ring, recorded after the last DMA that reads or writes it. */
  private final CUevent[] drained = new CUevent[MAX_PIECES];
  /** The piece size of the uploads in flight, and the slot the next one goes through. */
  private int uploadPiece = MIN_PIECE_BYTES;
  private int nextSlot;

  /** The piece size for a copy of {@code bytes}: a power of two within the bounds. */
  static int pieceBytes(long bytes) {
    long piece = Long.highestOneBit(Math.max(1, bytes / PIECES_PER_COPY - 1)) << 1;
    return (int) Math.max(MIN_PIECE_BYTES, Math.min(MAX_PIECE_BYTES, piece));
  }

  /**
   * Copies {@code bytes} from the start of {@code src} into an array, piece by piece: the DMA of
   * the next pieces (asynchronous, into pinned memory) runs while the cores copy the last one out
   * (one after the other, 32 MB of graph values took the DMA's time and the copy's).
   */
  synchronized void download(DeviceBuffer src, long bytes, int elementBytes, Part into) {
    allocate();
    drain();
    int piece = pieceBytes(bytes);
    int slots = CHUNK_BYTES / piece;
    long pieces = (bytes + piece - 1) / piece;
    for (long k = 0; k < Math.min(slots, pieces); k++) {
      fetch(src, k, bytes, piece);
    }
    for (long k = 0; k < pieces; k++) {
      int slot = (int) (k % slots);
      CUevent done = drained[slot];
      CudaErrors.call("cuEventSynchronize", () -> cuEventSynchronize(done));
      long at = k * piece;
      copyInSlices(slot * piece, (int) Math.min(piece, bytes - at), elementBytes,
          (int) (at / elementBytes), into);
      if (k + slots < pieces) {
        fetch(src, k + slots, bytes, piece); // the slot just copied out is free again
      }
    }
  }

  /** Starts the DMA of piece {@code k} of {@code src} into its slot of the ring. */
  private void fetch(DeviceBuffer src, long k, long bytes, int piece) {
    int slot = (int) (k % (CHUNK_BYTES / piece));
    long at = k * piece;
    long n = Math.min(piece, bytes - at);
    CUdeviceptr from = src.pointer().withByteOffset(at);
    Pointer to = host.withByteOffset((long) slot * piece);
    CudaErrors.call("cuMemcpyDtoHAsync", () -> cuMemcpyDtoHAsync(to, from, n, null));
    CUevent done = drained[slot];
    CudaErrors.call("cuEventRecord", () -> cuEventRecord(done, null));
  }

  /**
   * Copies {@code bytes} of an array to byte {@code dstOffset} of {@code dst}, piece by piece:
   * the DMA of the pieces filled (asynchronous, from pinned memory, on the default stream) runs
   * while the cores fill the next. Returns once the array is copied, possibly before the last
   * DMA has finished: the next upload keeps the pipeline going, and everything later on the
   * default stream (kernels, copies) runs after it; {@link #download} and {@link #close} wait.
   */
  synchronized void upload(DeviceBuffer dst, long dstOffset, long bytes, int elementBytes,
      Part from) {
    allocate();
    int piece = pieceBytes(bytes);
    if (piece != uploadPiece) {
      drain(); // the ring is cut anew: no DMA may still read the old slots
      uploadPiece = piece;
      nextSlot = 0;
    }
    int slots = CHUNK_BYTES / piece;
    for (long at = 0; at < bytes; at += piece, nextSlot = (nextSlot + 1) % slots) {
      int n = (int) Math.min(piece, bytes - at);
      int slot = nextSlot;
      CUevent free = drained[slot];
      CudaErrors.call("cuEventSynchronize", () -> cuEventSynchronize(free));
      copyInSlices(slot * piece, n, elementBytes, (int) (at / elementBytes), from);
      CUdeviceptr to = dst.pointer().withByteOffset(dstOffset + at);
      Pointer chunk = host.withByteOffset((long) slot * piece);
      CudaErrors.call("cuMemcpyHtoDAsync", () -> cuMemcpyHtoDAsync(to, chunk, n, null));
      CudaErrors.call("cuEventRecord", () -> cuEventRecord(free, null));
    }
  }

  /** Waits for the uploads' DMA still running: the buffer is free as a whole again. */
  private void drain() {
    for (CUevent e : drained) {
      if (e != null) {
        CudaErrors.call("cuEventSynchronize", () -> cuEventSynchronize(e));
      }
    }
  }

  /**
   * Copies {@code bytes} of an array to the start of {@code dst}: through this buffer from
   * {@link #MIN_BYTES} on, else straight from the array ({@code array} points at it).
   */
  void uploadArray(DeviceBuffer dst, long bytes, int elementBytes, Pointer array, Part from) {
    uploadArrayAt(dst, 0, bytes, elementBytes, array, from);
  }

  /** As {@link #uploadArray}, to byte {@code dstOffset} of {@code dst}. */
  void uploadArrayAt(DeviceBuffer dst, long dstOffset, long bytes, int elementBytes,
      Pointer array, Part from) {
    if (bytes >= MIN_BYTES) {
      upload(dst, dstOffset, bytes, elementBytes, from);
    } else if (bytes > 0) {
      dst.uploadAtByte(dstOffset, array, bytes);
    }
  }

  /** Copies {@code bytes} from the start of {@code src} into an array, as {@link #uploadArray}. */
  void downloadArray(DeviceBuffer src, long bytes, int elementBytes, Pointer array, Part into) {
    if (bytes >= MIN_BYTES) {
      download(src, bytes, elementBytes, into);
    } else {
      src.download(array, bytes);
    }
  }

  /**
   * Runs {@code part} over the first {@code bytes} of the buffer, whose first element is array
   * element {@code first}: in one piece when small, else in slices on all cores (each slice a
   * view of its own, in native order, over disjoint elements).
   */
  private void copyInSlices(int offset, int bytes, int elementBytes, int first, Part part) {
    int slices = Math.min(Runtime.getRuntime().availableProcessors(),
        Math.max(1, bytes / MIN_SLICE_BYTES));
    int elements = bytes / elementBytes;
    ByteBuffer whole = view;
    if (slices == 1) {
      part.copy(whole.duplicate().clear().position(offset).limit(offset + bytes).slice()
          .order(ByteOrder.nativeOrder()), first, elements);
      return;
    }
    IntStream.range(0, slices).parallel().forEach(i -> {
      int from = (int) ((long) elements * i / slices);
      int to = (int) ((long) elements * (i + 1) / slices);
      ByteBuffer slice = whole.duplicate().clear().position(offset + from * elementBytes)
          .limit(offset + to * elementBytes).slice().order(ByteOrder.nativeOrder());
      part.copy(slice, first + from, to - from);
    });
  }

  private void allocate() {
    if (host == null) {
      Pointer p = new Pointer();
      CudaErrors.call("cuMemAllocHost", () -> cuMemAllocHost(p, CHUNK_BYTES));
      host = p;
      view = p.getByteBuffer(0, CHUNK_BYTES).order(ByteOrder.nativeOrder());
      for (int k = 0; k < drained.length; k++) {
        CUevent e = new CUevent();
        CudaErrors.call("cuEventCreate", () -> cuEventCreate(e, CU_EVENT_DISABLE_TIMING));
        drained[k] = e;
      }
    }
  }

  /**
   * Frees the buffer (with the engine's context current) once its DMA has finished; frees what
   * it can when the context is broken, and throws the first failure.
   */
  @Override
  public synchronized void close() {
    if (host == null) {
      return;
    }
    Pointer p = host;
    host = null;
    view = null;
    try {
      drain();
    } finally {
      try {
        for (int k = 0; k < drained.length; k++) {
          CUevent e = drained[k];
          drained[k] = null;
          CudaErrors.call("cuEventDestroy", () -> cuEventDestroy(e));
        }
      } finally {
        CudaErrors.call("cuMemFreeHost", () -> cuMemFreeHost(p));
      }
    }
  }
}
