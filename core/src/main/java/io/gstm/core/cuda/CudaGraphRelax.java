package io.gstm.core.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchCooperativeKernel;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.engine.OpenState;
import io.gstm.core.graph.RoundStats;
import io.gstm.core.store.TxStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Device-resident graph relaxation rounds ({@code graph_relax.cu}): the frontier stays on the
 * GPU as a queue of work items, each a chunk of at most {@value #CHUNK_EDGES} out-edges of one
 * vertex; each round is one launch of {@code gstm_graph_relax_round} (a warp per item, a PR-STM
 * transaction per edge that may improve its target) that relaxes the queue and fills the next
 * one, and the host reads back only the next queue's length.
 *
 * <p>Rounds run in near-far buckets: a round relaxes only values below the bucket's end, and a
 * vertex lowered to it or above waits on a far list; when a bucket runs dry the next one ends a
 * bucket width above the lowest value listed far, and {@code gstm_graph_relax_split} moves the
 * far vertices below that into work items (dropping those that were lowered into an earlier
 * bucket after being listed: their edges ran then). The frontier itself starts as the far
 * list, so the host never builds work items.
 *
 * <p>A run of many rounds (a grid, a road network) is handed over after {@value
 * #HAND_OVER_ROUNDS} of them, or as soon as a queue after the first round is shorter than the
 * loop's resident warps, to {@code gstm_graph_relax_loop}, which runs the same splits and rounds
 * in one cooperative launch, the grid synchronised between steps (see {@link #handOverAfter},
 * {@link #handOverItems}).
 *
 * <p>Components on a symmetric graph ({@link Settings#symmetric()}) from every vertex with edges
 * (a first split that queues them all) are found by union-find instead of rounds ({@link
 * CudaComponents}: the same values, most edges never read), reported as one round. With {@code
 * -Dgstm.graph.components=rounds} such a run pulls its first round instead: each vertex takes its
 * neighbours' lowest label in one transaction, rather than every vertex pushing along every edge
 * (on R-MAT 2^22, half the transactions and a fifteenth of the aborts); the later rounds push
 * from the vertices lowered.
 *
 * <p>Owns its queues, stamps and counters (device memory); the store stays owned by the caller.
 * {@link io.gstm.core.graph.GraphRelaxer} creates one per graph and closes it with itself.
 */
public final class CudaGraphRelax implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CudaGraphRelax.class);
  static final String MODULE = "graph_relax";
  static final String SYMBOL = "gstm_graph_relax_round";
  static final String SPLIT_SYMBOL = "gstm_graph_relax_split";
  static final String NAN_SYMBOL = "gstm_graph_find_nan";
  static final String LOOP_SYMBOL = "gstm_graph_relax_loop";
  static final String DRAIN_SYMBOL = "gstm_graph_relax_drain";
  /** A check of the drained bucket's ring, launched by the tests (DrainRingTest). */
  static final String DRAIN_CHECK_SYMBOL = "gstm_drain_check";
  static final int ARGS_BYTES = 160;
  static final int LOOP_ARGS_BYTES = 192;
  /**
   * Rounds the host runs before it hands a run over to the device's loop ({@code
   * gstm.graph.loop=auto}): R-MAT graphs end within 9, in rounds of millions of items that a
   * launch each serves best; grids and road networks take thousands of rounds of a few hundred.
   */
  static final int HAND_OVER_ROUNDS = 16;
  /** Default of {@link #chainHops}. */
  static final int DEFAULT_CHAIN_HOPS = 8;
  /** Threads per block of the loop kernel (its launch bounds). */
  private static final int LOOP_THREADS = 256;
  /** Words of {@link #loopWords}: three queue lengths, the vertices taken, five results. */
  private static final int LOOP_WORDS = 9;
  static final int SPLIT_ARGS_BYTES = 120;
  /** Out-edges of one vertex per work item ({@code kChunkEdges} in the kernel). */
  static final int CHUNK_EDGES = 256;
  private static final int STATS = 3;
  private static final int SPLIT_THREADS = 256;
  /** Threads of a block of the changed list's kernels (graph_relax.cu's kListThreads). */
  private static final int LIST_THREADS = 256;
  static final String LIST_COUNT_SYMBOL = "gstm_graph_list_count";
  static final String LIST_SCAN_SYMBOL = "gstm_graph_list_scan";
  static final String LIST_WRITE_SYMBOL = "gstm_graph_list_write";

  private final CudaEngine engine;
  private final CudaTxStore store;
  private final int vertexCount;
  /** Vertices with at least one out-edge: a split that queues them all allows a pull round. */
  private final int verticesWithEdges;
  private final DeviceBuffer[] queues = new DeviceBuffer[2];
  /** Far lists (two, swapped per split). */
  private final DeviceBuffer[] far = new DeviceBuffer[2];
  /**
   * Words: [0] the queue's length, [1] and [2] the far lists' lengths, [3] a NaN found, [4] the
   * vertices with edges the last split queued.
   */
  private final DeviceBuffer count;
  private final DeviceBuffer stamps;
  private final DeviceBuffer farStamps;
  private final DeviceBuffer farMin;
  private final DeviceBuffer counters;
  private final DeviceBuffer stats;
  /** A bit per vertex, set when a commit of the last run lowered it. */
  private final DeviceBuffer changed;
  /** The loop kernel's queue lengths and results (its {@code LoopArgs.words}). */
  private final DeviceBuffer loopWords;
  /**
   * The changed list's block counts (then first places, then its length) and the list, made at
   * its first use (null: not yet).
   */
  private DeviceBuffer listFirsts;
  private DeviceBuffer list;
  /** Union-find for components over every vertex, made at its first use (null: not yet). */
  private CudaComponents components;
  /** Blocks of the loop kernel resident at once, found at its first use (-1: not yet). */
  private int loopBlocks = -1;
  private int stamp;
  private int farEpoch;
  private final OpenState open = new OpenState("CUDA graph relaxation");
  /** Items of the ring a drained bucket queues through; 0 when a vertex needs several. */
  private final int ringCapacity;

  /**
   * Allocates two queues with room for every vertex's chunks once, two far lists and the stamps,
   * for the graph of CSR {@code offsets}, on {@code store}'s engine. The caller closes the result.
   */
  public CudaGraphRelax(TxStore store, int[] offsets) {
    if (!(store instanceof CudaTxStore s)) {
      throw new IllegalArgumentException("store: not a CUDA store");
    }
    // On every core: a Spark run makes a relaxer of each subgraph (8.9 M vertices at 2^24).
    int vertices = Math.max(0, offsets.length - 1);
    long items = IntStream.range(0, vertices).parallel()
        .mapToLong(v -> (offsets[v + 1] - offsets[v] + CHUNK_EDGES - 1) / CHUNK_EDGES).sum();
    int withEdges = (int) IntStream.range(0, vertices).parallel()
        .filter(v -> offsets[v + 1] > offsets[v]).count();
    if (items > Integer.MAX_VALUE / 2) {
      throw new IllegalArgumentException("graph: " + items + " edge chunks exceed a queue");
    }
    this.store = s;
    this.engine = s.engine();
    engine.bind();
    this.vertexCount = Math.max(0, offsets.length - 1);
    this.verticesWithEdges = withEdges;
    this.ringCapacity = ringCapacity(items, withEdges);
    long room = 8L * Math.max(1, items);
    long perVertex = 4L * Math.max(1, vertexCount);
    long bitWords = 4L * Math.max(1, (vertexCount + 31) / 32);
    // From the engine's pool, as the store: a Spark run makes a relaxer of each subgraph.
    DeviceBufferPool pool = engine.bufferPool();
    DeviceBuffer[] held = pool.takeAll(false, room, room, perVertex, perVertex, 20,
        perVertex, perVertex, 8, 8L * Counter.COUNT, 8L * STATS, bitWords, 4L * LOOP_WORDS);
    try {
      held[5].zero();
      held[6].zero();
    } catch (RuntimeException e) {
      pool.giveAll(Arrays.asList(held));
      throw e;
    }
    queues[0] = held[0];
    queues[1] = held[1];
    far[0] = held[2];
    far[1] = held[3];
    this.count = held[4];
    this.stamps = held[5];
    this.farStamps = held[6];
    this.farMin = held[7];
    this.counters = held[8];
    this.stats = held[9];
    this.changed = held[10];
    this.loopWords = held[11];
  }

  /**
   * Where the graph lies in the store: the indices of its regions.
   *
   * @param values vertex values (FLOAT64), updated by the rounds
   * @param targets edge targets, in CSR order
   * @param weights edge weights
   * @param offsets CSR offsets of each vertex's out-edges
   */
  public record Regions(int values, int targets, int weights, int offsets) {}

  /**
   * How the rounds run.
   *
   * @param components min label (connected components) instead of min distance
   * @param weighted shortest paths add the edge weights (else 1 per edge)
   * @param threadsPerBlock threads per block, rounded up to a warp, at most 256
   * @param maxRetries attempts of a transaction before its source is left to the next round
   * @param maxRounds rounds at most
   * @param bucketWidth how far a bucket's end rises when it runs dry, positive; +infinity: one
   *     bucket (label-correcting rounds over the whole frontier)
   * @param symmetric every edge's reverse is in the graph (an undirected graph): a components
   *     round over every vertex may then pull, each vertex taking its neighbours' lowest label
   *     in one transaction, rather than push along every edge
   */
  public record Settings(boolean components, boolean weighted, int threadsPerBlock,
      int maxRetries, int maxRounds, double bucketWidth, boolean symmetric) {
    public Settings {
      if (!(bucketWidth > 0)) {
        throw new IllegalArgumentException("bucketWidth must be positive, got " + bucketWidth);
      }
    }
  }

  /**
   * Runs rounds from the vertices {@code frontier} (at most one entry per vertex of the graph;
   * a vertex listed twice is taken once; null: every vertex, with no list sent) until no vertex
   * is queued or far, or
   * {@code settings.maxRounds()} rounds ran; the values region must already hold the starting
   * values, and the first bucket ends {@code settings.bucketWidth()} above the lowest of them
   * in the frontier ({@code lowest}).
   *
   * @return the statistics
   */
  public RoundStats run(int[] frontier, double lowest, Regions regions, Settings settings) {
    open.check();
    boolean all = frontier == null;
    if (!all && frontier.length > vertexCount) {
      throw new IllegalArgumentException("frontier: " + frontier.length
          + " vertices, more than the graph's " + vertexCount + " (duplicates?)");
    }
    engine.bind();
    counters.zero();
    stats.zero();
    changed.zero();
    count.zero();
    int tpb = Math.min(256, (settings.threadsPerBlock() + 31) / 32 * 32);
    int warpsPerBlock = tpb / 32;
    // Enough resident warps to fill every SM (2,048 threads each), a warp per work item.
    int maxBlocks = engine.multiprocessors() * (2048 / tpb);
    CUfunction round = engine.function(MODULE, SYMBOL);
    CUfunction split = engine.function(MODULE, SPLIT_SYMBOL);
    byte[] view = CudaEngine.view(store);
    int fin = 0;
    if (all) {
      // Every vertex: the first split takes far list index i as vertex i (no list to send).
      count.uploadAtByte(4, Pointer.to(new int[] {vertexCount}), 4);
    } else if (frontier.length > 0) {
      engine.staging().uploadArray(far[0], 4L * frontier.length, 4, Pointer.to(frontier),
          (b, from, n) -> b.asIntBuffer().put(frontier, from, n));
      count.uploadAtByte(4, Pointer.to(new int[] {frontier.length}), 4);
    }
    if (all && settings.components() && settings.symmetric() && vertexCount > 0
        && unionFind()) {
      // Every vertex with edges would be queued: union-find needs no split.
      return finish(new Loop(1, true, components(regions, view)));
    }
    int handOver = handOverAfter();
    int handOverItems = handOver == Integer.MAX_VALUE ? 0 : handOverItems();
    double width = settings.bucketWidth();
    double bound = lowest + width;
    // The last bucket's end: a far vertex below it was lowered (and queued) since it was listed.
    double prevBound = Double.NEGATIVE_INFINITY;
    boolean first = true;
    int in = 0;
    int n = 0;
    int rounds = 0;
    long kernelNanos = 0;
    int[] words = new int[5];
    // Pull the first round when it runs over every vertex with edges of a symmetric graph.
    boolean pull = false;
    // Components over a symmetric graph take their first split here even when the device's
    // loop takes the run from the start: union-find may then replace the rounds.
    // And so does a run from every vertex: the device's loop reads its far list.
    boolean splitHere = settings.components() && settings.symmetric() || all;
    while (rounds < settings.maxRounds()) {
      // A queue that ran dry stays here: its split or the end is the host's one read.
      boolean small = rounds > 0 && n > 0 && n < handOverItems;
      if ((rounds >= handOver || small) && !pull && !(first && splitHere)) {
        Loop rest = runOnDevice(new State(in, fin, n, bound, prevBound, first, rounds), regions,
            settings, view);
        return finish(new Loop(rest.rounds(), rest.converged(), kernelNanos + rest.kernelNanos()));
      }
      if (n == 0) {
        count.download(Pointer.to(words), 12);
        int farN = words[1 + fin];
        if (farN == 0) {
          break;
        }
        if (!first) {
          // The next bucket starts at the lowest value listed far since the last split (kept
          // by it or deferred by the rounds): empty buckets are skipped in one step.
          long[] min = new long[1];
          farMin.download(Pointer.to(min), 8);
          prevBound = bound;
          bound = Math.max(bound, Double.longBitsToDouble(min[0])) + width;
        }
        // The first split of a run from every vertex reads no list (far_in null: index i is v).
        boolean identity = first && all;
        first = false;
        nextStamp();
        nextFarEpoch();
        // The queue's length and the other far list's to 0; the lowest value listed far to +inf.
        count.uploadAtByte(0, Pointer.to(new int[] {0}), 4);
        count.uploadAtByte(4L * (2 - fin), Pointer.to(new int[] {0}), 4);
        count.uploadAtByte(16, Pointer.to(new int[] {0}), 4);
        farMin.upload(Pointer.to(new long[] {Double.doubleToRawLongBits(Double.POSITIVE_INFINITY)}),
            8);
        byte[] args = ByteBuffer.allocate(SPLIT_ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
            .putLong(identity ? 0L : far[fin].address()).putLong(far[1 - fin].address())
            .putLong(count.address() + 4L * (2 - fin)).putLong(farStamps.address())
            .putLong(queues[in].address()).putLong(count.address()).putLong(stamps.address())
            .putLong(farMin.address()).putLong(storeRegion(regions.offsets()))
            .putLong(storeRegion(regions.values())).putDouble(bound).putDouble(prevBound)
            .putInt(farN).putInt(farEpoch).putInt(stamp).putInt(0)
            .putLong(count.address() + 16).array();
        int blocks = (farN + SPLIT_THREADS - 1) / SPLIT_THREADS;
        Pointer params = Pointer.to(Pointer.to(args));
        kernelNanos += engine.timed(() -> CudaErrors.call("launch graph relaxation split",
            () -> cuLaunchKernel(split, blocks, 1, 1, SPLIT_THREADS, 1, 1, 0, null, params,
                null)));
        fin = 1 - fin;
        count.download(Pointer.to(words), 20);
        n = words[0];
        pull = settings.components() && settings.symmetric() && rounds == 0
            && words[4] == verticesWithEdges;
        if (pull && unionFind()) {
          return finish(new Loop(1, true, kernelNanos + components(regions, view)));
        }
        continue;
      }
      nextStamp();
      count.uploadAtByte(0, Pointer.to(new int[] {0}), 4);
      byte[] args = ByteBuffer.allocate(ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
          .putLong(queues[in].address()).putLong(queues[1 - in].address())
          .putLong(count.address()).putLong(stamps.address()).putLong(counters.address())
          .putLong(stats.address()).putLong(changed.address()).putLong(far[fin].address())
          .putLong(count.address() + 4L * (1 + fin)).putLong(farStamps.address())
          .putLong(farMin.address()).putDouble(bound).putInt(n).putInt(stamp)
          .putInt(regions.values()).putInt(regions.targets()).putInt(regions.weights())
          .putInt(regions.offsets())
          .putInt(settings.components() ? 1 : 0).putInt(settings.weighted() ? 1 : 0)
          .putInt(settings.maxRetries()).putInt(farEpoch).putInt(pull ? 1 : 0)
          .putInt(0).array();  // no hops within a round: see chainHops
      int blocks = (int) Math.min(maxBlocks, ((long) n + warpsPerBlock - 1) / warpsPerBlock);
      Pointer params = Pointer.to(Pointer.to(view), Pointer.to(args));
      long nanos = engine.timed(() -> CudaErrors.call("launch graph relaxation round",
          () -> cuLaunchKernel(round, blocks, 1, 1, tpb, 1, 1, 0, null, params, null)));
      kernelNanos += nanos;
      int items = n;
      count.download(Pointer.to(words), 4);
      n = words[0];
      if (LOG.isDebugEnabled()) {
        LOG.debug("round {}{}: {} items in {} us, {} items next", rounds, pull ? " (pull)" : "",
            items, nanos / 1000, n);
      }
      pull = false;
      in = 1 - in;
      rounds++;
    }
    boolean converged = n == 0 && farLength(fin) == 0;
    return finish(new Loop(rounds, converged, kernelNanos));
  }

  /** What a run's rounds came to: their number, whether they converged, their GPU time. */
  private record Loop(int rounds, boolean converged, long kernelNanos) {}

  /**
   * After how many rounds the device's loop takes a run over ({@link Integer#MAX_VALUE}: never).
   * {@code gstm.graph.loop}: {@code auto} (the default) after {@value #HAND_OVER_ROUNDS};
   * {@code device} from the start (one cooperative launch for the whole run); {@code host} never
   * (a launch per round and split, the host reading each queue's length). On the H200 the
   * hand-over took a road network's run from 671 to 307 ms and a grid's from 163 to 57 ms; run
   * on the device from the start, R-MAT's few large rounds took 6-13% longer
   * (docs/benchmark-log.md).
   */
  private int handOverAfter() {
    String loop = System.getProperty("gstm.graph.loop", "auto");
    int after = switch (loop) {
      case "device" -> 0;
      case "host" -> Integer.MAX_VALUE;
      case "auto" -> HAND_OVER_ROUNDS;
      default -> throw new IllegalArgumentException("gstm.graph.loop: expected auto, device or "
          + "host, got " + loop);
    };
    return after == Integer.MAX_VALUE || loopBlocks() == 0 ? Integer.MAX_VALUE : after;
  }

  /**
   * A queue shorter than this, after the first round, hands the run over to the device's loop
   * at once: a small round costs its launch and the host's read of the next length (R-MAT's
   * last rounds of a few thousand items took 16-36 us each on the H200, against a grid sync).
   * {@code gstm.graph.handOverItems}, by default the loop's resident warps; 0: only after
   * {@value #HAND_OVER_ROUNDS} rounds.
   */
  private int handOverItems() {
    int items = Integer.getInteger("gstm.graph.handOverItems", loopBlocks() * (LOOP_THREADS / 32));
    if (items < 0) {
      throw new IllegalArgumentException("gstm.graph.handOverItems: expected 0 or more, got "
          + items);
    }
    return items;
  }

  /**
   * The ring's capacity when the device loop drains each bucket without rounds, else 0: rounds.
   * By default ({@code -Dgstm.graph.drain=bucket}) it drains shortest paths on a graph whose
   * vertices' edges fit one work item (a grid, a road network): every warp takes the next items
   * as they come instead of waiting at a grid sync for the round's longest chain of hops (on the
   * H200 the 2^20 grid took 16.05 ms of kernel against 17.3 in rounds, the road-like grid 2^24
   * 83.6 against 83.9: docs/benchmarks.md).
   * {@code -Dgstm.graph.drain=rounds} keeps the rounds; components always run them.
   */
  private int drainCapacity(Settings settings) {
    return drainsBuckets() && !settings.components() ? ringCapacity : 0;
  }

  /**
   * The ring a drained bucket queues through, given the graph's work items and its vertices with
   * edges: every vertex with edges when each one's edges fit one item (a vertex is in the ring at
   * most once until a warp takes it), else 0: the graph runs rounds.
   */
  static int ringCapacity(long items, int withEdges) {
    return items == withEdges && items > 0 ? (int) items : 0;
  }

  /** {@link #ringCapacity(long, int)} of the graph of CSR {@code offsets}, counted on every core. */
  static int ringCapacity(int[] offsets) {
    int vertices = Math.max(0, offsets.length - 1);
    long items = IntStream.range(0, vertices).parallel()
        .mapToLong(v -> (offsets[v + 1] - offsets[v] + CHUNK_EDGES - 1) / CHUNK_EDGES).sum();
    int withEdges = (int) IntStream.range(0, vertices).parallel()
        .filter(v -> offsets[v + 1] > offsets[v]).count();
    return ringCapacity(items, withEdges);
  }

  /**
   * Whether a device loop may drain its buckets without rounds ({@code gstm.graph.drain}:
   * {@code bucket}, the default, or {@code rounds}); the program relaxations' loop too.
   *
   * @throws IllegalArgumentException if the property is neither
   */
  static boolean drainsBuckets() {
    String drain = System.getProperty("gstm.graph.drain", "bucket");
    if (!drain.equals("rounds") && !drain.equals("bucket")) {
      throw new IllegalArgumentException("gstm.graph.drain: expected rounds or bucket, got "
          + drain);
    }
    return drain.equals("bucket");
  }

  /**
   * Hops a warp follows within a round of the device's loop: a vertex it lowers within the
   * bucket (with at most {@value #CHUNK_EDGES} edges) is relaxed from by the same warp in the
   * same round, up to this many times, instead of a round later. {@code gstm.graph.chain},
   * default {@value #DEFAULT_CHAIN_HOPS}; 0: every lowered vertex waits for the next round. On
   * the H200 (docs/benchmark-log.md) 4 took a 1,024 x 1,024 grid from 46 to 35 ms of kernel and
   * the road-like grid of 2^24 cells from 207 to 159 ms; 16 and more were slower again (a
   * round waits for its longest chain); with the commits' cheaper fences, 6 beat 4 by 1-4% at
   * either bucket width (2026-12-01); with one-word transactions 8 beat 6 on the grid by 1.6%
   * (17.21 against 17.48 ms) and tied on the road grid, where 10 was slower (85.3 against 84.0
   * ms; 2026-12-02). The host's rounds (R-MAT's few large ones, where 8 hops took SSSP from 10.5
   * to 12.3 ms) follow none.
   */
  private static int chainHops() {
    int hops = Integer.getInteger("gstm.graph.chain", DEFAULT_CHAIN_HOPS);
    if (hops < 0 || hops > 1024) {
      throw new IllegalArgumentException("gstm.graph.chain: expected 0..1024, got " + hops);
    }
    return hops;
  }

  /**
   * Whether components over every vertex of a symmetric graph run as union-find ({@link
   * CudaComponents}) rather than rounds. {@code gstm.graph.components}: {@code union-find} (the
   * default) or {@code rounds}. Same values either way; on R-MAT 2^22 with 16 edges a vertex the
   * rounds took 7.7 ms of kernel on the H200 (docs/benchmarks.md has union-find's).
   */
  private static boolean unionFind() {
    String how = System.getProperty("gstm.graph.components", "union-find");
    return switch (how) {
      case "union-find" -> true;
      case "rounds" -> false;
      default -> throw new IllegalArgumentException("gstm.graph.components: expected union-find "
          + "or rounds, got " + how);
    };
  }

  /** Components by union-find, with this run's changed bits and statistics; its GPU time. */
  private long components(Regions regions, byte[] view) {
    if (components == null) {
      components = new CudaComponents(engine, vertexCount);
    }
    CudaComponents.Ran ran = components.run(new CudaComponents.Target(view,
        storeRegion(regions.offsets()), storeRegion(regions.targets()), regions.values(),
        changed.address(), counters.address(), stats.address()));
    LOG.debug("components by union-find in {} us (root {} skipped its edges)",
        ran.kernelNanos() / 1000, ran.skippedRoot());
    return ran.kernelNanos();
  }

  /** Where the host's loop stands when it hands the run over. */
  private record State(int in, int fin, int n, double bound, double prevBound, boolean first,
      int rounds) {}

  /** Blocks of the loop kernels that fit on the device at once (0: they cannot run). */
  private int loopBlocks() {
    if (loopBlocks < 0) {
      int[] perSm = new int[1];
      int[] drainPerSm = new int[1];
      CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
          () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(drainPerSm,
              engine.function(MODULE, DRAIN_SYMBOL), LOOP_THREADS, 0));
      CUfunction f = engine.function(MODULE, LOOP_SYMBOL);
      CudaErrors.call("cuOccupancyMaxActiveBlocksPerMultiprocessor",
          () -> cuOccupancyMaxActiveBlocksPerMultiprocessor(perSm, f, LOOP_THREADS, 0));
      // One grid for both: the loop's rounds and the drain's buckets run the same launches.
      loopBlocks = Math.min(perSm[0], drainPerSm[0]) * engine.multiprocessors();
    }
    return loopBlocks;
  }

  /**
   * The rest of a run, from where the host's loop stands, in one cooperative launch of {@code
   * gstm_graph_relax_loop}: the splits and rounds of {@link #run} with a grid sync between steps
   * instead of a launch and a host round trip (a road network's 10,943 rounds cost more on the
   * host than on the GPU).
   */
  private Loop runOnDevice(State at, Regions regions, Settings settings, byte[] view) {
    // The loop's stamps and far epochs are above the last ones: room for every step.
    if ((long) stamp + 2L * settings.maxRounds() + 2 > Integer.MAX_VALUE) {
      stamps.zero();
      stamp = 0;
    }
    if ((long) farEpoch + settings.maxRounds() + 2 > Integer.MAX_VALUE) {
      farStamps.zero();
      farEpoch = 0;
    }
    int drain = drainCapacity(settings);
    int[] start = new int[LOOP_WORDS];
    start[0] = at.n();
    loopWords.upload(Pointer.to(start), 4L * LOOP_WORDS);
    byte[] args = ByteBuffer.allocate(LOOP_ARGS_BYTES).order(ByteOrder.LITTLE_ENDIAN)
        .putLong(queues[0].address()).putLong(queues[1].address())
        .putLong(far[0].address()).putLong(far[1].address())
        .putLong(count.address() + 4).putLong(loopWords.address())
        .putLong(stamps.address()).putLong(farStamps.address())
        .putLong(counters.address()).putLong(stats.address()).putLong(changed.address())
        .putLong(farMin.address())
        .putDouble(at.bound()).putDouble(at.prevBound()).putDouble(settings.bucketWidth())
        .putInt(settings.maxRounds()).putInt(stamp).putInt(farEpoch).putInt(at.rounds())
        .putInt(at.in()).putInt(at.fin()).putInt(at.first() ? 1 : 0).putInt(chainHops())
        .putInt(regions.values()).putInt(regions.targets()).putInt(regions.weights())
        .putInt(regions.offsets())
        .putInt(settings.components() ? 1 : 0).putInt(settings.weighted() ? 1 : 0)
        .putInt(settings.maxRetries()).putInt(settings.symmetric() ? 1 : 0)
        .putInt(verticesWithEdges).putInt(drain).array();
    CUfunction loop = engine.function(MODULE, drain != 0 ? DRAIN_SYMBOL : LOOP_SYMBOL);
    int blocks = loopBlocks();
    Pointer params = Pointer.to(Pointer.to(view), Pointer.to(args));
    long nanos = engine.timed(() -> CudaErrors.call("launch graph relaxation loop",
        () -> cuLaunchCooperativeKernel(loop, blocks, 1, 1, LOOP_THREADS, 1, 1, 0, null,
            params)));
    int[] words = new int[LOOP_WORDS];
    loopWords.download(Pointer.to(words), 4L * LOOP_WORDS);
    int rounds = words[4];
    int fin = words[5];
    stamp = words[7];
    farEpoch = words[8];
    boolean converged = words[6] == 0 && farLength(fin) == 0;
    LOG.debug("relaxation on the device: {} rounds in {} us on {} blocks", rounds,
        nanos / 1000, blocks);
    return new Loop(rounds, converged, nanos);
  }

  /** The run's statistics, read from the device. */
  private RoundStats finish(Loop loop) {
    long[] c = new long[Counter.COUNT];
    counters.download(Pointer.to(c), 8L * c.length);
    long[] s = new long[STATS];
    stats.download(Pointer.to(s), 8L * STATS);
    long aborts = 0;
    for (Counter k : Counter.values()) {
      if (k.isAbort()) {
        aborts += c[k.ordinal()];
      }
    }
    if (LOG.isDebugEnabled()) {
      StringBuilder counts = new StringBuilder();
      for (Counter k : Counter.values()) {
        if (c[k.ordinal()] != 0) {
          counts.append(counts.isEmpty() ? "" : ", ").append(k).append(' ')
              .append(c[k.ordinal()]);
        }
      }
      LOG.debug("run: {} rounds, counters: {}", loop.rounds(), counts);
    }
    TxCounts tx = new TxCounts(s[0], c[Counter.COMMITS.ordinal()], aborts);
    return new RoundStats(loop.rounds(), loop.converged(), tx, s[1], s[2], loop.kernelNanos());
  }

  private int farLength(int fin) {
    int[] words = new int[3];
    count.download(Pointer.to(words), 12);
    return words[1 + fin];
  }

  private long storeRegion(int region) {
    return store.regions[region].address();
  }

  private void nextStamp() {
    if (stamp == Integer.MAX_VALUE) {
      stamps.zero();
      stamp = 0;
    }
    stamp++;
  }

  private void nextFarEpoch() {
    if (farEpoch == Integer.MAX_VALUE) {
      farStamps.zero();
      farEpoch = 0;
    }
    farEpoch++;
  }

  /**
   * The vertices the last {@link #run} lowered, ascending: read from a bit per vertex that its
   * commits set, rather than by comparing every value before and after on the host.
   */
  public int[] changedVertices() {
    open.check();
    if (vertexCount == 0) {
      return new int[0];
    }
    engine.bind();
    return changedList();
  }

  /**
   * The bits behind {@link #changedVertices}, a bit per vertex (bit {@code v & 31} of word {@code
   * v >> 5}): what a caller keeps to list them later, after the next run has cleared them.
   */
  public int[] changedBits() {
    open.check();
    int[] words = new int[(vertexCount + 31) / 32];
    if (words.length > 0) {
      engine.bind();
      // Through the pinned buffer even below its usual threshold: 512 KB at 2^22 vertices went
      // straight (pageable) in 0.2-0.8 ms, paid by the relaxer's next run.
      engine.staging().download(changed, 4L * words.length, 4,
          (b, from, n) -> b.asIntBuffer().get(words, from, n));
    }
    return words;
  }

  /**
   * The changed bits as a list, made on the device in three launches (each block's count, their
   * first places, each word's vertices at its place) and read back through the staging buffer:
   * from the bits on the host, one pass over 2.4 M set bits took 3-19 ms (the JVM's loop not
   * yet compiled in the first calls of a process).
   */
  private int[] changedList() {
    int words = (vertexCount + 31) / 32;
    int blocks = (words + LIST_THREADS - 1) / LIST_THREADS;
    if (listFirsts == null) {
      DeviceBuffer[] made = DeviceBuffer.allocate(false, 4L * (blocks + 1), 4L * vertexCount);
      listFirsts = made[0];
      list = made[1];
    }
    long bits = changed.address();
    long firsts = listFirsts.address();
    CUfunction count = engine.function(MODULE, LIST_COUNT_SYMBOL);
    CUfunction scan = engine.function(MODULE, LIST_SCAN_SYMBOL);
    CUfunction write = engine.function(MODULE, LIST_WRITE_SYMBOL);
    Pointer countParams = Pointer.to(Pointer.to(new long[] {bits}), Pointer.to(new int[] {words}),
        Pointer.to(new long[] {firsts}));
    Pointer scanParams = Pointer.to(Pointer.to(new long[] {firsts}),
        Pointer.to(new int[] {blocks}));
    Pointer writeParams = Pointer.to(Pointer.to(new long[] {bits}), Pointer.to(new int[] {words}),
        Pointer.to(new long[] {firsts}), Pointer.to(new long[] {list.address()}));
    CudaErrors.call("launch changed list count", () -> cuLaunchKernel(count, blocks, 1, 1,
        LIST_THREADS, 1, 1, 0, null, countParams, null));
    CudaErrors.call("launch changed list scan", () -> cuLaunchKernel(scan, 1, 1, 1,
        LIST_THREADS, 1, 1, 0, null, scanParams, null));
    CudaErrors.call("launch changed list write", () -> cuLaunchKernel(write, blocks, 1, 1,
        LIST_THREADS, 1, 1, 0, null, writeParams, null));
    int[] length = new int[1];
    listFirsts.downloadAtByte(4L * blocks, Pointer.to(length), 4);
    int[] out = new int[length[0]];
    engine.staging().downloadArray(list, 4L * out.length, 4, Pointer.to(out),
        (b, from, n) -> b.asIntBuffer().get(out, from, n));
    return out;
  }

  /**
   * Whether any value of region {@code valuesRegion} (FLOAT64, one per vertex) is NaN: checked
   * on the device, where the values were just uploaded (a pass on the host cost milliseconds).
   */
  public boolean anyNaN(int valuesRegion) {
    open.check();
    if (vertexCount == 0) {
      return false;
    }
    engine.bind();
    count.uploadAtByte(12, Pointer.to(new int[] {0}), 4);
    CUfunction find = engine.function(MODULE, NAN_SYMBOL);
    int blocks = (vertexCount + SPLIT_THREADS - 1) / SPLIT_THREADS;
    Pointer params = Pointer.to(Pointer.to(new long[] {storeRegion(valuesRegion)}),
        Pointer.to(new int[] {vertexCount}), Pointer.to(new long[] {count.address() + 12}));
    CudaErrors.call("launch graph NaN check",
        () -> cuLaunchKernel(find, blocks, 1, 1, SPLIT_THREADS, 1, 1, 0, null, params, null));
    int[] found = new int[1];
    count.downloadAtByte(12, Pointer.to(found), 4);
    return found[0] != 0;
  }

  @Override
  public void close() {
    open.close();
    engine.bind();
    if (components != null) {
      components.close();
    }
    List<DeviceBuffer> held = new java.util.ArrayList<>(List.of(queues[0], queues[1], far[0],
        far[1], count, stamps, farStamps, farMin, counters, stats, changed, loopWords));
    if (listFirsts != null) {
      held.add(listFirsts);
      held.add(list);
    }
    engine.bufferPool().giveAll(held);
  }
}
