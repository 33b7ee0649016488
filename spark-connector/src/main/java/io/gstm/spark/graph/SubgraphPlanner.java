package io.gstm.spark.graph;

import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorCoalescer;
import io.gstm.spark.exec.ExecutorSpread;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.IndexPartitioner;
import io.gstm.spark.exec.TaskErrors;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Tuple2;

/**
 * Planning, third part: the {@code p} subgraphs of a vertex cut. The edges of each input
 * partition, read and checked by {@link EdgeInput}, either stay where they are read (fewer
 * subgraphs than input partitions merge neighbouring ones once the input's own tasks have read
 * them in parallel, more spread the edges round-robin)
 * or move to the owner of their source by ranges of ids ({@link EdgePlacement} decides); the
 * extra vertices (the source, {@code setVertices}) go to their owner. Each subgraph is then
 * built once ({@link LocalGraph}) and cached by the caller across supersteps.
 */
final class SubgraphPlanner {
  private static final Logger LOG = LoggerFactory.getLogger(SubgraphPlanner.class);

  private final EdgeInput input;
  private final long source;
  private final int partitions;
  private final boolean weighted;
  private final String partitioning;
  private final GstmSettings settings;
  /**
   * One subgraph per executor engine: its task is the only one of its stage on the executor,
   * so a large subgraph is built on the executor's cores ({@link ParallelBuild}). With one per
   * partition every core has a task of its own, and the sequential build does less work.
   */
  private final boolean perEngine;
  /** The run the subgraphs are built for: a GPU build leaves its relaxer cached for it. */
  private final long run;
  private EdgePlacement.Decision decision;
  /** The input's edges, cached while they are sampled and placed; null when not cached. */
  private JavaRDD<EdgeChunk> read;

  /**
   * @param source the source vertex of shortest paths, else -1
   * @param partitioning "auto", "input" or "range" ({@code spark.gstm.graph.partitioning})
   */
  SubgraphPlanner(EdgeInput input, long source, int partitions, boolean weighted,
      String partitioning, GstmSettings settings, boolean perEngine, long run) {
    this.run = run;
    this.perEngine = perEngine;
    this.input = input;
    this.source = source;
    this.partitions = partitions;
    this.weighted = weighted;
    this.partitioning = partitioning;
    this.settings = settings;
  }

  /**
   * Drops the input's edges kept for sampling and placing; call once the subgraphs are
   * computed and cached.
   */
  void release() {
    if (read != null) {
      read.unpersist(false);
      read = null;
    }
  }

  /** How the edges were placed; set by {@link #build}. */
  EdgePlacement.Decision decision() {
    return decision;
  }

