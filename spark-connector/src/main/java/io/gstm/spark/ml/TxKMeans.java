package io.gstm.spark.ml;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxCounts;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.kmeans.KMeansOptions;
import io.gstm.core.kmeans.KMeansPartial;
import io.gstm.core.kmeans.KMeansUpdater;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.EngineCount;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.ExecutorSpread;
import io.gstm.spark.exec.ResidentCache;
import io.gstm.spark.exec.TaskErrors;
import io.gstm.spark.exec.TaskHold;
import io.gstm.spark.exec.ThisExecutor;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.clustering.KMeans;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.ParamValidators;
import org.apache.spark.ml.param.StringArrayParam;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.collection.Iterator;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;

/**
 * k-means as a Spark ML Estimator whose centroid updates are transactions: each partition assigns
 * its points to the nearest centroid and adds them to the centroids' accumulators (sums and
 * counts) under the STM on its executor's engine ({@link KMeansUpdater}, through a
 * {@link PartitionKMeans} that stays resident on the executor for the whole fit); the partials
 * are tree-aggregated and the new centroids travel with the next iteration's tasks. One Spark
 * job per iteration ({@link #aggregate}); or, on GPU executors ({@link #setPointSets}), a point
 * set per GPU that stays on the executor that read it, every iteration inside one stage
 * ({@link PointSetJobs}). The points are an ml Vector column or numeric columns
 * ({@link #setFeaturesCols}). Lloyd's iteration, as MLlib's KMeans, with the same
 * initialisation: {@code initMode} "k-means||" (default) or "random" delegate to MLlib's own
 * initialisation with the same {@code seed}, so the two start from identical centroids; or give
 * them with {@link #setInitialCentroids}. Stops after {@code maxIter} iterations or when no
 * centroid moves more than {@code tol}; an empty cluster keeps its centroid. Not persistable
 * (no MLWritable yet).
 *
 * <p>Bad input (a missing or non-vector features column, a missing or non-numeric one of
 * featuresCols, a null or non-finite value, an existing prediction column, vectors of different
 * sizes, k larger than the number of points, initial centroids of the wrong shape) is an
 * IllegalArgumentException naming the column or parameter, raised before any update runs.
 */
public final class TxKMeans extends Estimator<TxKMeansModel> {
  private static final long serialVersionUID = 1L;
  private static final Logger LOG = LoggerFactory.getLogger(TxKMeans.class);
  private static final AtomicLong RUNS = new AtomicLong();

  /** MLlib's initialisation modes. */
  public static final String K_MEANS_PARALLEL = "k-means||";
  public static final String RANDOM = "random";
  /** Times a fit starts over after an executor's loss took some of its points with it. */
  static final int MAX_RESTARTS = 3;

  private final String uid;
  private final IntParam k;
  private final IntParam maxIter;
  private final DoubleParam tol;
  private final LongParam seed;
  private final Param<String> initMode;
  private final IntParam initSteps;
  private final Param<String> featuresCol;
  private final StringArrayParam featuresCols;
  private final Param<String> predictionCol;
  private double[][] initialCentroids;
  private String pointSets;

  public TxKMeans() {
    this(Identifiable$.MODULE$.randomUID("txkmeans"));
  }

