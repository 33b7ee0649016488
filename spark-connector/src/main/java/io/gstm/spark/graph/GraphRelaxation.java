package io.gstm.spark.graph;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.graph.GraphRelaxer;
import io.gstm.core.graph.RelaxOptions;
import io.gstm.core.graph.RelaxResult;
import io.gstm.core.graph.RelaxStats;
import io.gstm.core.graph.RelaxationKind;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskErrors;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.roaringbitmap.RoaringBitmap;
import org.slf4j.LoggerFactory;
import scala.Function1;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;

/**
 * Shortest paths and connected components over an edges DataFrame, subgraph-centric over a
 * vertex cut: the edges stay in the partitions they are read in (no shuffle of edges; only when
 * more partitions than the input has are asked for are they spread round-robin), each
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
 * of {@link #setVertices} and the source (these extra ids go to partition {@code id mod P}).
 * Bad input is an IllegalArgumentException naming the column or parameter, raised by
 * {@link #run()} before the relaxation starts: schema problems before any job; value problems
 * (null ids or weights, negative or non-finite weights, ids out of range) by the first pass over
 * the edges, which checks every row as it reads it (a task's error is rethrown on the driver as
 * that IllegalArgumentException). A cached DataFrame with primitive columns is read from its
 * column batches, without rows.
 *
 * <p>Engine settings come from the session's {@code spark.gstm.*} configuration
 * ({@link GstmConf}); setters here override them for one run.
 */
public final class GraphRelaxation {
  private static final Logger LOG = LoggerFactory.getLogger(GraphRelaxation.class);
  private static final AtomicLong RUNS = new AtomicLong();
  /** Runs that read their edges from column batches (for tests). */
  static final AtomicLong COLUMNAR_READS = new AtomicLong();
  /** Boundary exchanges through the driver and through a shuffle (for tests). */
  static final AtomicLong DRIVER_EXCHANGES = new AtomicLong();
  static final AtomicLong SHUFFLE_EXCHANGES = new AtomicLong();
  /** Driver exchanges whose updates travelled in a broadcast (for tests). */
  static final AtomicLong BROADCAST_EXCHANGES = new AtomicLong();
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
  private String algorithm;
  private Integer maxSupersteps;
  private Integer partitions;
  private EngineChoice engine;
  private Integer driverExchangeLimit;
  private String vertexOrder;
  private int mailInTasks = MAIL_IN_TASKS;

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

  /** STM algorithm, one of {@link GstmConf#ALGORITHMS}; an unknown name is an error here. */
  public GraphRelaxation setAlgorithm(String value) {
    this.algorithm = GstmConf.parseAlgorithm(value);
    return this;
  }

  /** Superstep bound (default {@code spark.gstm.graph.maxSupersteps}). */
  public GraphRelaxation setMaxSupersteps(int value) {
    if (value < 1) {
      throw new IllegalArgumentException("maxSupersteps must be at least 1, got " + value);
    }
    this.maxSupersteps = value;
    return this;
  }

  /**
   * Subgraphs (default {@code spark.gstm.graph.partitions}, else the edges' partitions): fewer
   * than the edges' partitions merge neighbouring ones, more spread the edges round-robin.
   */
  public GraphRelaxation setPartitions(int value) {
    if (value < 1 || value > 100_000) {
      throw new IllegalArgumentException("partitions must be between 1 and 100000, got " + value);
    }
    this.partitions = value;
    return this;
  }