  /**
   * The subgraphs, not yet computed (except the sample of the input that placing by range
   * needs: a job whose bad-input errors are rethrown as IllegalArgumentExceptions).
   */
  JavaRDD<LocalGraph> build() {
    int p = partitions;
    boolean w = weighted;
    boolean undirected = input.kind == RelaxationKind.CONNECTED_COMPONENTS;
    JavaRDD<EdgeChunk> slices = input.slices(w);
    if (perEngine) {
      // A subgraph per executor is made of the edges it read: each reads an equal share.
      slices = ExecutorSpread.evenly(slices);
    }
    int inputs = slices.getNumPartitions();
    boolean sampled = partitions > 1 && !partitioning.equals("input");
    if (sampled || partitions < inputs) {
      // Read once (the input may be a file, not a cache): sampled, then placed; or read in
      // parallel before being merged.
      slices.persist(StorageLevel.MEMORY_AND_DISK());
      read = slices;
    }
    try {
      decision = decide(slices);
      if (!sampled && partitions < inputs) {
        readInParallel(slices);
      }
    } catch (RuntimeException e) {
      release();
      throw e;
    }
    LOG.debug("gstm relaxation: {} subgraphs, {}", p, decision.why());
    VertexPlacement placement = decision.placement();
    // Each partition's chunks, in input order, handed to the build as they are: copying them
    // into one first (67 MB for 4.2 M weighted edges) cost a whole pass over the edges.
    JavaRDD<List<EdgeChunk>> local;
    if (decision.byRange() && p == inputs) {
      // The edges whose source this partition owns stay; only the others cross the shuffle.
      JavaRDD<EdgeChunk> kept = slices.mapPartitionsWithIndex(
          (i, it) -> List.of(owned(it.next(), placement, i, w)).iterator(), true);
      JavaRDD<List<EdgeChunk>> moved = gather(JavaPairRDD.fromJavaRDD(
          slices.mapPartitionsWithIndex((i, it) -> bySource(it.next(), placement, i, w), true)),
          p);
      local = kept.zipPartitions(moved, (ki, mi) -> {
        List<EdgeChunk> chunks = new ArrayList<>();
        ki.forEachRemaining(chunks::add);
        mi.forEachRemaining(chunks::addAll);
        return List.of(chunks).iterator();
      });
    } else if (decision.byRange()) {
      local = gather(slices.flatMapToPair(c -> bySource(c, placement, -1, w)), p);
    } else if (p <= inputs) {
      // No shuffle: neighbouring partitions cached on one executor are merged there, reading
      // the chunks the input's tasks left (no copy; none moves between executors).
      JavaRDD<EdgeChunk> merged = ExecutorCoalescer.coalesce(slices, p);
      local = merged.mapPartitions(it -> List.of(list(it)).iterator(), true);
    } else {
      local = gather(slices.flatMapToPair(c -> spread(c, p)), p);
    }
    GstmSettings s = settings;
    long src = source;
    long r = run;
    RelaxationKind k = input.kind;
    int parallelEdges = perEngine ? ParallelBuild.MIN_EDGES : Integer.MAX_VALUE;
    JavaRDD<List<Long>> extraIds = input.vertexIds();
    if (extraIds == null) {
      return local.mapPartitionsWithIndex((i, it) -> {
        List<EdgeChunk> chunks = it.hasNext() ? new ArrayList<>(it.next()) : new ArrayList<>();
        if (src >= 0 && placement.owner((int) src) == i) {
          EdgeChunk c = new EdgeChunk(w); // not added to a cached chunk of the input
          c.addVertex((int) src);
          chunks.add(c.trim());
        }
        return List.of(build(i, p, chunks, w, undirected, s, parallelEdges, r, k))
            .iterator();
      }, true);
    }
    List<Long> extra = new ArrayList<>();
    if (source >= 0) {
      extra.add(source);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(
        input.edges.sparkSession().sparkContext());
    JavaPairRDD<Integer, EdgeChunk> more = jsc.parallelize(extra, 1)
        .mapPartitionsToPair(it -> vertexChunks(it, placement, w))
        .union(extraIds.flatMapToPair(ids -> vertexChunks(ids.iterator(), placement, w)))
        .partitionBy(new IndexPartitioner(p));
    return local.zipPartitions(more.values(), (ei, vi) -> {
      List<EdgeChunk> chunks = new ArrayList<>();
      ei.forEachRemaining(chunks::addAll);
      vi.forEachRemaining(chunks::add);
      int i = TaskContext.getPartitionId();
      return List.of(build(i, p, chunks, w, undirected, s, parallelEdges, r, k))
            .iterator();
    });
  }

  private EdgePlacement.Decision decide(JavaRDD<EdgeChunk> slices) {
    if (partitions == 1 || partitioning.equals("input")) {
      return EdgePlacement.input(partitions,
          partitions == 1 ? "one subgraph" : "edges stay where they are read (input requested)");
    }
    List<EdgePlacement.Sample> samples;
    try {
      samples = slices.map(EdgePlacement::sample).collect();
    } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
      throw TaskErrors.badInput(e);
    }
    return EdgePlacement.decide(samples, partitions, partitioning);
  }