  public TxKMeans(String uid) {
    this.uid = uid;
    k = new IntParam(this, "k", "number of clusters (> 1)", ParamValidators.gt(1));
    maxIter = new IntParam(this, "maxIter", "maximum number of iterations (>= 0)",
        ParamValidators.gtEq(0));
    tol = new DoubleParam(this, "tol", "convergence tolerance: largest centroid move (>= 0)",
        ParamValidators.gtEq(0));
    seed = new LongParam(this, "seed", "random seed of the initialisation");
    initMode = new Param<>(this, "initMode", "initialisation: 'k-means||' or 'random'",
        ParamValidators.inArray(new String[] {K_MEANS_PARALLEL, RANDOM}));
    initSteps = new IntParam(this, "initSteps", "steps of k-means|| (> 0)", ParamValidators.gt(0));
    featuresCol = new Param<>(this, "featuresCol", "features column (ml Vector)");
    featuresCols = new StringArrayParam(this, "featuresCols", "numeric feature columns, one "
        + "per dimension, used instead of featuresCol when set");
    predictionCol = new Param<>(this, "predictionCol", "prediction column (cluster index)");
    setDefault(k, 2);
    setDefault(maxIter, 20);
    setDefault(tol, 1e-4);
    // MLlib's default seed, so that default fits start from the same centroids as MLlib's.
    setDefault(seed, (long) KMeans.class.getName().hashCode());
    setDefault(initMode, K_MEANS_PARALLEL);
    setDefault(initSteps, 2);
    setDefault(featuresCol, "features");
    setDefault(featuresCols, new String[0]);
    setDefault(predictionCol, "prediction");
  }

  @Override
  public String uid() {
    return uid;
  }

  public IntParam k() {
    return k;
  }

  public IntParam maxIter() {
    return maxIter;
  }

  public DoubleParam tol() {
    return tol;
  }

  public LongParam seed() {
    return seed;
  }

  public Param<String> initMode() {
    return initMode;
  }

  public IntParam initSteps() {
    return initSteps;
  }

  public Param<String> featuresCol() {
    return featuresCol;
  }

  public StringArrayParam featuresCols() {
    return featuresCols;
  }

  public Param<String> predictionCol() {
    return predictionCol;
  }

  public int getK() {
    return (Integer) getOrDefault(k);
  }

  public int getMaxIter() {
    return (Integer) getOrDefault(maxIter);
  }

  public double getTol() {
    return (Double) getOrDefault(tol);
  }

  public long getSeed() {
    return (Long) getOrDefault(seed);
  }

  public String getInitMode() {
    return getOrDefault(initMode);
  }

  public String getFeaturesCol() {
    return getOrDefault(featuresCol);
  }

  /** The numeric feature columns, or none: the points are then {@code featuresCol}'s vectors. */
  public String[] getFeaturesCols() {
    return getOrDefault(featuresCols).clone();
  }

  public String getPredictionCol() {
    return getOrDefault(predictionCol);
  }

  public TxKMeans setK(int value) {
    return put(k, value);
  }

  public TxKMeans setMaxIter(int value) {
    return put(maxIter, value);
  }

  public TxKMeans setTol(double value) {
    return put(tol, value);
  }

  public TxKMeans setSeed(long value) {
    return put(seed, value);
  }

  /** "k-means||" or "random"; another value is an error naming initMode. */
  public TxKMeans setInitMode(String value) {
    return put(initMode, value);
  }

  public TxKMeans setInitSteps(int value) {
    return put(initSteps, value);
  }

  public TxKMeans setFeaturesCol(String value) {
    return put(featuresCol, value);
  }

  /**
   * Reads the points from these numeric columns (double, float, int or long; one per dimension,
   * in this order) instead of an ml Vector column: what a table holds before a VectorAssembler,
   * and from Parquet about twice as fast to read. None: back to {@code featuresCol}.
   */
  public TxKMeans setFeaturesCols(String... value) {
    if (value == null || Arrays.stream(value).anyMatch(c -> c == null || c.isEmpty())) {
      throw new IllegalArgumentException("featuresCols: column names must be given and "
          + "non-empty");
    }
    if (Arrays.stream(value).distinct().count() != value.length) {
      throw new IllegalArgumentException("featuresCols: a column is named twice in "
          + Arrays.toString(value));
    }
    set(featuresCols, value.clone());
    return this;
  }

  public TxKMeans setPredictionCol(String value) {
    return put(predictionCol, value);
  }

