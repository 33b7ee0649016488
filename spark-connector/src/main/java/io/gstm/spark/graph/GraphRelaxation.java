package io.gstm.spark.graph;


import io.gstm.core.batch.TxCounts;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.IndexPartitioner;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskErrors;
import io.gstm.spark.exec.TaskHub;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.LoggerFactory;
import scala.Function1;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Shortest paths and connected components over an edges DataFrame, subgraph-centric over a
 * vertex cut: the edges stay in the partitions they are read in (only when more partitions than
 * the input has are asked for are they spread round-robin), or, when a sample shows that vertex
 * ids carry locality the input order lacks, go to the owner of their source by ranges of ids
 * ({@link #setPartitioning}, {@link EdgePlacement}); each
 * partition's subgraph holds its edges and every vertex they touch, and a vertex that several
 * partitions touch is replicated in each ({@link Replicas}, a bitmap of ids per partition,
 * broadcast once). Each superstep relaxes every partition's subgraph to its local fixpoint with
 * transactions on the executor's engine ({@link GraphRelaxer}); then only the replicated
 * vertices that improved go to the other partitions that hold them, which take the min and
 * relax again from the vertices that improved, until no partition sends anything. The exchange
 * is min-combined either way it travels: above {@code spark.gstm.graph.driverExchangeLimit}
 * updates a superstep it crosses a shuffle and each receiving partition takes the min; up to it
 * the driver, which collects every superstep's counters anyway, collects the updates with them,
 * takes the min per vertex and ships them with the next superstep (in its tasks when they are few,
 * else in a broadcast that each executor reads once).
 * That path exists because the late supersteps of a run send few updates and would otherwise
 * cost two stages each (the shuffle's and the relaxation's), mostly Spark's per-stage overhead.
 * Each vertex is reported once, by the lowest partition that holds it.
 *
 * <pre>{@code
 * RelaxationResult r = GraphRelaxation.of(edges).shortestPaths(0).setMaxSupersteps(50).run();
 * r.values();   // (id: long, value: double), +infinity where unreachable
 * r.report();   // supersteps, commits, aborts, kernel time, engine
 * }</pre>
 *
 * <p>Input: integral {@code src} and {@code dst} columns (ids in {@code [0, 2^31 - 1]}) and, for
 * shortest paths, an optional numeric {@code weight} column (used when present; non-negative,
 * finite, not null; absent means every edge weighs 1). Self-loops are dropped and of duplicate
 * edges the lightest is kept: neither changes a result. Components treat edges as undirected and
 * label each vertex with the smallest id of its component. The vertices are those of the edges,
 * of {@link #setVertices} and the source (these extra ids go to their owner: the range that
 * holds them, else partition {@code id mod P}).
 * Bad input is an IllegalArgumentException naming the column or parameter, raised by
 * {@link #run()} before the relaxation starts: schema problems before any job; value problems
 * (null ids or weights, negative or non-finite weights, ids out of range) by the first pass over
 * the edges, which checks every row as it reads it (a task's error is rethrown on the driver as
 * that IllegalArgumentException). A cached DataFrame with primitive columns is read from its
 * column batches, without rows.
 *
 * <p>Engine settings come from the session's {@code spark.gstm.*} configuration
 * ({@link GstmConf}); setters here override them for one run. This class is the API and the
 * driver's superstep loop; {@link EdgeInput} reads the edges, {@link SubgraphPlanner} places
 * them and builds the subgraphs, {@link Supersteps} is what the executors do.
 */
public final class GraphRelaxation {
  private static final Logger LOG = LoggerFactory.getLogger(GraphRelaxation.class);
  private static final AtomicLong RUNS = new AtomicLong();
  /** Runs that read their edges from column batches (for tests). */
  static final AtomicLong COLUMNAR_READS = EdgeInput.COLUMNAR_READS;
  /** Boundary exchanges through the driver and through a shuffle (for tests). */
  static final AtomicLong DRIVER_EXCHANGES = new AtomicLong();
  static final AtomicLong SHUFFLE_EXCHANGES = new AtomicLong();
  /** Driver exchanges whose updates travelled in a broadcast (for tests). */
  static final AtomicLong BROADCAST_EXCHANGES = new AtomicLong();
  /** Times a run starts over after an executor's loss took supersteps' results with it. */
  static final int MAX_RESTARTS = 3;
  /** The largest supported vertex id. */
  public static final long MAX_VERTEX_ID = Integer.MAX_VALUE;

  private final Dataset<Row> edges;
  private RelaxationKind kind;
  private long source = -1;
  private String srcCol = "src";
  private String dstCol = "dst";
  private String weightCol = "weight";
  private boolean weightColExplicit;
  private Dataset<Row> vertices;
  private String vertexIdCol = "id";
  private Integer maxSupersteps;
  private Integer partitions;
  private EngineChoice engine;
  private Integer driverExchangeLimit;
  private String vertexOrder;
  private String partitioning;
  private String subgraphs;
  private String exchange;
  private long hubStartMillis = HubSupersteps.START_TIMEOUT_MILLIS;
  private int mailInTasks = Supersteps.MAIL_IN_TASKS;

  private GraphRelaxation(Dataset<Row> edges) {
    if (edges == null) {
      throw new IllegalArgumentException("edges: the edges DataFrame must not be null");
    }
    this.edges = edges;
  }

  /** A relaxation over {@code edges} (columns src, dst and optionally weight). */
  public static GraphRelaxation of(Dataset<Row> edges) {
    return new GraphRelaxation(edges);
  }

  /** Single-source shortest paths from vertex {@code source}. */
  public GraphRelaxation shortestPaths(long source) {
    if (source < 0 || source > MAX_VERTEX_ID) {
      throw new IllegalArgumentException("source: vertex id " + source
          + " is beyond the supported range [0, " + MAX_VERTEX_ID + "]");
    }
    this.kind = RelaxationKind.SHORTEST_PATHS;
    this.source = source;
    return this;
  }

  /** Connected components (edges undirected), labelled by their smallest vertex id. */
  public GraphRelaxation connectedComponents() {
    this.kind = RelaxationKind.CONNECTED_COMPONENTS;
    this.source = -1;
    return this;
  }

  public GraphRelaxation setSrcCol(String value) {
    this.srcCol = requireName("srcCol", value);
    return this;
  }

  public GraphRelaxation setDstCol(String value) {
    this.dstCol = requireName("dstCol", value);
    return this;
  }

  /**
   * The weight column of shortest paths (default "weight", used when present); it must then
   * exist. {@code null} ignores any weight: every edge weighs 1.
   */
  public GraphRelaxation setWeightCol(String value) {
    this.weightCol = value;
    this.weightColExplicit = true;
    return this;
  }

  /** Extra vertices (e.g. isolated ones), in column {@code idCol} of {@code vertices}. */
  public GraphRelaxation setVertices(Dataset<Row> vertices, String idCol) {
    this.vertices = vertices;
    this.vertexIdCol = requireName("vertices idCol", idCol);
    return this;
  }

  /** Extra vertices in column "id" of {@code vertices}. */
  public GraphRelaxation setVertices(Dataset<Row> vertices) {
    return setVertices(vertices, "id");
  }

  /** Superstep bound (default {@code spark.gstm.graph.maxSupersteps}). */
  public GraphRelaxation setMaxSupersteps(int value) {
    this.maxSupersteps = checked("maxSupersteps", value, 1, Integer.MAX_VALUE);
    return this;
  }

  /**
   * Subgraphs (default {@code spark.gstm.graph.partitions}, else the edges' partitions): fewer
   * than the edges' partitions merge neighbouring ones, more spread the edges round-robin. A
   * count given here keeps the per-partition cut under {@link #setSubgraphs} "auto"; "engines"
   * overrides it.
   */
  public GraphRelaxation setPartitions(int value) {
    this.partitions = checked("partitions", value, 1, 100_000);
    return this;
  }

  /**
   * Boundary updates of one superstep up to which they travel through the driver rather than a
   * shuffle (default {@code spark.gstm.graph.driverExchangeLimit}; 0 = always the shuffle).
   * Either way each vertex gets the min of its updates; the driver path only saves the stage.
   */
  public GraphRelaxation setDriverExchangeLimit(int value) {
    this.driverExchangeLimit = checked("driverExchangeLimit", value, 0, Integer.MAX_VALUE);
    return this;
  }

  /**
   * How subgraphs number their vertices: "auto", "degree" or "input" (default
   * {@code spark.gstm.graph.vertexOrder}); it changes speed, never results.
   */
  public GraphRelaxation setVertexOrder(String value) {
    this.vertexOrder = GstmConf.VERTEX_ORDER.parse(value);
    return this;
  }

  /**
   * Where the edges go (default {@code spark.gstm.graph.partitioning}): "input" keeps them in
   * the partitions they are read in; "range" moves each to the owner of its source by ranges of
   * ids balanced by edge count, so that only vertices at the ranges' borders are replicated
   * whatever order the input comes in; "auto" takes ranges when a sample of the edges shows that
   * ids carry locality and the input partitions are not already such ranges. It changes speed
   * and supersteps, never results.
   */
  public GraphRelaxation setPartitioning(String value) {
    this.partitioning = GstmConf.GRAPH_PARTITIONING.parse(value);
    return this;
  }

  /**
   * How many subgraphs (default {@code spark.gstm.graph.subgraphs}): "partitions", one per
   * partition ({@link #setPartitions}, else the edges' partitions), relaxed in parallel;
   * "engines", one per executor engine (per GPU; one subgraph on one GPU, relaxed in a single
   * superstep); "auto", engines when the executors run on GPUs and no count is given, else
   * partitions. It changes speed and supersteps, never results.
   */
  public GraphRelaxation setSubgraphs(String value) {
    this.subgraphs = GstmConf.GRAPH_SUBGRAPHS.parse(value);
    return this;
  }

  /**
   * How subgraphs trade boundary updates (default {@code spark.gstm.graph.exchange}): "hub",
   * every superstep in one stage through the driver's socket; "jobs", a Spark job per
   * superstep; "auto", the hub with a subgraph per engine when every subgraph gets a task slot.
   * It changes speed, never results or supersteps.
   */
  public GraphRelaxation setExchange(String value) {
    this.exchange = GstmConf.GRAPH_EXCHANGE.parse(value);
    return this;
  }

  /** How long the hub waits for every subgraph's task to start (for tests). */
  GraphRelaxation setHubStartMillis(long value) {
    this.hubStartMillis = value;
    return this;
  }

  /** Driver-exchanged updates up to which they travel in the tasks (for tests). */
  GraphRelaxation setMailInTasks(int value) {
    this.mailInTasks = value;
    return this;
  }

  /** Engine for this run: "auto", "gpu" or "jvm" (default {@code spark.gstm.engine}). */
  public GraphRelaxation setEngine(String value) {
    this.engine = EngineChoice.parse(value);
    return this;
  }

  /** {@code value} when in {@code min..max} (no upper bound at MAX_VALUE), else an error. */
  private static int checked(String name, int value, int min, int max) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be " + (max == Integer.MAX_VALUE
          ? "at least " + min : "between " + min + " and " + max) + ", got " + value);
    }
    return value;
  }

  private static String requireName(String what, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + ": a column name is required");
    }
    return value;
  }

  /** For {@code edges.transform(GraphRelaxation::components)}: (id, value) of components. */
  public static Dataset<Row> components(Dataset<Row> edges) {
    return of(edges).connectedComponents().run().values();
  }

  /** For {@code edges.transform(GraphRelaxation.shortestPathsFrom(0))}: (id, distance). */
  public static Function1<Dataset<Row>, Dataset<Row>> shortestPathsFrom(long source) {
    return e -> of(e).shortestPaths(source).run().values();
  }

  /**
   * A relaxation written as a transaction program over vertex values the caller gives
   * ({@link GraphProgramRelaxation}; docs/programs.md, "Relaxations you write"), over these
   * edges and their src, dst and weight columns.
   */
  public GraphProgramRelaxation program(String programText) {
    return new GraphProgramRelaxation(edges, srcCol, dstCol, weightCol, programText);
  }

  /**
   * Runs to convergence (or the superstep bound). The result's DataFrame reads the last
   * superstep's locally checkpointed values (no job of its own here; each action on it turns
   * them into rows again, without rerunning the relaxation).
   */
  public RelaxationResult run() {
    long start = System.nanoTime();
    if (kind == null) {
      throw new IllegalArgumentException(
          "kind: call shortestPaths(source) or connectedComponents() before run()");
    }
    SparkSession spark = edges.sparkSession();
    GstmSettings conf = GstmConf.settings(spark.sparkContext().getConf());
    GstmSettings withEngine = engine == null ? conf : conf.withEngine(engine);
    GstmSettings settings = vertexOrder == null ? withEngine
        : withEngine.withVertexOrder(vertexOrder);
    Supersteps.relaxOptions(settings); // checks the engine options on the driver
    ExecutorEngines.checkBeforeJobs(spark.sparkContext(), settings);
    int steps = maxSupersteps != null ? maxSupersteps : settings.graph().maxSupersteps();
    EdgeInput input = new EdgeInput(edges, kind, srcCol, dstCol, weightCol, weightColExplicit,
        vertices, vertexIdCol);
    boolean weighted = input.checkSchema();
    String placement = partitioning != null ? partitioning
        : GstmConf.GRAPH_PARTITIONING.parse(spark.sparkContext().getConf()
            .get(GstmConf.GRAPH_PARTITIONING.key(), null));
    long checked = System.nanoTime();

    int given = partitions != null ? partitions : settings.graph().partitions();
    SubgraphCount.Choice count = SubgraphCount.choose(spark.sparkContext(), settings,
        subgraphs != null ? subgraphs : SubgraphCount.configured(spark.sparkContext().getConf()),
        given, edges.rdd().getNumPartitions(), kind);
    int p = count.subgraphs();
    LOG.debug("gstm relaxation: {} subgraphs ({})", p, count.why());
    RelaxationKind k = kind;
    // The run's id first: a subgraph built on a GPU leaves its relaxer cached under it.
    long run = RUNS.incrementAndGet() ^ (System.nanoTime() << 20);
    SubgraphPlanner planner = new SubgraphPlanner(input, source, p, weighted, placement,
        settings, count.mode().equals("engines"), run);
    JavaRDD<LocalGraph> graphs = planner.build();
    graphs.persist(StorageLevel.MEMORY_AND_DISK());
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    // A single subgraph (one per GPU executor) holds every vertex once: there are no replicas to
    // find, so no job of its own builds it and collects its ids; the first superstep's job
    // builds it and reports its size.
    boolean single = p == 1;
    Cut cut;
    try {
      cut = single ? null : Cut.collect(graphs, planner, p);
    } catch (RuntimeException e) {
      ResidentCache.release(run); // relaxers the builds left here
      throw e;
    }
    long localEdges = single ? 0 : cut.edges();
    Broadcast<Replicas> replicas = jsc.broadcast(single ? Replicas.one() : cut.replicas());
    long built = System.nanoTime();
    if (!single) {
      LOG.info("gstm relaxation: {} subgraphs of {} edges checked and built in {} ms ({})", p,
          localEdges, (built - checked) / 1_000_000, planner.decision().why());
    }

    long src = source;
    StepStats total = new StepStats();
    RDD<StepOutput> last = null;
    JavaPairRDD<Integer, StepOutput.Messages> inbox = null;
    boolean converged = false;
    int done = 0;
    int limit = driverExchangeLimit != null ? driverExchangeLimit
        : settings.graph().driverExchangeLimit();
    StepOutput.Messages[] posted = null; // the driver's min-combined updates, per partition
    Broadcast<StepOutput.Messages[]> mailBroadcast = null;
    int driverExchanges = 0;
    Supersteps.StepContext step = new Supersteps.StepContext(run, replicas, k, settings);
    int restarts = 0;
    StepOutput onDriver = null; // a single subgraph's values, sent with its superstep
    String exchanged = single ? "none" : "jobs";
    if (!single && hubExchange(spark.sparkContext(), count, p)) {
      try {
        HubSupersteps.Outcome o = HubSupersteps.run(spark.sparkContext(), graphs, step, src,
            steps, hubStartMillis);
        last = o.last();
        total = o.total();
        done = o.supersteps();
        converged = o.converged();
        exchanged = "hub";
      } catch (HubSupersteps.SubgraphLostException e) {
        // The lost executor's subgraph is rebuilt where it is missing; the fixpoint does not
        // depend on the path, so the run starts over, a job per superstep.
        LOG.warn("gstm relaxation: {}; starting again from superstep 0 with a job per superstep",
            e.getMessage());
      } catch (RuntimeException e) {
        // Bad input, or subgraphs that could not all start: the relaxers the tasks left here go
        // (an executor's go when its cache evicts them), and so do the subgraphs.
        ResidentCache.release(run);
        graphs.unpersist(false);
        throw e;
      }
    }
    while (!exchanged.equals("hub") && done < steps) {
      // The functions of a superstep's jobs are named classes on the Scala API: Spark's closure
      // cleaner reads and analyses the class file behind every lambda (the Java API wraps even
      // a named function in one) on every job, tens of ms per superstep on a 2-core machine.
      RDD<StepOutput> out;
      if (last == null) {
        out = graphs.rdd().mapPartitions(new Supersteps.FirstStep(step, src), true,
            Supersteps.STEP_OUTPUT);
      } else if (posted != null) {
        // Driver exchange: each task takes its share of the updates (one stage). Few travel in
        // the tasks; more in a broadcast, which an executor reads once for all its tasks.
        int updates = 0;
        for (StepOutput.Messages m : posted) {
          updates += m == null ? 0 : m.ids().length;
        }
        mailBroadcast = updates <= mailInTasks ? null : jsc.broadcast(posted);
        if (mailBroadcast != null) {
          BROADCAST_EXCHANGES.incrementAndGet();
        }
        out = graphs.rdd().zipPartitions(last, true,
            new Supersteps.DriverStep(step, mailBroadcast == null ? posted : null, mailBroadcast),
            Supersteps.STEP_OUTPUT, Supersteps.STEP_OUTPUT);
      } else {
        JavaRDD<Supersteps.StepInput> in =
            last.toJavaRDD().zipPartitions(inbox, Supersteps::gather);
        out = graphs.rdd().zipPartitions(in.rdd(), true, new Supersteps.ShuffleStep(step),
            Supersteps.STEP_INPUT, Supersteps.STEP_OUTPUT);
      }
      // Local checkpoints cut the lineage each superstep (a zip of every earlier one otherwise);
      // Spark's context cleaner drops their blocks once unreferenced.
      out.localCheckpoint();
      long t0 = System.nanoTime();
      // Counters, and each partition's updates when it sends no more than the limit.
      List<StepOutput> sent;
      if (single && last == null) {
        // This job builds the single subgraph too: a bad input fails here.
        try {
          sent = Arrays.asList((StepOutput[]) spark.sparkContext().runJob(out,
              new Supersteps.Summary(limit, true), Supersteps.STEP_OUTPUT));
          onDriver = sent.get(0).globalIds != null ? sent.get(0) : null;
        } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
          graphs.unpersist(false);
          ResidentCache.release(run); // a relaxer its build left here
          throw badInput(e);
        } finally {
          planner.release();
        }
      } else {
        try {
          sent = Arrays.asList((StepOutput[]) spark.sparkContext().runJob(out,
              new Supersteps.Summary(limit, false), Supersteps.STEP_OUTPUT));
        } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
          String lost = TaskErrors.lostCheckpoint(e);
          if (restarts == MAX_RESTARTS || lost == null) {
            throw e;
          }
          // An executor was lost, and with it its partitions' outputs of the earlier supersteps
          // (local checkpoints: no lineage). The subgraphs are recomputed where they are
          // missing; the fixpoint does not depend on the path, so the run starts over.
          restarts++;
          LOG.warn("gstm relaxation: superstep {} lost earlier supersteps' results with an "
              + "executor ({}); starting again from superstep 0 ({} of {} restarts)", done, lost,
              restarts, MAX_RESTARTS);
          if (mailBroadcast != null) {
            mailBroadcast.destroy();
            mailBroadcast = null;
          }
          last = null;
          inbox = null;
          posted = null;
          total = new StepStats();
          done = 0;
          driverExchanges = 0;
          continue;
        }
      }
      if (mailBroadcast != null) {
        mailBroadcast.destroy(); // out is materialized and its lineage cut: no task needs it
        mailBroadcast = null;
      }
      StepStats st = new StepStats();
      boolean complete = true;
      for (StepOutput o : sent) {
        st = st.merge(o.stats);
        complete &= o.stats.messages == 0 || o.messageIds != null;
      }
      if (single && last == null) {
        LOG.info("gstm relaxation: 1 subgraph of {} edges checked, built and relaxed in {} ms"
            + " ({})", st.edges, (System.nanoTime() - checked) / 1_000_000,
            planner.decision().why());
      }
      last = out;
      done++;
      total = total.merge(st);
      total.rounds += st.rounds;
      boolean viaDriver = st.messages > 0 && st.messages <= limit && complete;
      LOG.debug("gstm relaxation: superstep {}: {} active vertices, {} messages ({}), {} rounds, "
              + "{} transactions, {} edges examined, relax {} ms (tasks; kernel {} ms), {} ms",
          done - 1, st.activeVertices, st.messages, viaDriver ? "driver" : "shuffle", st.rounds,
          st.transactions, st.edgeRelaxations, st.relaxNanos / 1_000_000,
          st.kernelNanos / 1_000_000, (System.nanoTime() - t0) / 1_000_000);
      if (st.messages == 0) {
        converged = true;
        break;
      }
      if (viaDriver) {
        posted = Supersteps.minCombine(sent, p);
        inbox = null;
        driverExchanges++;
        DRIVER_EXCHANGES.incrementAndGet();
      } else {
        posted = null;
        SHUFFLE_EXCHANGES.incrementAndGet();
        int parts = p;
        inbox = out.toJavaRDD().flatMapToPair(o -> Supersteps.outgoing(o, parts))
            .partitionBy(new IndexPartitioner(p));
      }
    }
    LOG.debug("gstm relaxation: {} of {} exchanges through the driver", driverExchanges,
        converged ? done - 1 : done);

    long relaxed = System.nanoTime();
    // The rows come from the last superstep's output alone (locally checkpointed, so it outlives
    // the subgraphs): made by each action on the result from those cached arrays, without a job
    // here and without a cached copy of their own.
    JavaRDD<InternalRow> rows = last.toJavaRDD()
        .mapPartitions(oi -> Supersteps.rows(oi.next(), replicas.value()), true);
    long vertexCount;
    long copies;
    if (single) {
      localEdges = total.edges;
      vertexCount = total.vertices;
      copies = vertexCount;
    } else {
      vertexCount = cut.vertices();
      copies = cut.copies();
    }
    LOG.debug("gstm relaxation: {} supersteps in {} ms", done, (relaxed - built) / 1_000_000);
    ResidentCache.release(run);
    if (!spark.sparkContext().isLocal()) {
      graphs.foreachPartition(it -> ResidentCache.release(run));
    }
    graphs.unpersist(false);
    StructType schema = new StructType()
        .add("id", DataTypes.LongType, false)
        .add("value", DataTypes.DoubleType, false);
    // Internal rows need no conversion per row; other sessions than the classic one get Rows.
    Dataset<Row> values = spark instanceof org.apache.spark.sql.classic.SparkSession classic
        ? classic.internalCreateDataFrame(rows.rdd(), schema, false)
        : spark.createDataFrame(rows.map(r -> RowFactory.create(r.getLong(0), r.getDouble(1))),
            schema);
    RelaxationReport.Placement placed = new RelaxationReport.Placement(
        List.copyOf(total.engines), total.fellBack, p,
        planner.decision().byRange() ? "range" : "input", copies - vertexCount,
        count.mode() + " (" + count.why() + ")");
    RelaxationReport.Progress progress = new RelaxationReport.Progress(done, converged,
        total.messages, total.edgeRelaxations, exchanged);
    long planNanos = built - start;
    long superstepNanos = relaxed - built;
    long wallNanos = System.nanoTime() - start;
    LOG.debug("gstm relaxation: run {} ms: checks {} ms, plan {} ms, supersteps {} ms, result"
        + " {} ms", wallNanos / 1_000_000, (checked - start) / 1_000_000,
        (built - checked) / 1_000_000, superstepNanos / 1_000_000,
        (System.nanoTime() - relaxed) / 1_000_000);
    RelaxationReport.Timings timings = new RelaxationReport.Timings(planNanos, superstepNanos,
        total.relaxNanos, total.kernelNanos, wallNanos);
    RelaxationReport report = new RelaxationReport(k, vertexCount, localEdges, placed,
        progress, new TxCounts(total.transactions, total.commits, total.aborts), timings);
    return new RelaxationResult(values, report, last.toJavaRDD(), replicas,
        converged ? onDriver : null);
  }

  /**
   * Whether the supersteps run in one stage through the driver's hub: asked for, or ("auto") a
   * subgraph per engine and a task slot for each (the hub needs every subgraph's task at once).
   */
  private boolean hubExchange(SparkContext sc, SubgraphCount.Choice count, int p) {
    String asked = exchange != null ? exchange
        : GstmConf.GRAPH_EXCHANGE.parse(sc.getConf().get(GstmConf.GRAPH_EXCHANGE.key(), null));
    return switch (asked) {
      case "hub" -> true;
      case "jobs" -> false;
      default -> count.mode().equals("engines") && p <= TaskHub.taskSlots(sc);
    };
  }

  /**
   * A vertex cut's subgraphs as the driver sees them after the build: each one's ids and the
   * ids with out-edges there ({@code held}, {@code relaying}: the {@link Replicas}), and its
   * edge count.
   */
  private record Cut(RoaringBitmap[] held, RoaringBitmap[] relaying, long edges) {
    /**
     * Builds the subgraphs (a job; a bad input fails here, leaving nothing cached) and
     * collects their ids; the input's edges are released either way.
     */
    static Cut collect(JavaRDD<LocalGraph> graphs, SubgraphPlanner planner, int p) {
      List<Tuple2<Long, RoaringBitmap[]>> summaries;
      try {
        summaries = graphs.map(g -> new Tuple2<>((long) g.edgeCount(),
            new RoaringBitmap[] {Replicas.idsOf(g), Replicas.sourcesOf(g)})).collect();
      } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
        graphs.unpersist(false);
        throw badInput(e);
      } finally {
        planner.release(); // the subgraphs are cached (or failed): the input's edges can go
      }
      RoaringBitmap[] held = new RoaringBitmap[p];
      RoaringBitmap[] relaying = new RoaringBitmap[p];
      long edges = 0;
      for (int q = 0; q < p; q++) {
        edges += summaries.get(q)._1();
        held[q] = summaries.get(q)._2()[0];
        relaying[q] = summaries.get(q)._2()[1];
      }
      return new Cut(held, relaying, edges);
    }

    Replicas replicas() {
      return new Replicas(held, relaying);
    }

    /** Distinct vertices over all subgraphs. */
    long vertices() {
      return RoaringBitmap.or(held).getLongCardinality();
    }

    /** Vertex copies over all subgraphs (a replicated vertex counts in each). */
    long copies() {
      long copies = 0;
      for (RoaringBitmap h : held) {
        copies += h.getLongCardinality();
      }
      return copies;
    }
  }

  /** The bad-input error a task raised while reading the edges, else the failure itself. */
  private static RuntimeException badInput(Exception e) {
    return TaskErrors.badInput(e);
  }}