  /**
   * Reads and checks the input's edges in its own tasks, one per input partition, into the
   * cache, so that merging them into fewer subgraphs does not read the whole input in one task
   * (rows to arrays is the part that scales with cores). Bad values fail here, as an
   * IllegalArgumentException.
   */
  private static void readInParallel(JavaRDD<EdgeChunk> slices) {
    long t0 = System.nanoTime();
    long edges;
    try {
      edges = slices.map(c -> (long) c.size()).reduce(Long::sum);
    } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
      throw TaskErrors.badInput(e);
    }
    LOG.debug("gstm relaxation: read {} edges in {} tasks in {} ms", edges,
        slices.getNumPartitions(), (System.nanoTime() - t0) / 1_000_000);
  }

  /** The chunks of each partition, in order, from chunks keyed by partition index. */
  private static JavaRDD<List<EdgeChunk>> gather(JavaPairRDD<Integer, EdgeChunk> keyed, int p) {
    return keyed.partitionBy(new IndexPartitioner(p)).mapPartitions(it -> {
      List<EdgeChunk> chunks = new ArrayList<>();
      it.forEachRemaining(t -> chunks.add(t._2()));
      return List.of(chunks).iterator();
    }, true);
  }

  private static <T> List<T> list(Iterator<T> it) {
    List<T> out = new ArrayList<>();
    it.forEachRemaining(out::add);
    return out;
  }

  /** Splits a slice's edges by the owner of their source, leaving out those of {@code keep}. */
  private static Iterator<Tuple2<Integer, EdgeChunk>> bySource(EdgeChunk c,
      VertexPlacement placement, int keep, boolean weighted) {
    EdgeChunk[] out = new EdgeChunk[placement.partitions()];
    for (int i = 0; i < c.size(); i++) {
      int q = placement.owner(c.src[i]);
      if (q != keep) {
        chunk(out, q, weighted).addEdge(c.src[i], c.dst[i], weighted ? c.w[i] : 1.0);
      }
    }
    return emit(out);
  }

  /** The edges of a slice whose source partition {@code q} owns. */
  private static EdgeChunk owned(EdgeChunk c, VertexPlacement placement, int q,
      boolean weighted) {
    EdgeChunk out = new EdgeChunk(weighted);
    for (int i = 0; i < c.size(); i++) {
      if (placement.owner(c.src[i]) == q) {
        out.addEdge(c.src[i], c.dst[i], weighted ? c.w[i] : 1.0);
      }
    }
    return out.trim();
  }

  /** Splits a slice's edges round-robin over {@code p} partitions (more partitions than input). */
  private static Iterator<Tuple2<Integer, EdgeChunk>> spread(EdgeChunk c, int p) {
    boolean weighted = c.w != null;
    EdgeChunk[] out = new EdgeChunk[p];
    for (int i = 0; i < c.size(); i++) {
      chunk(out, i % p, weighted).addEdge(c.src[i], c.dst[i], weighted ? c.w[i] : 1.0);
    }
    return emit(out);
  }

  private static EdgeChunk chunk(EdgeChunk[] out, int q, boolean weighted) {
    if (out[q] == null) {
      out[q] = new EdgeChunk(weighted);
    }
    return out[q];
  }

  private static Iterator<Tuple2<Integer, EdgeChunk>> emit(EdgeChunk[] out) {
    List<Tuple2<Integer, EdgeChunk>> list = new ArrayList<>();
    for (int q = 0; q < out.length; q++) {
      if (out[q] != null) {
        list.add(new Tuple2<>(q, out[q].trim()));
      }
    }
    return list.iterator();
  }

  private static Iterator<Tuple2<Integer, EdgeChunk>> vertexChunks(Iterator<Long> ids,
      VertexPlacement placement, boolean weighted) {
    EdgeChunk[] out = new EdgeChunk[placement.partitions()];
    while (ids.hasNext()) {
      int v = (int) (long) ids.next();
      chunk(out, placement.owner(v), weighted).addVertex(v);
    }
    return emit(out);
  }

  /**
   * Whether a subgraph built in this task numbers its vertices by degree
   * ({@code spark.gstm.graph.vertexOrder}; "auto": unless this executor's tasks run on a GPU).
   */
  static boolean byDegree(GstmSettings settings) {
    return switch (settings.graph().vertexOrder()) {
      case "degree" -> true;
      case "input" -> false;
      default -> !ExecutorEngines.gpuUsable(settings);
    };
  }

  private static LocalGraph build(int i, int p, List<EdgeChunk> chunks, boolean weighted,
      boolean undirected, GstmSettings settings, int parallelEdges, long run,
      RelaxationKind kind) {
    long t0 = System.nanoTime();
    if (chunks.isEmpty()) {
      chunks.add(new EdgeChunk(weighted)); // no edges: still weighted or not as asked
    }
    // A subgraph per engine is its executor's only task: on a GPU its CSR is built there.
    ParallelBuild.CsrBuilder device = parallelEdges == Integer.MAX_VALUE
        ? ParallelBuild.ON_HOST
        : DeviceCsrBuild.forTask(settings, new DeviceCsrBuild.Resident(run, i, kind));
    LocalGraph g = LocalGraph.build(i, p, chunks, undirected, byDegree(settings), parallelEdges,
        ParallelBuild.PIECE_EDGES, device);
    LOG.debug("gstm relaxation: subgraph {}: {} vertices, {} edges, built in {} ms", i, g.size(),
        g.edgeCount(), (System.nanoTime() - t0) / 1_000_000);
    return g;
  }
}