  /**
   * How the points are laid out (default {@code spark.gstm.kmeans.pointSets}): "partitions", a
   * point set per partition and a Spark job per iteration; "engines", a point set per executor
   * engine (per GPU), merged once the partitions are read, and with one engine every iteration
   * inside one task; "auto", engines when the executors run on GPUs, else partitions. It
   * changes speed, and the centroids only by rounding (the sums are added in another order).
   */
  public TxKMeans setPointSets(String value) {
    this.pointSets = GstmConf.KMEANS_POINT_SETS.parse(value);
    return this;
  }

  /** Starts from these centroids ({@code k} rows of the features' size) instead of initMode. */
  public TxKMeans setInitialCentroids(double[][] centroids) {
    this.initialCentroids = centroids == null ? null
        : Arrays.stream(centroids).map(double[]::clone).toArray(double[][]::new);
    return this;
  }

  private <T> TxKMeans put(Param<T> p, T value) {
    if (!(Boolean) p.isValid().apply(value)) {
      throw new IllegalArgumentException(p.name() + ": invalid value " + value + " ("
          + p.doc() + ")");
    }
    set(p, value);
    return this;
  }

  @Override
  public StructType transformSchema(StructType schema) {
    String[] cols = getFeaturesCols();
    return cols.length > 0
        ? TxKMeansModel.checkColumnsAndAppend(schema, cols, getPredictionCol())
        : TxKMeansModel.checkAndAppend(schema, getFeaturesCol(), getPredictionCol());
  }

  @Override
  public TxKMeans copy(ParamMap extra) {
    TxKMeans c = (TxKMeans) defaultCopy(extra);
    c.initialCentroids = initialCentroids;
    c.pointSets = pointSets;
    return c;
  }

  /** A partition's points, row-major. */
  @DefaultSerializer(JavaSerializer.class)
  record Block(double[] points, int n, int dims) implements Serializable {
    /** The points of several blocks, in order (empty blocks may have any dims). */
    static long points(List<Block> all) {
      long n = 0;
      for (Block b : all) {
        n += b.n();
      }
      return n;
    }

    /** The arrays of the non-empty blocks, in order. */
    static List<double[]> arrays(List<Block> all) {
      List<double[]> out = new ArrayList<>(all.size());
      for (Block b : all) {
        if (b.n() > 0) {
          out.add(b.points());
        }
      }
      return out;
    }

    /**
     * Several blocks' points joined in one array; copied on all cores when {@code parallel} (a
     * point set's task, alone on its executor: the JVM engine groups a point set's points in one
     * array, 6.4 GB for 100 M 8-D points), else on the caller's thread (a reading task, beside
     * the executor's other tasks).
     */
    static double[] join(List<double[]> parts, int words, boolean parallel) {
      if (parts.size() == 1 && parts.get(0).length == words) {
        return parts.get(0);
      }
      long[] at = new long[parts.size() + 1];
      for (int i = 0; i < parts.size(); i++) {
        at[i + 1] = at[i] + parts.get(i).length;
      }
      double[] points = new double[words];
      IntStream copies = IntStream.range(0, parts.size());
      (parallel ? copies.parallel() : copies).forEach(i -> System.arraycopy(
          parts.get(i), 0, points, (int) at[i], (int) (at[i + 1] - at[i])));
      return points;
    }
  }

