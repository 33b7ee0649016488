package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchCooperativeKernel;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.cuda.ptx.ProgramPtx;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.OpenState;
import io.gstm.core.engine.Resources;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.program.Column;
import io.gstm.core.program.CompiledProgram;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramBinding;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.TxStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A program relaxation's run ({@link io.gstm.core.graph.ProgramRelaxation}) on the device: the
 * graph's edges are the batch's columns, uploaded once (transaction {@code t} is edge {@code
 * t}: its {@code src}, {@code dst} and {@code weight}), and the whole run is one cooperative
 * launch of the program's compiled kernel ({@code relax_loop} of {@code jit/program_jit.cu}),
 * its rounds separated by grid syncs, no host round trip between them. In a round a warp takes
 * up to 32 work items of at most {@value #CHUNK_EDGES} out-edges of one queued vertex each, and
 * looks at their edges as one list, a lane an edge: each edge's program run over plain reads
 * until its first write, abort or retry; only the edges that got that far run their
 * transactions, in place, gathered a lane each. A commit whose {@code changed} output is nonzero
 * queues its target for the next round or, on a sparse graph, has the warp follow it at once
 * (see {@code HOPS}); an abandoned one queues its source. Most edges of a relaxation near its
 * fixpoint run no transaction, as in the built-in kinds' kernels. With an order, the work items
 * of vertices past the round's bound wait in near-far buckets, as the built-in shortest paths'
 * do.
 *
 * <p>Only where the program compiles for the device, on a PR-STM store of this engine, without
 * history; {@link #open} answers null otherwise (the caller runs a program batch per round).
 * Owns its device buffers; the store stays the caller's.
 */
public final class CudaProgramRelax implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CudaProgramRelax.class);
  /** Out-edges of one vertex per work item ({@code kRelaxChunk} in the kernel). */
  static final int CHUNK_EDGES = 256;
  /** {@code RelaxArgs}. */
  static final int ARGS_BYTES = 144;
  /**
   * Hops a warp follows within a round: the targets it changed, their out-edges relaxed at
   * once, as the built-in relaxations do. On a graph of at most {@value #HOP_DEGREE} edges a
   * vertex (a road network, a grid) {@value #SPARSE_HOPS} hops, the built-in's number (with
   * buckets of 32 mean weights, the paths program's 2^20 grid 36.1 ms of kernel against 39.5 at
   * 6 hops and 8 mean weights, H200); on a denser one none, where values settle in few rounds
   * and a followed value is seldom final (H200, paths, R-MAT 2^22 with 16 edges a vertex: 15.9
   * ms of kernel with 6 hops against 13.2 without at {@code 948bf0a}).
   * {@code gstm.graph.programHops} sets it for every graph. Only for a program whose first
   * output is {@code changed}: the kernel reads it from the committed attempt, where the batch's
   * copy may by then be another run's of the same edge.
   */
  private static final Integer HOPS = Integer.getInteger("gstm.graph.programHops");
  private static final int HOP_DEGREE = 8;
  private static final int SPARSE_HOPS = 8;
  /** {@code RelaxStat}: transactions by outcome code, then skipped edges and changes. */
  private static final int STATS = 12;
  private static final int SKIPPED = 10;
  private static final int CHANGES = 11;
  /** {@code RelaxWord}: the loop's words, and those the host reads back. */
  static final int WORDS = 16;
  private static final int TOO_LARGE = 8;
  private static final int ROUNDS = 9;
  private static final int LEFT = 10;
  /** Threads a block ({@code kRelaxThreads} of the template: its counts' shared slots). */
  private static final int THREADS = 256;
  private static final int NO_EDGE = -1;
  /** {@code kNoOrder}: the vertices taken as they come. */
  private static final int NO_ORDER = -1;

  /**
   * What the rounds did.
   *
   * @param rounds rounds run
   * @param transactions transactions run (edges whose look showed a write)
   * @param skipped edges whose look showed they could not change anything
   * @param changes commits that reported a change
   * @param outcomes the transactions by outcome
   * @param kernelNanos GPU time of the rounds
   */
  public record Rounds(int rounds, long transactions, long skipped, long changes,
      Map<Outcome, Long> outcomes, long kernelNanos) {}

  private final CudaEngine engine;
  private final CudaTxStore store;
  private final CsrGraph graph;
  private final String programName;
  private final CUfunction kernel;
  private final ProgramImage image;
  private final int registers;
  private final int changedOutput;
  private final RunOptions options;
  private final List<DeviceBuffer> owned = new ArrayList<>();
  private final DeviceBuffer columns;
  private final DeviceBuffer imageBuffer;
  private final DeviceBuffer offsets;
  private final DeviceBuffer outputs;
  private final DeviceBuffer abortCodes;
  private final DeviceBuffer[] queues = new DeviceBuffer[2];
  private final DeviceBuffer[] far = new DeviceBuffer[2];
  private final DeviceBuffer farMin;
  private final DeviceBuffer words;
  private final DeviceBuffer stamps;
  private final DeviceBuffer farStamps;
  private final DeviceBuffer stats;
  private final DeviceBuffer counters;
  private final long srcAddress;
  private final long dstAddress;
  private final int outputSlots;
  private final int blocks;
  /** The drained buckets' ring: every vertex with edges; 0 in rounds ({@link #drainCapacity}). */
  private final int drainCapacity;
  private final OpenState open = new OpenState("CUDA program relaxation");

  /**
   * The device's rounds of {@code program} over {@code graph} and {@code store}, the graph's
   * edges uploaded; null where they cannot run on the device (not the CUDA engine or a PR-STM
   * store of it, history asked for, no edges, or the program does not compile for it).
   *
   * @param weighted whether the program takes a {@code weight} (1 for an unweighted graph)
   */
  public static CudaProgramRelax open(Engine engine, TxStore store, CsrGraph graph,
      CompiledProgram program, boolean weighted, RunOptions options) {
    if (!(engine instanceof CudaEngine cuda) || !(store instanceof CudaTxStore s)
        || s.engine() != cuda || s.algorithm().kind() != Algorithm.Kind.PRSTM
        || options.history() || graph.edgeCount() == 0) {
      return null;
    }
    s.checkOpen();
    // Bound to one row: the image's columns are then laid out for one row per edge.
    ProgramBatch.Builder b = ProgramBatch.builder(ProgramSet.of(program)).all(program.name(), 1)
        .column(Column.wrapInt32("src", new int[1])).column(Column.wrapInt32("dst", new int[1]));
    if (weighted) {
      b.column(Column.ofFloat64("weight", new double[1]));
    }
    ProgramBinding binding = ProgramBinding.bind(b.build(), s.layout(), s.algorithm());
    for (int c = 0; c < binding.columns().size(); c++) {
      // The kernel hands its looks and transactions their edge's columns in this order.
      if (!binding.columns().get(c).name().equals(ProgramPtx.RELAX_COLUMNS.get(c))) {
        throw new IllegalStateException("program relaxation: column " + c + " is "
            + binding.columns().get(c).name() + ", not " + ProgramPtx.RELAX_COLUMNS.get(c));
      }
    }
    ProgramImage image = ProgramImage.build(binding, graph.edgeCount());
    int drain = drainCapacity(graph, program);
    cuda.bind();
    CUfunction kernel = cuda.relaxKernel(image.words(), binding.capacity(), drain != 0);
    if (kernel == null) {
      LOG.info("program relaxation '{}': its run is not compiled for the device (sets of {} "
          + "entries); a program batch per round", program.name(), binding.capacity());
      return null;
    }
    int[] perSm = new int[1];
    CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
        () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(perSm, kernel, THREADS, 0));
    if (perSm[0] == 0) {
      LOG.info("program relaxation '{}': its kernel fits no block of {} threads on an SM; a "
          + "program batch per round", program.name(), THREADS);
      return null;
    }
    return new CudaProgramRelax(cuda, s, graph, program, binding, image, kernel,
        perSm[0] * cuda.multiprocessors(), drain, options);
  }

  /**
   * The ring's items when the run drains each bucket without rounds ({@code relax_drain}), else
   * 0: on a graph whose every vertex's edges fit one work item (a grid, a road network), for a
   * program whose first output is {@code changed} (the kernel reads it from the committed
   * attempt: the same edge may run in two warps at once), unless {@code
   * -Dgstm.graph.drain=rounds}. Every vertex with edges, each at most once in the ring.
   */
  static int drainCapacity(CsrGraph graph, CompiledProgram program) {
    if (!CudaGraphRelax.drainsBuckets() || program.outputIndex("changed") != 0) {
      return 0;
    }
    // The built-in's work items hold as many edges as this kernel's (KernelConstantsTest).
    return CudaGraphRelax.ringCapacity(graph.offsets());
  }

  private CudaProgramRelax(CudaEngine engine, CudaTxStore store, CsrGraph graph,
      CompiledProgram program, ProgramBinding binding, ProgramImage image, CUfunction kernel,
      int blocks, int drainCapacity, RunOptions options) {
    this.engine = engine;
    this.drainCapacity = drainCapacity;
    this.store = store;
    this.graph = graph;
    this.programName = program.name();
    this.kernel = kernel;
    this.blocks = blocks;
    this.image = image;
    this.registers = binding.batch().programs().maxRegisters();
    this.changedOutput = program.outputIndex("changed");
    this.options = options;
    this.outputSlots = Math.max(1, binding.batch().programs().maxOutputs());
    int n = graph.vertexCount();
    long e = graph.edgeCount();
    // A queue or far pile holds each vertex's items at most once.
    long itemRoom = 8L * (n + (e + CHUNK_EDGES - 1) / CHUNK_EDGES);
    DeviceBuffer[] held = Resources.closeOnExcept(owned, all -> {
      DeviceBuffer[] d = DeviceBuffer.allocate(false, 4L * Math.max(2, image.columnWords()),
          4L * image.words().length, 4L * (n + 1), 8L * outputSlots * e, 4L * e, itemRoom,
          itemRoom, itemRoom, itemRoom, 16, 4L * WORDS, 4L * n, 4L * n, 8L * STATS,
          8L * (Counter.COUNT + BatchBuffers.QUIESCENCE_WORDS));
      all.addAll(Arrays.asList(d));
      return d;
    });
    columns = held[0];
    imageBuffer = held[1];
    offsets = held[2];
    outputs = held[3];
    abortCodes = held[4];
    queues[0] = held[5];
    queues[1] = held[6];
    far[0] = held[7];
    far[1] = held[8];
    farMin = held[9];
    words = held[10];
    stamps = held[11];
    farStamps = held[12];
    stats = held[13];
    counters = held[14];
    long src = 0;
    long dst = 0;
    try {
      imageBuffer.upload(Pointer.to(image.words()), 4L * image.words().length);
      offsets.upload(Pointer.to(graph.offsets()), 4L * (n + 1));
      List<Column> cols = binding.columns();
      for (int c = 0; c < cols.size(); c++) {
        long at = 4 * image.columnOffsets()[c];
        switch (cols.get(c).name()) {
          case "src" -> {
            src = columns.address() + at;
            upload(at, 4, this::sources);
          }
          case "dst" -> {
            dst = columns.address() + at;
            upload(at, 4, (buf, from, k) -> buf.asIntBuffer().put(graph.targets(), from, k));
          }
          case "weight" -> upload(at, 8, graph.weights() == null
              ? (buf, from, k) -> {
                for (int i = 0; i < k; i++) {
                  buf.putDouble(8 * i, 1.0);
                }
              }
              : (buf, from, k) -> buf.asDoubleBuffer().put(graph.weights(), from, k));
          default -> throw new IllegalStateException("column " + cols.get(c).name());
        }
      }
    } catch (RuntimeException ex) {
      DeviceBuffer.closeAll(owned);
      throw ex;
    }
    this.srcAddress = src;
    this.dstAddress = dst;
  }

  /** Uploads one column of {@code elementBytes} per edge to byte {@code at} of the columns. */
  private void upload(long at, int elementBytes, PinnedStaging.Part part) {
    long bytes = (long) elementBytes * graph.edgeCount();
    if (bytes >= PinnedStaging.MIN_BYTES) {
      engine.staging().upload(columns, at, bytes, elementBytes, part);
    } else {
      ByteBuffer small = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.nativeOrder());
      part.copy(small, 0, graph.edgeCount());
      columns.uploadAtByte(at, Pointer.to(small), bytes);
    }
  }

  /** Each edge's source, from edge {@code from} on: the src column, never built on the host. */
  private void sources(ByteBuffer chunk, int from, int k) {
    int[] off = graph.offsets();
    int v = vertexOf(from);
    for (int i = 0; i < k; i++) {
      while (off[v + 1] <= from + i) {
        v++;
      }
      chunk.putInt(4 * i, v);
    }
  }

  /** The vertex whose out-edges hold edge {@code e}. */
  private int vertexOf(int e) {
    int[] off = graph.offsets();
    int lo = 0;
    int hi = graph.vertexCount() - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (off[mid] <= e) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /**
   * Runs rounds from the out-edges of {@code active} (vertices of the graph; one listed twice is
   * taken once) until a round queues nothing and no vertex waits, in one launch.
   *
   * @param orderRegion the store region whose values order the vertices (lowest first, highest
   *     when {@code descending}), or -1 to take them as they come
   * @param orderType that region's element type (ignored without an order)
   * @param width the near-far buckets' width, in the order's values
   * @throws IllegalStateException if work is still queued after {@code maxRounds}, or a
   *     transaction ended TOO_LARGE (the store then holds what the rounds before left)
   */
  public Rounds relax(int[] active, int maxRounds, int orderRegion, RegionType orderType,
      boolean descending, double width) {
    open.check();
    store.checkOpen();
    engine.bind();
    int[] off = graph.offsets();
    // Each vertex once: a drained bucket's ring holds every vertex at most once.
    BitSet listed = new BitSet(graph.vertexCount());
    int[] distinct = new int[active.length];
    int k = 0;
    int count = 0;
    for (int v : active) {
      if (!listed.get(v)) {
        listed.set(v);
        distinct[k++] = v;
        count += (graph.degree(v) + CHUNK_EDGES - 1) / CHUNK_EDGES;
      }
    }
    int[] first = new int[2 * count];
    int at = 0;
    for (int j = 0; j < k; j++) {
      int v = distinct[j];
      for (int e = off[v]; e < off[v + 1]; e += CHUNK_EDGES, at += 2) {
        first[at] = e;
        first[at + 1] = Math.min(CHUNK_EDGES, off[v + 1] - e);
      }
    }
    if (count > 0) {
      queues[0].upload(Pointer.to(first), 8L * count);
    }
    stats.zero();
    counters.zero();
    stamps.zero();
    farStamps.zero();
    farMin.upload(Pointer.to(new long[] {-1L, -1L}), 16);
    int[] start = new int[WORDS];
    start[0] = count;
    start[TOO_LARGE] = NO_EDGE;
    words.upload(Pointer.to(start), 4L * WORDS);
    byte[] view = CudaEngine.view(store);
    byte[] table = ProgramKernel.table(imageBuffer.address(), 0, columns.address(), 0,
        outputs.address(), abortCodes.address(), graph.edgeCount(), image.words().length,
        registers, outputSlots);
    byte[] out = KernelStructs.semanticOut(0, 0, counters.address(), 0, 0, 0, options);
    byte[] args = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(queues[0].address()).putLong(queues[1].address())
        .putLong(far[0].address()).putLong(far[1].address()).putLong(farMin.address())
        .putLong(words.address()).putLong(offsets.address()).putLong(srcAddress)
        .putLong(dstAddress).putLong(stamps.address()).putLong(farStamps.address())
        .putLong(stats.address())
        .putDouble(width).putInt(count).putInt(maxRounds).putInt(changedOutput).putInt(0)
        .putInt(orderRegion < 0 ? NO_ORDER : orderRegion)
        .putInt(orderRegion < 0 ? 0 : orderType.code()).putInt(descending ? 1 : 0)
        .putInt(hops()).putInt(drainCapacity).putInt(0).array();
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(table), Pointer.to(out),
        Pointer.to(args));
    long kernelNanos = engine.timed(() -> CudaErrors.call("launch program relaxation",
        () -> cuLaunchCooperativeKernel(kernel, blocks, 1, 1, THREADS, 1, 1, 0, null, params)));
    int[] back = new int[WORDS];
    words.download(Pointer.to(back), 4L * WORDS);
    int rounds = back[ROUNDS];
    LOG.debug("program relaxation '{}': {} {} in {} us on {} blocks", programName, rounds,
        drainCapacity != 0 ? "drained buckets" : "rounds", kernelNanos / 1000, blocks);
    if (back[TOO_LARGE] != NO_EDGE) {
      int e = back[TOO_LARGE];
      throw new IllegalStateException("program '" + programName + "': a relaxation of edge "
          + vertexOf(e) + " -> " + graph.targets()[e] + " ended TOO_LARGE (more reads or "
          + "writes than its set holds)");
    }
    if (back[LEFT] != 0) {
      throw new IllegalStateException("program '" + programName + "': " + back[LEFT] + " work "
          + "items still queued after " + maxRounds + " rounds (maxRounds); a relaxation "
          + "that does not only improve values may never end");
    }
    long[] s = new long[STATS];
    stats.download(Pointer.to(s), 8L * STATS);
    Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
    long transactions = 0;
    for (int code = 0; code < SKIPPED; code++) {
      if (s[code] != 0) {
        outcomes.put(Outcome.ofCode(code), s[code]);
        transactions += s[code];
      }
    }
    return new Rounds(rounds, transactions, s[SKIPPED], s[CHANGES], outcomes, kernelNanos);
  }

  /** The hops a warp follows in a round on this graph (see {@link #HOPS}). */
  private int hops() {
    if (changedOutput != 0) {
      return 0;
    }
    if (HOPS != null) {
      return Math.max(0, HOPS);
    }
    return graph.edgeCount() <= (long) HOP_DEGREE * graph.vertexCount() ? SPARSE_HOPS : 0;
  }

  @Override
  public void close() {
    open.close();
    engine.bind();
    DeviceBuffer.closeAll(owned);
  }
}