  /**
   * Boundary updates of one superstep up to which they travel through the driver rather than a
   * shuffle (default {@code spark.gstm.graph.driverExchangeLimit}; 0 = always the shuffle).
   * Either way each vertex gets the min of its updates; the driver path only saves the stage.
   */
  public GraphRelaxation setDriverExchangeLimit(int value) {
    if (value < 0) {
      throw new IllegalArgumentException("driverExchangeLimit must be at least 0, got " + value);
    }
    this.driverExchangeLimit = value;
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
    if (algorithm != null) {
      GstmConf.parseAlgorithm(algorithm);
    }
    relaxOptions(settings); // checks the engine options on the driver
    ExecutorEngines.checkBeforeJobs(spark.sparkContext(), settings);
    int steps = maxSupersteps != null ? maxSupersteps : settings.maxSupersteps();
    boolean weighted = checkSchema();
    long checked = System.nanoTime();

    int p = partitions != null ? partitions
        : settings.graphPartitions() > 0 ? settings.graphPartitions()
        : Math.max(1, edges.rdd().getNumPartitions());
    RelaxationKind k = kind;
    JavaRDD<LocalGraph> graphs = buildGraphs(p, weighted, settings);
    graphs.persist(StorageLevel.MEMORY_AND_DISK());
    List<Tuple2<Long, RoaringBitmap[]>> summaries;
    try {
      summaries = graphs.map(g -> new Tuple2<>((long) g.edgeCount(),
          new RoaringBitmap[] {Replicas.idsOf(g), Replicas.sourcesOf(g)})).collect();
    } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
      graphs.unpersist(false);
      throw badInput(e);
    }
    long localEdges = 0;
    RoaringBitmap[] held = new RoaringBitmap[p];
    RoaringBitmap[] relaying = new RoaringBitmap[p];
    for (int q = 0; q < p; q++) {
      localEdges += summaries.get(q)._1();
      held[q] = summaries.get(q)._2()[0];
      relaying[q] = summaries.get(q)._2()[1];
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<Replicas> replicas = jsc.broadcast(new Replicas(held, relaying));
    long built = System.nanoTime();
    LOG.info("gstm relaxation: {} subgraphs of {} edges checked and built in {} ms", p,
        localEdges, (built - checked) / 1_000_000);

    long src = source;
    long run = RUNS.incrementAndGet() ^ (System.nanoTime() << 20);
    StepStats total = new StepStats();
    RDD<StepOutput> last = null;
    JavaPairRDD<Integer, StepOutput.Messages> inbox = null;
    boolean converged = false;
    int done = 0;
    int limit = driverExchangeLimit != null ? driverExchangeLimit : settings.driverExchangeLimit();
    StepOutput.Messages[] posted = null; // the driver's min-combined updates, per partition
    Broadcast<StepOutput.Messages[]> mailBroadcast = null;
    int driverExchanges = 0;
    StepContext step = new StepContext(run, replicas, k, settings);
    while (done < steps) {
      // The functions of a superstep's jobs are named classes on the Scala API: Spark's closure
      // cleaner reads and analyses the class file behind every lambda (the Java API wraps even
      // a named function in one) on every job, tens of ms per superstep on a 2-core machine.
      RDD<StepOutput> out;
      if (last == null) {
        out = graphs.rdd().mapPartitions(new FirstStep(step, src), true, STEP_OUTPUT);
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
            new DriverStep(step, mailBroadcast == null ? posted : null, mailBroadcast),
            STEP_OUTPUT, STEP_OUTPUT);
      } else {
        JavaRDD<StepInput> in = last.toJavaRDD().zipPartitions(inbox, GraphRelaxation::gather);
        out = graphs.rdd().zipPartitions(in.rdd(), true, new ShuffleStep(step), STEP_INPUT,
            STEP_OUTPUT);
      }
      // Local checkpoints cut the lineage each superstep (a zip of every earlier one otherwise);
      // Spark's context cleaner drops their blocks once unreferenced.
      out.localCheckpoint();
      long t0 = System.nanoTime();
      // Counters, and each partition's updates when it sends no more than the limit.
      List<StepOutput> sent = Arrays.asList((StepOutput[]) spark.sparkContext().runJob(out,
          new Summary(limit), STEP_OUTPUT));
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
        posted = minCombine(sent, p);
        inbox = null;
        driverExchanges++;
        DRIVER_EXCHANGES.incrementAndGet();
      } else {
        posted = null;
        SHUFFLE_EXCHANGES.incrementAndGet();
        int parts = p;
        inbox = out.toJavaRDD().flatMapToPair(o -> outgoing(o, parts))
            .partitionBy(new Partitioning.ByIndex(p));
      }
    }
    LOG.debug("gstm relaxation: {} of {} exchanges through the driver", driverExchanges,
        converged ? done - 1 : done);

    long relaxed = System.nanoTime();
    // The rows come from the last superstep's output alone (locally checkpointed, so it outlives
    // the subgraphs): made by each action on the result from those cached arrays, without a job
    // here and without a cached copy of their own.
    JavaRDD<InternalRow> rows = last.toJavaRDD()
        .mapPartitions(oi -> rows(oi.next(), replicas.value()), true);
    RoaringBitmap all = RoaringBitmap.or(held);
    long vertexCount = all.getLongCardinality();
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
    RelaxationReport report = new RelaxationReport(k, List.copyOf(total.engines),
        total.fellBack, p, vertexCount, localEdges, done, converged, total.messages,
        total.transactions, total.commits, total.aborts, total.edgeRelaxations,
        total.kernelNanos, total.relaxNanos, System.nanoTime() - start);
    return new RelaxationResult(values, report);
  }

  private static final ClassTag<StepOutput> STEP_OUTPUT = ClassTag$.MODULE$.apply(StepOutput.class);
  private static final ClassTag<StepInput> STEP_INPUT = ClassTag$.MODULE$.apply(StepInput.class);

  /** What every superstep's function carries: the run, where vertices live, kind, settings. */
  record StepContext(long run, Broadcast<Replicas> replicas, RelaxationKind kind,
      GstmSettings settings) implements Serializable {}

  /** Superstep 0 of a partition. */
  private static final class FirstStep
      extends AbstractFunction1<scala.collection.Iterator<LocalGraph>,
          scala.collection.Iterator<StepOutput>> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StepContext c;
    private final long source;

    FirstStep(StepContext c, long source) {
      this.c = c;
      this.source = source;
    }

    @Override
    public scala.collection.Iterator<StepOutput> apply(scala.collection.Iterator<LocalGraph> g) {
      return one(firstStep(c.run(), g.next(), c.replicas().value(), c.kind(), source,
          c.settings()));
    }
  }

  /** Driver-exchanged updates up to which they travel in the tasks rather than a broadcast. */
  static final int MAIL_IN_TASKS = 16_384;

  /**
   * A later superstep whose updates came through the driver: in this function ({@code mail}) or
   * in a broadcast ({@code broadcastMail}).
   */
  private static final class DriverStep
      extends AbstractFunction2<scala.collection.Iterator<LocalGraph>,
          scala.collection.Iterator<StepOutput>, scala.collection.Iterator<StepOutput>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StepContext c;
    private final StepOutput.Messages[] mail;
    private final Broadcast<StepOutput.Messages[]> broadcastMail;

    DriverStep(StepContext c, StepOutput.Messages[] mail,
        Broadcast<StepOutput.Messages[]> broadcastMail) {
      this.c = c;
      this.mail = mail;
      this.broadcastMail = broadcastMail;
    }

    @Override
    public scala.collection.Iterator<StepOutput> apply(scala.collection.Iterator<LocalGraph> gi,
        scala.collection.Iterator<StepOutput> oi) {
      LocalGraph g = gi.next();
      StepOutput.Messages m = (mail != null ? mail : broadcastMail.value())[g.partition];
      return one(nextStep(c.run(), g, c.replicas().value(),
          new StepInput(oi.next(), m == null ? List.of() : List.of(m)), c.kind(), c.settings()));
    }
  }

  /** A later superstep whose updates came through a shuffle. */
  private static final class ShuffleStep
      extends AbstractFunction2<scala.collection.Iterator<LocalGraph>,
          scala.collection.Iterator<StepInput>, scala.collection.Iterator<StepOutput>>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final StepContext c;

    ShuffleStep(StepContext c) {
      this.c = c;
    }

    @Override
    public scala.collection.Iterator<StepOutput> apply(scala.collection.Iterator<LocalGraph> gi,
        scala.collection.Iterator<StepInput> ii) {
      return one(nextStep(c.run(), gi.next(), c.replicas().value(), ii.next(), c.kind(),
          c.settings()));
    }
  }

  /** What the driver collects after a superstep ({@link StepOutput#summary}). */
  private static final class Summary
      extends AbstractFunction2<TaskContext, scala.collection.Iterator<StepOutput>, StepOutput>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int limit;

    Summary(int limit) {
      this.limit = limit;
    }

    @Override
    public StepOutput apply(TaskContext task, scala.collection.Iterator<StepOutput> out) {
      return out.next().summary(limit);
    }
  }

  private static <T> scala.collection.Iterator<T> one(T value) {
    return scala.collection.Iterator$.MODULE$.single(value);
  }

  static RelaxOptions relaxOptions(GstmSettings s) {
    return new RelaxOptions(s.graphThreadsPerBlock(), s.lockCoverage(), s.maxLocalRounds(),
        RunOptions.defaults().withMaxRetries(s.retryLimit()));
  }

  /** Schema checks (no job); returns whether shortest paths use a weight column. */
  private boolean checkSchema() {
    StructType schema = edges.schema();
    checkIntegral(schema, srcCol, "edges");
    checkIntegral(schema, dstCol, "edges");
    if (vertices != null) {
      checkIntegral(vertices.schema(), vertexIdCol, "vertices");
    }
    if (kind != RelaxationKind.SHORTEST_PATHS || weightCol == null) {
      return false;
    }
    if (!Arrays.asList(schema.fieldNames()).contains(weightCol)) {
      if (weightColExplicit) {
        throw new IllegalArgumentException("column '" + weightCol
            + "' (weightCol) not found in the edges DataFrame; columns: "
            + Arrays.toString(schema.fieldNames()));
      }
      return false;
    }
    DataType t = schema.apply(weightCol).dataType();
    if (!(t instanceof NumericType)) {
      throw new IllegalArgumentException("column '" + weightCol
          + "' (weightCol) must be numeric, got " + t.simpleString());
    }
    return true;
  }

  private static void checkIntegral(StructType schema, String name, String frame) {
    if (!Arrays.asList(schema.fieldNames()).contains(name)) {
      throw new IllegalArgumentException("column '" + name + "' not found in the " + frame
          + " DataFrame; columns: " + Arrays.toString(schema.fieldNames()));
    }
    DataType t = schema.apply(name).dataType();
    if (!(t instanceof IntegralType)) {
      throw new IllegalArgumentException("column '" + name + "' of the " + frame
          + " DataFrame must hold integral vertex ids, got " + t.simpleString());
    }
  }

  /** The bad-input error a task raised while reading the edges, else the failure itself. */
  private static RuntimeException badInput(Exception e) {
    return TaskErrors.badInput(e);
  }

  private static void checkId(InternalRow r, int i, String column) {
    checkId(r.isNullAt(i), r.isNullAt(i) ? 0 : r.getLong(i), column);
  }

  static void checkId(boolean isNull, long v, String column) {
    if (isNull) {
      throw new IllegalArgumentException("column '" + column + "': null vertex id");
    }
    if (v < 0 || v > MAX_VERTEX_ID) {
      throw new IllegalArgumentException("column '" + column + "': vertex id " + v
          + " is beyond the supported range [0, " + MAX_VERTEX_ID + "]");
    }
  }

  private static double checkWeight(InternalRow r, String column) {
    return checkWeight(r.isNullAt(2), r.isNullAt(2) ? 0 : r.getDouble(2), column);
  }

  static double checkWeight(boolean isNull, double w, String column) {
    if (isNull) {
      throw new IllegalArgumentException("column '" + column + "': null weight; shortest paths "
          + "need a weight on every edge");
    }
    if (w < 0) {
      throw new IllegalArgumentException("column '" + column + "': negative weight " + w
          + "; shortest paths need non-negative weights");
    }
    if (!(w < Double.POSITIVE_INFINITY)) {
      throw new IllegalArgumentException("column '" + column + "': weight " + w
          + "; weights must be finite");
    }
    return w;
  }

  /**
   * Builds {@code p} subgraphs where the edges are (a vertex cut): each slice of the input's
   * partitions keeps its own edges, checked as they are read; the edges move only when
   * {@code p} exceeds the input's partitions (spread round-robin). Extra vertices (the source,
   * {@link #setVertices}) go to partition {@code id mod p}.
   */
  private JavaRDD<LocalGraph> buildGraphs(int p, boolean weighted, GstmSettings settings) {
    boolean undirected = kind == RelaxationKind.CONNECTED_COMPONENTS;
    String sc = srcCol;
    String dc = dstCol;
    String wc = weightCol;
    // One chunk per input partition. Bad values are checked here, in the first pass.
    JavaRDD<EdgeChunk> slices = columnarSlices(weighted);
    if (slices == null) {
      // Internal rows: no Row object per edge. (Casts to DataTypes, not type names, which
      // Spark would parse with its SQL parser on every run.)
      Column w = weighted ? col(weightCol).cast(DataTypes.DoubleType) : lit(1.0);
      slices = edges.select(col(srcCol).cast(DataTypes.LongType),
          col(dstCol).cast(DataTypes.LongType), w)
          .queryExecution().toRdd().toJavaRDD()
          .mapPartitions(it -> List.of(read(it, weighted, sc, dc, wc)).iterator(), true);
    }
    int inputs = slices.getNumPartitions();
    JavaRDD<EdgeChunk> local;
    if (p == inputs) {
      local = slices;
    } else if (p < inputs) {
      // No shuffle: coalesce merges neighbouring partitions.
      local = slices.coalesce(p).mapPartitions(it -> {
        List<EdgeChunk> chunks = new ArrayList<>();
        it.forEachRemaining(chunks::add);
        return List.of(chunks.size() == 1 ? chunks.get(0)
            : EdgeChunk.concat(chunks, weighted)).iterator();
      }, true);
    } else {
      local = slices.flatMapToPair(c -> spread(c, p))
          .partitionBy(new Partitioning.ByIndex(p))
          .mapPartitions(it -> {
            List<EdgeChunk> chunks = new ArrayList<>();
            it.forEachRemaining(t -> chunks.add(t._2()));
            return List.of(EdgeChunk.concat(chunks, weighted)).iterator();
          }, true);
    }
    long src = source;
    if (vertices == null) {
      return local.mapPartitionsWithIndex((i, it) -> {
        EdgeChunk c = it.hasNext() ? it.next() : new EdgeChunk(weighted);
        if (src >= 0 && Partitioning.owner((int) src, p) == i) {
          c.addVertex((int) src);
        }
        return List.of(build(i, p, c, undirected, byDegree(settings))).iterator();
      }, true);
    }
    List<Long> extra = new ArrayList<>();
    if (source >= 0) {
      extra.add(source);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(edges.sparkSession().sparkContext());
    String vc = vertexIdCol;
    JavaPairRDD<Integer, EdgeChunk> more = jsc.parallelize(extra, 1)
        .mapPartitionsToPair(it -> vertexChunks(it, p, weighted))
        .union(vertices.select(col(vertexIdCol).cast(DataTypes.LongType)).queryExecution()
          .toRdd().toJavaRDD().mapPartitionsToPair(it -> {
            List<Long> ids = new ArrayList<>();
            while (it.hasNext()) {
              InternalRow r = it.next();
              checkId(r, 0, vc);
              ids.add(r.getLong(0));
            }
            return vertexChunks(ids.iterator(), p, weighted);
          }))
        .partitionBy(new Partitioning.ByIndex(p));
    return local.zipPartitions(more.values(), (ei, vi) -> {
      List<EdgeChunk> chunks = new ArrayList<>();
      ei.forEachRemaining(chunks::add);
      vi.forEachRemaining(chunks::add);
      int i = TaskContext.getPartitionId();
      return List.of(build(i, p, EdgeChunk.concat(chunks, weighted), undirected,
          byDegree(settings))).iterator();
    });
  }

  /**
   * Reads the edges straight from the column batches of a cached DataFrame (integral ids, a
   * floating or integral weight), skipping the rows; null when the plan does not offer them.
   */
  private JavaRDD<EdgeChunk> columnarSlices(boolean weighted) {
    Dataset<Row> raw = weighted ? edges.select(col(srcCol), col(dstCol), col(weightCol))
        : edges.select(col(srcCol), col(dstCol));
    int[] kinds = new int[raw.schema().size()];
    for (int i = 0; i < kinds.length; i++) {
      kinds[i] = kindOf(raw.schema().fields()[i].dataType());
      if (kinds[i] < 0 || (i < 2 && kinds[i] > LONG)) {
        return null;
      }
    }
    SparkPlan plan;
    try {
      plan = raw.queryExecution().executedPlan();
    } catch (RuntimeException e) {
      return null;
    }
    while (true) {
      if (plan instanceof WholeStageCodegenExec x) {
        plan = x.child();
      } else if (plan instanceof ColumnarToRowExec x) {
        plan = x.child();
      } else if (plan instanceof InputAdapter x) {
        plan = x.child();
      } else {
        break;
      }
    }
    if (!plan.supportsColumnar() || plan.output().size() != kinds.length) {
      return null;
    }
    String[] names = raw.schema().fieldNames();
    for (int i = 0; i < names.length; i++) {
      if (!plan.output().apply(i).name().equals(names[i])) {
        return null;
      }
    }
    String sc = srcCol;
    String dc = dstCol;
    String wc = weightCol;
    COLUMNAR_READS.incrementAndGet();
    return plan.executeColumnar().toJavaRDD().mapPartitions(it -> {
      long t0 = System.nanoTime();
      // One chunk per batch, concatenated once at the end at its exact size.
      List<EdgeChunk> batches = new ArrayList<>();
      while (it.hasNext()) {
        ColumnarBatch b = it.next();
        ColumnVector s = b.column(0);
        ColumnVector d = b.column(1);
        ColumnVector wv = weighted ? b.column(2) : null;
        int rows = b.numRows();
        if (kinds[0] == INT && kinds[1] == INT && (!weighted || kinds[2] == DOUBLE)
            && !s.hasNull() && !d.hasNull() && (!weighted || !wv.hasNull())) {
          // Bulk: whole columns at once (array copies for the usual on-heap vectors).
          batches.add(EdgeChunk.adopt(s.getInts(0, rows), d.getInts(0, rows),
              weighted ? wv.getDoubles(0, rows) : null, sc, dc, wc));
          continue;
        }
        EdgeChunk c = new EdgeChunk(weighted);
        batches.add(c);
        c.ensure(rows);
        for (int i = 0; i < rows; i++) {
          long sv = s.isNullAt(i) ? 0 : integral(s, kinds[0], i);
          checkId(s.isNullAt(i), sv, sc);
          long dv = d.isNullAt(i) ? 0 : integral(d, kinds[1], i);
          checkId(d.isNullAt(i), dv, dc);
          double wt = 1.0;
          if (weighted) {
            boolean isNull = wv.isNullAt(i);
            wt = checkWeight(isNull, isNull ? 0 : number(wv, kinds[2], i), wc);
          }
          c.addEdge((int) sv, (int) dv, wt);
        }
      }
      EdgeChunk all = batches.size() == 1 ? batches.get(0) : EdgeChunk.concat(batches, weighted);
      LOG.debug("gstm relaxation: read {} edges from column batches in {} ms", all.size(),
          (System.nanoTime() - t0) / 1_000_000);
      return List.of(all).iterator();
    }, true);
  }

  private static final int BYTE = 0;
  private static final int SHORT = 1;
  private static final int INT = 2;
  private static final int LONG = 3;
  private static final int FLOAT = 4;
  private static final int DOUBLE = 5;

  private static int kindOf(DataType t) {
    if (t == DataTypes.ByteType) {
      return BYTE;
    } else if (t == DataTypes.ShortType) {
      return SHORT;
    } else if (t == DataTypes.IntegerType) {
      return INT;
    } else if (t == DataTypes.LongType) {
      return LONG;
    } else if (t == DataTypes.FloatType) {
      return FLOAT;
    } else if (t == DataTypes.DoubleType) {
      return DOUBLE;
    }
    return -1;
  }

  private static long integral(ColumnVector v, int kind, int i) {
    return switch (kind) {
      case BYTE -> v.getByte(i);
      case SHORT -> v.getShort(i);
      case INT -> v.getInt(i);
      default -> v.getLong(i);
    };
  }

  /** As Spark's cast to double. */
  private static double number(ColumnVector v, int kind, int i) {
    return switch (kind) {
      case FLOAT -> v.getFloat(i);
      case DOUBLE -> v.getDouble(i);
      default -> integral(v, kind, i);
    };
  }

  /** Reads and checks one slice's edges. */
  private static EdgeChunk read(Iterator<InternalRow> it, boolean weighted, String sc, String dc,
      String wc) {
    long t0 = System.nanoTime();
    EdgeChunk c = new EdgeChunk(weighted);
    while (it.hasNext()) {
      InternalRow r = it.next();
      checkId(r, 0, sc);
      checkId(r, 1, dc);
      c.addEdge((int) r.getLong(0), (int) r.getLong(1), weighted ? checkWeight(r, wc) : 1.0);
    }
    LOG.debug("gstm relaxation: read {} edges in {} ms", c.size(),
        (System.nanoTime() - t0) / 1_000_000);
    return c;
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

  private static Iterator<Tuple2<Integer, EdgeChunk>> vertexChunks(Iterator<Long> ids, int p,
      boolean weighted) {
    EdgeChunk[] out = new EdgeChunk[p];
    while (ids.hasNext()) {
      int v = (int) (long) ids.next();
      chunk(out, Partitioning.owner(v, p), weighted).addVertex(v);
    }
    return emit(out);
  }

  /**
   * Whether a subgraph built in this task numbers its vertices by degree
   * ({@code spark.gstm.graph.vertexOrder}; "auto": unless this executor's tasks run on a GPU).
   */
  static boolean byDegree(GstmSettings settings) {
    return switch (settings.vertexOrder()) {
      case "degree" -> true;
      case "input" -> false;
      default -> !ExecutorEngines.gpuUsable(settings);
    };
  }

  private static LocalGraph build(int i, int p, EdgeChunk c, boolean undirected,
      boolean byDegree) {
    long t0 = System.nanoTime();
    LocalGraph g = LocalGraph.build(i, p, c, undirected, byDegree);
    LOG.debug("gstm relaxation: subgraph {}: {} vertices, {} edges, built in {} ms", i, g.size(),
        g.edgeCount(), (System.nanoTime() - t0) / 1_000_000);
    return g;
  }

  /**
   * Superstep 0: the source (shortest paths, at every partition that holds it) or every vertex
   * (components) starts active.
   */
  static StepOutput firstStep(long run, LocalGraph g, Replicas replicas, RelaxationKind kind,
      long source, GstmSettings settings) {
    double[] values = new double[g.size()];
    int[] active;
    if (kind == RelaxationKind.SHORTEST_PATHS) {
      Arrays.fill(values, Double.POSITIVE_INFINITY);
      int s = source <= MAX_VERTEX_ID ? g.local((int) source) : -1;
      if (s >= 0) {
        values[s] = 0;
        active = new int[] {s};
      } else {
        active = new int[0];
      }
    } else {
      for (int i = 0; i < values.length; i++) {
        values[i] = g.globalIds[i];
      }
      active = new int[g.size()];
      for (int i = 0; i < active.length; i++) {
        active[i] = i;
      }
    }
    return relax(run, g, replicas, values, active, kind, settings);
  }

  /** A partition's previous output and the boundary updates addressed to it. */
  record StepInput(StepOutput previous, List<StepOutput.Messages> messages) {}

  private static Iterator<StepInput> gather(Iterator<StepOutput> prev,
      Iterator<Tuple2<Integer, StepOutput.Messages>> msgs) {
    List<StepOutput.Messages> list = new ArrayList<>();
    msgs.forEachRemaining(t -> list.add(t._2()));
    return List.of(new StepInput(prev.next(), list)).iterator();
  }

  /** Applies the min of the incoming values; the local vertices that improved become active. */
  static StepOutput nextStep(long run, LocalGraph g, Replicas replicas, StepInput in,
      RelaxationKind kind, GstmSettings settings) {
    double[] values = in.previous().values.clone();
    boolean[] mark = new boolean[g.size()];
    int[] active = new int[16];
    int n = 0;
    for (StepOutput.Messages m : in.messages()) {
      for (int i = 0; i < m.ids().length; i++) {
        int local = g.local(m.ids()[i]);
        if (local < 0) {
          throw new IllegalStateException("partition " + g.partition + " got an update for vertex "
              + m.ids()[i] + ", which it does not hold");
        }
        if (m.values()[i] < values[local]) {
          values[local] = m.values()[i];
          if (!mark[local]) {
            mark[local] = true;
            if (n == active.length) {
              active = Arrays.copyOf(active, n * 2);
            }
            active[n++] = local;
          }
        }
      }
    }
    return relax(run, g, replicas, values, Arrays.copyOf(active, n), kind, settings);
  }

  /**
   * Relaxes to the local fixpoint; every vertex that improved here becomes a message to each
   * other partition that needs it ({@link Replicas#needs}: it has out-edges there, or that
   * partition reports it).
   */
  static StepOutput relax(long run, LocalGraph g, Replicas replicas, double[] values,
      int[] active, RelaxationKind kind, GstmSettings settings) {
    StepStats st = new StepStats();
    int[][] ids = null;
    double[][] vals = null;
    if (active.length > 0) {
      st.activePartitions = 1;
      st.activeVertices = active.length;
      long t0 = System.nanoTime();
      RelaxResult res;
      try (ResidentCache.Handle<GraphRelaxer> h = ResidentCache.acquire(run, g.partition,
          settings, engine -> new GraphRelaxer(engine, g.csr(), kind, relaxOptions(settings)))) {
        res = h.value().relax(values, active);
        st.engines.add(h.lease().engine().name() + " (" + h.lease().reason() + ")");
        st.fellBack = !h.lease().gpu() && settings.engine() != EngineChoice.JVM;
      }
      st.relaxNanos = System.nanoTime() - t0;
      values = res.values();
      RelaxStats rs = res.stats();
      st.rounds = rs.rounds();
      st.transactions = rs.transactions();
      st.commits = rs.commits();
      st.aborts = rs.aborts();
      st.edgeRelaxations = rs.edgeRelaxations();
      st.improvedWrites = rs.improvedWrites();
      st.kernelNanos = rs.kernelNanos();
      int partitions = g.partitions;
      int[] changed = res.changedVertices();
      if (partitions > 1 && changed.length > 0) {
        int[] counts = new int[partitions];
        for (int c : changed) {
          for (int q = 0; q < partitions; q++) {
            if (q != g.partition && replicas.needs(q, g.globalIds[c])) {
              counts[q]++;
            }
          }
        }
        ids = new int[partitions][];
        vals = new double[partitions][];
        for (int q = 0; q < partitions; q++) {
          if (counts[q] > 0) {
            ids[q] = new int[counts[q]];
            vals[q] = new double[counts[q]];
            st.messages += counts[q];
          }
        }
        int[] fill = new int[partitions];
        for (int c : changed) {
          for (int q = 0; q < partitions; q++) {
            if (counts[q] > 0 && q != g.partition && replicas.needs(q, g.globalIds[c])) {
              ids[q][fill[q]] = g.globalIds[c];
              vals[q][fill[q]++] = values[c];
            }
          }
        }
      }
    }
    return new StepOutput(g.partition, values, ids, vals, st, g.globalIds);
  }

  /**
   * The driver's side of a small exchange: per target partition, the min value of each vertex
   * over every partition that sent it (as the receiving partition would take it after a
   * shuffle); ids ascending where several partitions sent updates, else in the sender's order.
   */
  static StepOutput.Messages[] minCombine(List<StepOutput> summaries, int partitions) {
    StepOutput.Messages[] mail = new StepOutput.Messages[partitions];
    for (int q = 0; q < partitions; q++) {
      int n = 0;
      for (StepOutput o : summaries) {
        if (o.messageIds != null && o.messageIds[q] != null) {
          n += o.messageIds[q].length;
        }
      }
      if (n == 0) {
        continue;
      }
      StepOutput single = null;
      int senders = 0;
      for (StepOutput o : summaries) {
        if (o.messageIds != null && o.messageIds[q] != null) {
          single = o;
          senders++;
        }
      }
      if (senders == 1) {
        // One sender names each vertex once: nothing to combine (the usual case with two
        // partitions), so its updates go on as they are, in its order.
        mail[q] = new StepOutput.Messages(single.messageIds[q], single.messageValues[q]);
        continue;
      }
      long[] keyed = new long[n];
      double[] vals = new double[n];
      int f = 0;
      for (StepOutput o : summaries) {
        if (o.messageIds != null && o.messageIds[q] != null) {
          int[] ids = o.messageIds[q];
          for (int i = 0; i < ids.length; i++) {
            vals[f] = o.messageValues[q][i];
            keyed[f] = ((long) ids[i] << 32) | f; // ids are non-negative ints
            f++;
          }
        }
      }
      Arrays.sort(keyed);
      int[] outIds = new int[n];
      double[] outVals = new double[n];
      int m = 0;
      for (long kv : keyed) {
        int id = (int) (kv >>> 32);
        double v = vals[(int) kv];
        if (m > 0 && outIds[m - 1] == id) {
          outVals[m - 1] = Math.min(outVals[m - 1], v);
        } else {
          outIds[m] = id;
          outVals[m++] = v;
        }
      }
      mail[q] = new StepOutput.Messages(Arrays.copyOf(outIds, m), Arrays.copyOf(outVals, m));
    }
    return mail;
  }

  private static Iterator<Tuple2<Integer, StepOutput.Messages>> outgoing(StepOutput o,
      int partitions) {
    List<Tuple2<Integer, StepOutput.Messages>> list = new ArrayList<>();
    if (o.messageIds != null) {
      for (int q = 0; q < partitions; q++) {
        if (o.messageIds[q] != null) {
          list.add(new Tuple2<>(q, new StepOutput.Messages(o.messageIds[q], o.messageValues[q])));
        }
      }
    }
    return list.iterator();
  }

  /**
   * One row (id: long, value: double) per vertex of which this partition is the lowest holder,
   * made as the consumer asks for it in one reused UnsafeRow (Spark's operators copy a row they
   * keep).
   */
  private static Iterator<InternalRow> rows(StepOutput o, Replicas replicas) {
    int[] ids = o.globalIds;
    double[] values = o.values;
    UnsafeRow row = new UnsafeRow(2);
    row.pointTo(new byte[24], 24);
    return new Iterator<>() {
      private int next = advance(0);

      private int advance(int from) {
        int i = from;
        while (i < ids.length && !replicas.reports(o.partition, ids[i])) {
          i++;
        }
        return i;
      }

      @Override
      public boolean hasNext() {
        return next < ids.length;
      }

      @Override
      public InternalRow next() {
        if (next >= ids.length) {
          throw new java.util.NoSuchElementException();
        }
        row.setLong(0, ids[next]);
        row.setDouble(1, values[next]);
        next = advance(next + 1);
        return row;
      }
    };
  }
}