  /**
   * Fits from the initial centroids. An executor lost in the middle takes its partitions'
   * points with it (locally checkpointed, without lineage): the fit then starts over, up to
   * {@value #MAX_RESTARTS} times, and ends where it would have.
   */
  @Override
  public TxKMeansModel fit(Dataset<?> dataset) {
    for (int restarts = 0; ; restarts++) {
      try {
        return fitOnce(dataset);
      } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
        String lost = TaskErrors.lostCheckpoint(e);
        if (lost == null) {
          lost = lostPoints(e);
        }
        if (restarts == MAX_RESTARTS || lost == null) {
          throw e;
        }
        LOG.warn("TxKMeans: an executor was lost with points of the fit ({}); starting over "
            + "({} of {} restarts)", lost, restarts + 1, MAX_RESTARTS);
      }
    }
  }

  private TxKMeansModel fitOnce(Dataset<?> dataset) {
    long start = System.nanoTime();
    transformSchema(dataset.schema());
    int kk = getK();
    GstmSettings settings = GstmConf.settings(dataset.sparkSession().sparkContext().getConf());
    options(settings); // checks the engine options on the driver
    ExecutorEngines.checkBeforeJobs(dataset.sparkSession().sparkContext(), settings);
    String col = getFeaturesCol();
    // Internal rows, dense vectors read in place: no Row or Vector object per point.
    String[] cols = getFeaturesCols();
    JavaRDD<Block> blocks = cols.length > 0 ? PointBlocks.columns(dataset, cols)
        : PointBlocks.vectors(dataset, col);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(dataset.sparkSession().sparkContext());
    // A point set per engine: the blocks stay on the executors that read them (ResidentPoints),
    // outside Spark's cache. A point set per partition: Spark caches them.
    boolean resident = pointSets(jsc, settings) == PointSets.ENGINES;
    if (resident) {
      // Each executor reads an equal share, and its point set is as large as the others'.
      blocks = ExecutorSpread.evenly(blocks);
    }
    long run = RUNS.incrementAndGet() ^ (System.nanoTime() << 20);
    if (!resident) {
      blocks.persist(StorageLevel.MEMORY_AND_DISK());
      // Cut the lineage once the blocks are built (by the first job below): every iteration's
      // task then carries a checkpoint partition, not the input's (a parallelized collection's
      // partition holds its data: 7.8 MB per task per iteration in the benchmark).
      blocks.rdd().localCheckpoint();
    }
    List<Placed> placed = new ArrayList<>();
    try {
      return fitBlocks(dataset, blocks, kk, col, settings, start, run, resident ? placed : null);
    } catch (Exception e) { // a failed job is a SparkException, which Java sees as checked
      // Bad input a task found (a null or non-finite vector, sizes that differ) is the
      // IllegalArgumentException it was, here on the driver.
      throw TaskErrors.badInput(e);
    } finally {
      if (resident) {
        PointSetJobs.release(jsc, run, placed);
      } else {
        blocks.unpersist(false);
      }
    }
  }

  /** Where an input partition's block was left: its executor, host and points. */
  @DefaultSerializer(JavaSerializer.class)
  record Placed(int partition, String executor, String host, long n, int dims)
      implements Serializable {}

  /**
   * Why {@code e} failed when points a fit left on an executor are gone (the executor was lost):
   * the message of that error; else null.
   */
  static String lostPoints(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ResidentPoints.PointsLostException
          || (t.getMessage() != null && t.getMessage().contains(POINTS_LOST))) {
        return t.getMessage().lines().findFirst().orElse("");
      }
    }
    return null;
  }

  /** The start of a {@link ResidentPoints.PointsLostException}'s message. */
  static final String POINTS_LOST = "gstm TxKMeans: the points of input partition";

  /** Checks the points the blocks hold, starts the centroids and iterates. */
  private TxKMeansModel fitBlocks(Dataset<?> dataset, JavaRDD<Block> blocks, int kk,
      String col, GstmSettings settings, long start, long run, List<Placed> placed) {
    long n = 0;
    TreeSet<Integer> sizes = new TreeSet<>();
    List<long[]> counts;
    if (placed != null) {
      // The first job leaves every block on its executor and says where.
      placed.addAll(blocks.mapPartitionsWithIndex((i, it) -> {
        Block b = it.next();
        if (b.n() > 0) {
          ResidentPoints.add(run, i, b);
        }
        return List.of(new Placed(i, ThisExecutor.id(), ThisExecutor.host(), b.n(), b.dims()))
            .iterator();
      }, true).collect());
      counts = placed.stream().map(p -> new long[] {p.n(), p.dims()}).toList();
    } else {
      counts = blocks.map(b -> new long[] {b.n(), b.dims()}).collect();
    }
    for (long[] c : counts) {
      n += c[0];
      if (c[0] > 0) {
        sizes.add((int) c[1]);
      }
    }
    if (sizes.size() > 1) {
      throw new IllegalArgumentException("column '" + col + "': vectors of sizes " + sizes);
    }
    if (n == 0) {
      throw new IllegalArgumentException("column '" + col + "': the dataset has no points");
    }
    if (kk > n) {
      throw new IllegalArgumentException("k: k = " + kk + " is larger than the number of "
          + "points (" + n + ")");
    }
    int dims = sizes.first();
    LOG.debug("TxKMeans: {} points read in {} ms", n, (System.nanoTime() - start) / 1_000_000);
    double[][] centers = initialCentroids != null ? checkInitial(initialCentroids, kk, dims)
        : mllibInit(dataset, kk, dims);
    if (placed != null) {
      long prepared = System.nanoTime();
      SparkContext sc = blocks.context();
      int engines = EngineCount.engines(sc, EngineCount.gpuExecutors(sc, settings));
      Progress f = PointSetJobs.iterate(sc, placed, run, centers, dims, settings, getMaxIter(),
          getTol() * getTol(), engines, PointSetJobs.START_TIMEOUT_MILLIS);
      if (f.dropped) {
        placed.clear(); // nothing of the fit is left on the executors to release
      }
      return model(f, n, start, prepared);
    }
    return iterate(blocks, centers, dims, n, settings, start, run);
  }

  private static KMeansOptions options(GstmSettings s) {
    return new KMeansOptions(s.transactions().threadsPerBlock(),
        s.kmeans().pointsPerTransaction(),
        RunOptions.defaults().withMaxRetries(s.transactions().retryLimit()));
  }

  private static double[][] checkInitial(double[][] c, int k, int dims) {
    if (c.length != k) {
      throw new IllegalArgumentException("initialCentroids: " + c.length + " centroids for k = "
          + k);
    }
    for (int j = 0; j < c.length; j++) {
      if (c[j] == null || c[j].length != dims) {
        throw new IllegalArgumentException("initialCentroids: every centroid needs " + dims
            + " coordinates (the features' size)");
      }
      for (double x : c[j]) {
        if (!Double.isFinite(x)) {
          throw new IllegalArgumentException("initialCentroids: centroid " + j + " holds " + x
              + "; centroids must be finite");
        }
      }
    }
    return c;
  }

  /** MLlib's own initialisation (maxIter = 0) with this estimator's mode, steps and seed. */
  private double[][] mllibInit(Dataset<?> dataset, int kk, int dims) {
    String features = getFeaturesCol();
    String[] cols = getFeaturesCols();
    if (cols.length > 0) { // MLlib's initialisation reads vectors
      features = TxKMeansModel.assembledColumn(dataset.schema());
      dataset = TxKMeansModel.assemble(dataset, cols, features);
    }
    KMeans init = new KMeans().setK(kk).setSeed(getSeed()).setInitMode(getInitMode())
        .setInitSteps((Integer) getOrDefault(initSteps)).setMaxIter(0)
        .setFeaturesCol(features).setPredictionCol(getPredictionCol() + "_init");
    Vector[] centers = init.fit(dataset).clusterCenters();
    if (centers.length < kk) {
      throw new IllegalArgumentException("k: only " + centers.length
          + " distinct initial centroids found for k = " + kk + " (too few distinct points)");
    }
    double[][] c = new double[kk][];
    for (int j = 0; j < kk; j++) {
      c[j] = centers[j].toArray();
    }
    return c;
  }

  /**
   * A point set per partition, cached by Spark: a job per iteration (with one partition, every
   * iteration inside one task).
   */
  private TxKMeansModel iterate(JavaRDD<Block> blocks, double[][] initial, int dims, long n,
      GstmSettings settings, long start, long run) {
    long prepared = System.nanoTime();
    int kk = initial.length;
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(blocks.context());
    double tolSq = getTol() * getTol();
    int sets = blocks.getNumPartitions();
    Progress f = new Progress(flatten(initial, dims));
    if (sets == 1) {
      f = ((Progress[]) jsc.sc().runJob(blocks.rdd(),
          new AllIterations(new Loop(run, f.centroids, kk, dims, settings, getMaxIter(), tolSq)),
          ClassTag$.MODULE$.apply(Progress.class)))[0];
    }
    while (f.iterations < getMaxIter() && !f.converged) {
      long t0 = System.nanoTime();
      f.advance(aggregate(blocks, new UpdateTask(run, f.centroids, kk, dims, settings)), tolSq);
      LOG.debug("TxKMeans: iteration {} in {} ms", f.iterations - 1,
          (System.nanoTime() - t0) / 1_000_000);
    }
    ResidentCache.release(run);
    if (!jsc.sc().isLocal()) {
      blocks.foreachPartition(it -> ResidentCache.release(run)); // blocks still cached
    }
    f.sets = sets;
    return model(f, n, start, prepared);
  }

  /** The fitted model and its report, from where the iterations ended. */
  private TxKMeansModel model(Progress f, long n, long start, long prepared) {
    long iterated = System.nanoTime();
    int dims = f.centroids.length / getK();
    TxKMeansReport report = new TxKMeansReport(
        new TxKMeansReport.Placement(List.copyOf(f.engines), f.fellBack, f.sets), n,
        f.iterations, f.converged, f.cost, f.tx, new TxKMeansReport.Timings(f.kernelNanos,
            prepared - start, iterated - prepared, iterated - start));
    TxKMeansModel model = new TxKMeansModel(uid, unflatten(f.centroids, getK(), dims), report);
    model.setFeaturesCol(getFeaturesCol()).setPredictionCol(getPredictionCol());
    if (getFeaturesCols().length > 0) {
      model.setFeaturesCols(getFeaturesCols());
    }
    return (TxKMeansModel) model.setParent(this);
  }

  /** How the points are laid out. */
  enum PointSets { PARTITIONS, ENGINES }

  /** The layout {@link #setPointSets} (or the configuration) asks for. */
  private PointSets pointSets(JavaSparkContext jsc, GstmSettings settings) {
    String mode = pointSets != null ? pointSets
        : GstmConf.KMEANS_POINT_SETS.parse(jsc.getConf().get(GstmConf.KMEANS_POINT_SETS.key(),
            null));
    if (mode.equals("partitions")
        || (mode.equals("auto") && !EngineCount.gpuExecutors(jsc.sc(), settings))) {
      return PointSets.PARTITIONS;
    }
    return PointSets.ENGINES;
  }

  /** The centroids so far and what the iterations did; advanced on the driver or in a task. */
  @DefaultSerializer(JavaSerializer.class)
  static final class Progress implements Serializable {
    private static final long serialVersionUID = 1L;
    double[] centroids;
    int iterations;
    boolean converged;
    double cost = Double.NaN;
    TxCounts tx = TxCounts.NONE;
    long kernelNanos;
    final TreeSet<String> engines = new TreeSet<>();
    boolean fellBack;
    /** Point sets the iterations ran over. */
    int sets = 1;
    /** Whether the point sets' tasks dropped the fit's points on their executors. */
    boolean dropped;

    Progress(double[] centroids) {
      this.centroids = centroids;
    }

    /**
     * One Lloyd step from an iteration's merged partial: each non-empty cluster's mean (an empty
     * one keeps its centroid, as in MLlib); converged when none moved more than tol.
     */
    void advance(Partial total, double tolSq) {
      KMeansPartial p = total.toCore();
      int kk = p.k();
      int dims = p.dims();
      double[] next = centroids.clone();
      converged = true;
      for (int j = 0; j < kk; j++) {
        if (p.counts()[j] == 0) {
          continue;
        }
        double moved = 0;
        for (int d = 0; d < dims; d++) {
          double v = p.sums()[j * dims + d] / p.counts()[j];
          double diff = v - centroids[j * dims + d];
          moved += diff * diff;
          next[j * dims + d] = v;
        }
        if (moved > tolSq) {
          converged = false;
        }
      }
      centroids = next;
      cost = p.cost();
      tx = tx.plus(p.tx());
      kernelNanos += p.kernelNanos();
      engines.addAll(total.engines);
      fellBack |= total.fellBack;
      iterations++;
    }
  }

  /**
   * What a task that runs a fit's iterations needs: the run, the centroids it starts from, the
   * shape, the settings and when to stop.
   */
  @DefaultSerializer(JavaSerializer.class)
  record Loop(long run, double[] centroids, int k, int dims, GstmSettings settings, int maxIter,
      double tolSq) implements Serializable {
    /** One iteration's partial of point set {@code set} ({@code b}) under {@code at}. */
    Partial update(int set, List<Block> b, double[] at) {
      return TxKMeans.update(run, set, b, at, k, dims, settings);
    }

    /** Every iteration over point set {@code set} ({@code b}), here, in its one task. */
    Progress runHere(int set, List<Block> b) {
      long t0 = System.nanoTime();
      Progress f = new Progress(centroids);
      while (f.iterations < maxIter && !f.converged) {
        f.advance(update(set, b, f.centroids), tolSq);
      }
      LOG.debug("TxKMeans: {} iterations over {} points in one task in {} ms", f.iterations,
          Block.points(b), (System.nanoTime() - t0) / 1_000_000);
      return f;
    }
  }

  /** Every iteration of a fit over one point set, inside its one task. A named class, as below. */
  @DefaultSerializer(JavaSerializer.class)
  static final class AllIterations
      extends AbstractFunction2<TaskContext, Iterator<Block>, Progress> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Loop loop;

    AllIterations(Loop loop) {
      this.loop = loop;
    }

    @Override
    public Progress apply(TaskContext task, Iterator<Block> blocks) {
      return loop.runHere(task.partitionId(), List.of(blocks.next()));
    }
  }

  /**
   * Partitions up to which {@code treeReduce(depth 2)} has no intermediate level (its scale
   * {@code max(ceil(sqrt(p)), 2)} plus {@code ceil(p / scale)} is at least {@code p}): the
   * partials of at most this many partitions are merged on the driver by either way.
   */
  static final int DRIVER_MERGE_MAX_PARTITIONS = 5;

  /**
   * One iteration's job: every partition's partial, tree-aggregated. With few partitions
   * ({@value #DRIVER_MERGE_MAX_PARTITIONS} or fewer) the tree is a single merge on the driver, so
   * the job runs the task directly ({@code SparkContext.runJob}) and merges the partials in
   * partition order: the same aggregation as {@code treeReduce(merge, 2)}, without its extra RDD
   * and the closures Spark analyses (reading class files) on every job, about half the cost of a
   * short iteration on this 2-core machine. With more partitions, {@code treeReduce(merge, 2)}.
   */
  static Partial aggregate(JavaRDD<Block> blocks, UpdateTask task) {
    int parts = blocks.getNumPartitions();
    if (parts > DRIVER_MERGE_MAX_PARTITIONS) {
      return blocks.mapPartitionsWithIndex((i, it) -> List.of(task.apply(i, it.next())).iterator(),
          true).treeReduce(Partial::merge, 2);
    }
    Partial[] partials = (Partial[]) blocks.context().runJob(blocks.rdd(), task,
        ClassTag$.MODULE$.apply(Partial.class));
    Partial total = partials[0];
    for (int i = 1; i < partials.length; i++) {
      total = Partial.merge(total, partials[i]);
    }
    return total;
  }

  /**
   * The task of an iteration: the partition's partial under the iteration's centroids. A named
   * class rather than a lambda, so that Spark's closure cleaner does not analyse its bytecode
   * on every job. The centroids travel inside it: Spark broadcasts every stage's serialized task
   * once to the executors anyway, so a broadcast of their own (created, then destroyed, every
   * iteration) would only add its own round trips.
   */
  @DefaultSerializer(JavaSerializer.class)
  static final class UpdateTask extends AbstractFunction2<TaskContext, Iterator<Block>, Partial>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final long run;
    private final double[] centroids;
    private final int k;
    private final int dims;
    private final GstmSettings settings;

    UpdateTask(long run, double[] centroids, int k, int dims, GstmSettings settings) {
      this.run = run;
      this.centroids = centroids;
      this.k = k;
      this.dims = dims;
      this.settings = settings;
    }

    @Override
    public Partial apply(TaskContext task, Iterator<Block> blocks) {
      return apply(task.partitionId(), blocks.next());
    }

    Partial apply(int partition, Block block) {
      return update(run, partition, List.of(block), centroids, k, dims, settings);
    }
  }

  /** One partition's transactional centroid update with the engine of its executor. */
  static Partial update(long run, int partition, List<Block> blocks, double[] centroids, int k,
      int dims, GstmSettings settings) {
    TaskHold.at("kmeans.update", partition); // where the cluster suite kills an executor
    Partial out = new Partial();
    long n = Block.points(blocks);
    if (n == 0) {
      out.keep(KMeansPartial.empty(k, dims));
      return out;
    }
    try (ResidentCache.Handle<PartitionKMeans> h = ResidentCache.acquire(run, partition,
        settings, engine -> new PartitionKMeans(
            new KMeansUpdater(engine, k, dims, options(settings))))) {
      if (n * dims > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException("points: a point set of " + n + " points of " + dims
            + " dims exceeds a device region; use more executors (or GPUs), or "
            + "setPointSets(\"partitions\")");
      }
      out.keep(h.value().update(Block.arrays(blocks), (int) n, centroids));
      out.engines.add(h.lease().engine().name() + " (" + h.lease().reason() + ")");
      out.fellBack = !h.lease().gpu() && settings.executors().engine() != EngineChoice.JVM;
    }
    return out;
  }

  /** A partial (its fields: the core record is not Serializable) plus where it was computed. */
  @DefaultSerializer(JavaSerializer.class)
  static final class Partial implements Serializable {
    private static final long serialVersionUID = 1L;
    int k;
    int dims;
    double[] sums;
    long[] counts;
    double cost;
    TxCounts tx = TxCounts.NONE;
    long kernelNanos;
    final TreeSet<String> engines = new TreeSet<>();
    boolean fellBack;

    void keep(KMeansPartial p) {
      k = p.k();
      dims = p.dims();
      sums = p.sums();
      counts = p.counts();
      cost = p.cost();
      tx = p.tx();
      kernelNanos = p.kernelNanos();
    }

    KMeansPartial toCore() {
      return new KMeansPartial(k, dims, sums, counts, cost, tx, kernelNanos);
    }

    static Partial merge(Partial a, Partial b) {
      Partial m = new Partial();
      m.keep(a.toCore().merge(b.toCore()));
      m.engines.addAll(a.engines);
      m.engines.addAll(b.engines);
      m.fellBack = a.fellBack || b.fellBack;
      return m;
    }
  }

  static double[] flatten(double[][] c, int dims) {
    double[] f = new double[c.length * dims];
    for (int j = 0; j < c.length; j++) {
      System.arraycopy(c[j], 0, f, j * dims, dims);
    }
    return f;
  }

  static double[][] unflatten(double[] f, int k, int dims) {
    double[][] c = new double[k][];
    for (int j = 0; j < k; j++) {
      c[j] = Arrays.copyOfRange(f, j * dims, (j + 1) * dims);
    }
    return c;
  }
}
