package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.program.Program;
import io.gstm.core.program.ValueType;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.PinnedRDD;
import io.gstm.spark.exec.TaskErrors;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keyed shared state resident on the executors, updated by transaction programs.
 *
 * <p>A state is made from a DataFrame of a key column (int or long, distinct, not null) and
 * typed value columns (int, long, float, double); each value column is a store region of the
 * same name, which programs address by that name. The rows are hash- (or range-) partitioned
 * into P partitions; each partition is a {@code TxStore} on its executor's engine (the GPU, or
 * the JVM engine, chosen by {@code spark.gstm.*} as for every gstm job) and stays there across
 * Spark jobs until {@link #close()}.
 *
 * <pre>{@code
 * TxState accounts = TxState.from(accountsDF).key("id").values("balance").partitions(4).create();
 * ApplyResult r = accounts.transactions(transfersDF, BANK).run();   // an epoch
 * r.outcomes();             // txId, outcome, postponements, abortCode, outputs ...
 * accounts.toDF();          // (id, balance) at the last committed epoch
 * accounts.checkpoint(path); TxState.restore(spark, path);
 * }</pre>
 *
 * <p><b>Guarantees.</b> Every apply is an epoch; applies on one state run one after the other
 * (a second caller waits), and every epoch's committed transactions are equivalent to a serial
 * order: each partition's own transactions, then those that span partitions. An epoch takes
 * effect once: a retried or speculative task of an epoch a partition already applied gets the
 * recorded result; a failed apply leaves every partition at the last committed epoch (each
 * keeps an undo copy until the driver builds on the next epoch); an apply with a batch id the
 * state has applied changes nothing. A partition whose executor is lost is rebuilt from the last
 * checkpoint and the epochs logged after it ({@link #logEpochs}); without the log the next job
 * fails with a {@link StateLostException} that names it and the last checkpoint to restore. See
 * docs/spark-transactions.md.
 *
 * <p>Bad input is an IllegalArgumentException naming the column, program or key, raised before
 * any task runs; what only the data can tell (a key the state lacks, a null key or value, an
 * unknown program name) is the transaction's outcome.
 */
public final class TxState implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TxState.class);
  /** Outcome DataFrames of batch-id applies kept for replays. */
  static final int KEEP_RESULTS = 8;
  /** How long a broken epoch in one stage waits for the driver to hear of a lost executor. */
  static final long LOSS_NOTICE_MILLIS = 15_000;
  /** Partitions rebuilt from a checkpoint and the epoch log (for tests). */
  static final java.util.concurrent.atomic.AtomicLong RECOVERIES =
      new java.util.concurrent.atomic.AtomicLong();

  private final SparkSession spark;
  private final long id;
  private final StateSchema schema;
  private final ReentrantLock lock = new ReentrantLock(true);
  private Exchange.Placement[] placements;
  private long committed;
  private long nextEpoch;
  private final TreeSet<Long> batchIds = new TreeSet<>();
  private final LinkedHashMap<Long, ApplyResult> results = new LinkedHashMap<>();
  private String checkpointPath;
  private String checkpointData;
  private long checkpointEpoch = -1;
  private boolean logEpochs;
  /** Whether the epoch log next to the checkpoint holds every epoch committed since it. */
  private boolean logValid;
  private String lost;
  private volatile boolean closed;

  private TxState(SparkSession spark, long id, StateSchema schema, Exchange.Placement[] placed,
      long epoch) {
    this.spark = spark;
    this.id = id;
    this.schema = schema;
    this.placements = placed;
    this.committed = epoch;
    this.nextEpoch = epoch + 1;
  }

  /** Starts a state made from {@code rows}. */
  public static Builder from(Dataset<Row> rows) {
    return new Builder(rows);
  }

  /** Builds a {@link TxState}; {@link #create()} checks everything and loads the rows. */
  public static final class Builder {
    private final Dataset<Row> rows;
    private String key;
    private List<String> values;
    private Integer partitions;
    private boolean range;
    private long[] bounds;
    private String algorithm = "prstm";
    private String name;
    private boolean insertsAndDeletes;
    private Integer maxRows;

    private Builder(Dataset<Row> rows) {
      if (rows == null) {
        throw new IllegalArgumentException("rows: the DataFrame must not be null");
      }
      this.rows = rows;
    }

    /** The key column: int or long, distinct, not null. */
    public Builder key(String column) {
      this.key = column;
      return this;
    }

    /** The value columns (default: every column but the key), each int, long, float or double. */
    public Builder values(String... columns) {
      this.values = List.of(columns);
      return this;
    }

    /**
     * Partitions (default {@code spark.default.parallelism}). A transaction whose keys fall in
     * several partitions runs in the cross-partition phase: fewer, larger partitions (one per
     * GPU) keep more transactions local.
     */
    public Builder partitions(int value) {
      if (value < 1 || value > 100_000) {
        throw new IllegalArgumentException("partitions must be between 1 and 100000, got "
            + value);
      }
      this.partitions = value;
      return this;
    }

    /** Partitions by key ranges split at the keys' quantiles (default: by hash). */
    public Builder rangePartitioned() {
      this.range = true;
      this.bounds = null;
      return this;
    }

    /** Partitions by key ranges split at {@code splitPoints} (ascending; P - 1 of them). */
    public Builder rangePartitioned(long... splitPoints) {
      this.range = true;
      this.bounds = splitPoints.clone();
      this.partitions = splitPoints.length + 1;
      return this;
    }

    /** "prstm" (default: PR-STM with the semantic contention manager) or "csmv". */
    public Builder algorithm(String value) {
      this.algorithm = StateSchema.parseAlgorithm(value);
      return this;
    }

    /**
     * Lets transactions insert and delete rows (default: the key set is fixed at creation).
     * Programs see one more int32 region, {@code exists}: 1 for a row that exists, 0 for one
     * that does not (a key never held, or deleted). An insert sets it to 1 and writes the row's
     * values, a delete sets it to 0; a row that does not exist holds zeros. A program that does
     * not declare {@code exists} runs only on rows that exist (MISSING_KEY otherwise). See
     * docs/spark-transactions.md, "Inserts and deletes".
     */
    public Builder insertsAndDeletes() {
      this.insertsAndDeletes = true;
      return this;
    }

    /**
     * The most keys one partition may hold (default: as many as one store can); an epoch whose
     * inserts would pass it fails before it changes anything, naming this limit.
     */
    public Builder maxRowsPerPartition(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxRowsPerPartition must be at least 1, got "
            + value);
      }
      this.maxRows = value;
      return this;
    }

    /** A name used in errors, reports and SQL (default "state-N"). */
    public Builder name(String value) {
      this.name = value;
      return this;
    }

    /**
     * Loads the rows into their partitions' stores (one Spark job) and returns the state at
     * epoch 0; the caller closes it. A repeated or null key, a null value, a missing or
     * unsupported column is an IllegalArgumentException naming it.
     */
    public TxState create() {
      return create(0, Set.of(), null, null);
    }

    /**
     * At {@code epoch} (a checkpoint's), then through {@code replay}'s logged epochs of the log
     * next to checkpoint {@code logPath} (when not null).
     */
    TxState create(long epoch, Set<Long> appliedBatches, long[] replay, String logPath) {
      if (key == null) {
        throw new IllegalArgumentException("key: name the key column with key(...)");
      }
      List<String> columns = Arrays.asList(rows.schema().fieldNames());
      StructField k = field(rows, key, "key");
      boolean intKey;
      if (k.dataType() == DataTypes.IntegerType || k.dataType() == DataTypes.ShortType
          || k.dataType() == DataTypes.ByteType) {
        intKey = true;
      } else if (k.dataType() == DataTypes.LongType) {
        intKey = false;
      } else {
        throw new IllegalArgumentException("column '" + key + "' (key) must be int or long, got "
            + k.dataType().simpleString());
      }
      List<String> vals = values != null ? values
          : columns.stream().filter(c -> !c.equals(key)).toList();
      if (new LinkedHashSet<>(vals).size() != vals.size() || vals.contains(key)) {
        throw new IllegalArgumentException("values: each value column once, and not the key: "
            + vals);
      }
      List<ValueType> types = new ArrayList<>();
      for (String v : vals) {
        DataType t = field(rows, v, "value").dataType();
        ValueType vt = StateSchema.valueTypeOf(t);
        if (vt == null) {
          throw new IllegalArgumentException("column '" + v + "' (value) must be int, long, "
              + "float or double, got " + t.simpleString());
        }
        types.add(vt);
      }
      SparkSession spark = rows.sparkSession();
      GstmSettings settings = GstmConf.settings(spark.sparkContext().getConf());
      int p = partitions != null ? partitions : spark.sparkContext().defaultParallelism();
      KeyPartitioner parts;
      if (!range) {
        parts = KeyPartitioner.hash(p);
      } else if (bounds != null) {
        parts = new KeyPartitioner(p, bounds);
      } else {
        parts = new KeyPartitioner(p, quantiles(rows, key, p));
      }
      long id = ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE;
      String n = name != null ? name : "state-" + Long.toHexString(id).substring(0, 6);
      int coverage = settings.transactions().lockCoverage();
      int regions = vals.size() + (insertsAndDeletes ? 1 : 0);
      StateSchema schema = new StateSchema(n, key, intKey, vals, types, parts, algorithm,
          coverage, insertsAndDeletes, maxRows != null ? maxRows
              : StateSchema.defaultMaxRows(Math.max(1, regions), coverage));
      ExecutorEngines.checkBeforeJobs(spark.sparkContext(), settings);
      Exchange.Placement[] placed;
      try {
        StateJobs.Replay r = null;
        if (replay != null) {
          Set<Integer> all = new java.util.HashSet<>();
          for (int i = 0; i < p; i++) {
            all.add(i);
          }
          r = new StateJobs.Replay(all, logPath, replay,
              org.apache.spark.util.SerializableConfiguration.broadcast(spark.sparkContext()));
        }
        placed = StateJobs.create(spark, rows, schema, id, epoch, settings, r);
      } catch (Exception e) {
        StateJobs.close(spark, new Ref(id, n, new long[0], null), p);
        throw TaskErrors.badInput(e);
      }
      TxState s = new TxState(spark, id, schema, placed,
          replay == null || replay.length == 0 ? epoch : replay[replay.length - 1]);
      s.batchIds.addAll(appliedBatches);
      LOG.info("gstm state '{}': {} partitions ({}), {} rows, on {}", n, p, parts.describe(),
          Arrays.stream(placed).mapToLong(Exchange.Placement::rows).sum(),
          new LinkedHashSet<>(Arrays.stream(placed).map(Exchange.Placement::engine).toList()));
      return s;
    }

    private static long[] quantiles(Dataset<Row> rows, String key, int p) {
      double[] probs = new double[p - 1];
      for (int i = 0; i < probs.length; i++) {
        probs[i] = (i + 1.0) / p;
      }
      double[] q = rows.stat().approxQuantile(key, probs, 0.001);
      long[] b = new long[q.length];
      for (int i = 0; i < q.length; i++) {
        b[i] = (long) Math.ceil(q[i]);
      }
      Arrays.sort(b);
      return b;
    }
  }

  /** What tasks need to find the partitions: the state's id and where each partition lives. */
  @DefaultSerializer(JavaSerializer.class)
  record Ref(long id, String name, long[] incarnations, String[] locations)
      implements Serializable {
    long incarnation(int partition) {
      return incarnations[partition];
    }

    /** Checks a task's report against the placement the driver holds. */
    void check(Exchange.Placement p) {
      if (p.incarnation() != incarnations[p.partition()]) {
        throw new IllegalStateException("gstm state '" + name + "' partition " + p.partition()
            + " answered from another incarnation than the driver placed");
      }
    }
  }

  Ref ref() {
    long[] inc = new long[placements.length];
    String[] loc = spark.sparkContext().isLocal() ? null : new String[placements.length];
    for (int i = 0; i < inc.length; i++) {
      inc[i] = placements[i].incarnation();
      if (loc != null) {
        String hostPort = placements[i].host();
        String host = hostPort.substring(0, hostPort.lastIndexOf(':'));
        loc[i] = PinnedRDD.location(host, placements[i].executorId());
      }
    }
    return new Ref(id, schema.name(), inc, loc);
  }

  StateSchema schema() {
    return schema;
  }

  /** An apply of {@code transactions} running the programs of {@code programs} (their text). */
  public TxApply transactions(Dataset<Row> transactions, String programs) {
    return new TxApply(this, transactions, Program.parse(programs));
  }

  /** An apply of {@code transactions} running {@code programs}. */
  public TxApply transactions(Dataset<Row> transactions, List<Program> programs) {
    return new TxApply(this, transactions, programs);
  }

  /** Applies {@code transactions} with default options; returns the outcome rows. */
  public Dataset<Row> apply(Dataset<Row> transactions, String programs) {
    return transactions(transactions, programs).run().outcomes();
  }

  /**
   * For {@code transactions.transform(state.applying(programs))}: applies them (now, as an
   * epoch, when transform calls it) and gives the outcome rows.
   */
  public scala.Function1<Dataset<Row>, Dataset<Row>> applying(String programs) {
    return df -> apply(df, programs);
  }

  /** Applies {@code transactions} once per {@code batchId} (for foreachBatch). */
  public ApplyResult apply(Dataset<Row> transactions, String programs, long batchId) {
    return transactions(transactions, programs).batchId(batchId).run();
  }

  ApplyResult run(Dataset<Row> transactions, ApplyPlan plan, Long batchId) {
    long start = System.nanoTime();
    lock.lock();
    try {
      checkOpen();
      if (batchId != null && batchIds.contains(batchId)) {
        ApplyResult earlier = results.get(batchId);
        LOG.info("gstm state '{}': batch {} was applied before; nothing applied",
            schema.name(), batchId);
        return earlier != null ? earlier.asReplay() : new ApplyResult(null, -1, batchId, true,
            Map.of(), 0, 0, 0, System.nanoTime() - start, List.of(), false, "none");
      }
      GstmSettings settings = GstmConf.settings(spark.sparkContext().getConf());
      ExecutorEngines.checkBeforeJobs(spark.sparkContext(), settings);
      checkAlive();
      long epoch = -1;
      StateJobs.Applied a = null;
      // Partitions rebuilt during this apply: each at most once, so that the retries end.
      Set<Integer> rebuilt = new java.util.TreeSet<>();
      boolean rerunLostResult = false;
      boolean jobsOnly = false;
      while (a == null) {
        epoch = nextEpoch++;
        try {
          a = StateJobs.apply(spark, ref(), transactions, plan, epoch, committed, settings,
              jobsOnly);
          if (logEpochs && logValid) {
            StateJobs.log(spark, ref(), schema.partitions(), epoch, checkpointPath, settings);
            EpochLog.commit(checkpointPath, epoch, batchId,
                spark.sparkContext().hadoopConfiguration());
          }
        } catch (Exception e) {
          LOG.warn("gstm state '{}': epoch {} failed; every partition stays at epoch {}",
              schema.name(), epoch, committed);
          String lostBlock = io.gstm.spark.exec.TaskErrors.lostCheckpoint(e);
          StateLostException gone = lostIn(e);
          if (gone == null && lostBlock != null) {
            gone = lostWithCheckpoint(lostBlock, epoch);
          }
          if (gone == null && brokenMesh(e)) {
            // A task of the epoch in one stage, or its connection, was lost: an executor that
            // died takes its partitions with it; otherwise the epoch runs again with jobs.
            gone = lostInEpoch(epoch);
            if (gone == null && !jobsOnly) {
              LOG.warn("gstm state '{}': epoch {} in one stage broke off ({}); running it "
                  + "again with the jobs exchange", schema.name(), epoch, e.getMessage());
              jobsOnly = true;
              continue;
            }
          }
          if (gone != null && ownerAlive(gone.partition())) {
            throw new IllegalStateException("gstm state '" + schema.name() + "': a task of "
                + "partition " + gone.partition() + " ran on another executor than the one "
                + "holding it, which is alive (Spark gave up waiting for it: raise "
                + "spark.locality.wait); nothing was applied, the state is at epoch "
                + committed, e);
          }
          if (gone == null && lostBlock != null && !rerunLostResult) {
            // The epoch's own result was on an executor that held no partition: nothing of the
            // state is gone; the next epoch undoes what this one wrote and runs the batch again.
            rerunLostResult = true;
            continue;
          }
          if (gone == null || rebuilt.contains(gone.partition())) {
            throw translate(e);
          }
          Set<Integer> lost = lostWith(gone.partition());
          if (!recover(lost, gone)) {
            throw lostIn(e) != null ? translate(e) : markLost(gone.partition(), gone.getMessage());
          }
          rebuilt.addAll(lost);
        }
      }
      logValid &= logEpochs;
      committed = epoch;
      long kernel = 0;
      long task = 0;
      Set<String> engines = new LinkedHashSet<>();
      boolean fellBack = false;
      List<Exchange.TaskStats> stats = new ArrayList<>();
      a.local().forEach(r -> stats.add(r.stats()));
      if (a.cross() != null) {
        stats.add(a.cross().stats());
      }
      for (Exchange.TaskStats s : stats) {
        kernel += s.kernelNanos();
        task += s.taskNanos();
        if (s.engine() != null) {
          engines.add(s.engine());
          fellBack |= !s.gpu()
              && settings.executors().engine() != io.gstm.core.engine.EngineChoice.JVM;
        }
      }
      LOG.debug("gstm state '{}' epoch {}: applied in {} ms", schema.name(), epoch,
          (System.nanoTime() - start) / 1_000_000);
      ApplyResult r = new ApplyResult(a.outcomes(), epoch, batchId, false,
          StateJobs.counts(a.local(), a.cross()), a.crossTransactions(), kernel, task,
          System.nanoTime() - start, new ArrayList<>(engines), fellBack, a.exchange());
      if (batchId != null) {
        batchIds.add(batchId);
        results.put(batchId, r);
        while (results.size() > KEEP_RESULTS) {
          results.remove(results.keySet().iterator().next());
        }
      }
      return r;
    } finally {
      lock.unlock();
    }
  }

  /**
   * The rows (key, values...) at the last committed epoch: a snapshot taken now (one job), kept
   * on the executors while the DataFrame is referenced; later applies do not change it.
   */
  public Dataset<Row> toDF() {
    lock.lock();
    try {
      checkOpen();
      checkAlive();
      GstmSettings settings = GstmConf.settings(spark.sparkContext().getConf());
      try {
        return StateJobs.read(spark, ref(), schema, committed, settings);
      } catch (Exception e) {
        StateLostException gone = lostIn(e);
        if (gone == null || !recover(lostWith(gone.partition()), gone)) {
          throw translate(e);
        }
      }
      try {
        return StateJobs.read(spark, ref(), schema, committed, settings);
      } catch (Exception e) {
        throw translate(e);
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Writes the rows at the last committed epoch to {@code path} as Parquet, with the epoch, the
   * applied batch ids and the state's schema and partitioning ({@code _gstm_state.json}, written
   * last); {@link #restore} continues from it. A checkpoint replaces an earlier one at the path.
   */
  public void checkpoint(String path) {
    lock.lock();
    try {
      Dataset<Row> rows = toDF();
      checkpointData = Checkpoints.write(spark, path, rows, schema, committed, batchIds);
      checkpointPath = path;
      checkpointEpoch = committed;
      logValid = true;
      EpochLog.truncate(path, committed, spark.sparkContext().hadoopConfiguration());
      LOG.info("gstm state '{}': checkpoint of epoch {} at {}", schema.name(), committed, path);
    } finally {
      lock.unlock();
    }
  }

  /** The state checkpointed at {@code path}, at its epoch, with its partitioning; loaded now. */
  public static TxState restore(SparkSession spark, String path) {
    return Checkpoints.restore(spark, path, null);
  }

  /** As {@link #restore(SparkSession, String)}, under another name. */
  public static TxState restore(SparkSession spark, String path, String name) {
    return Checkpoints.restore(spark, path, name);
  }

  void restoredFrom(String path, String data, long epoch) {
    checkpointPath = path;
    checkpointData = data;
    checkpointEpoch = epoch;
    logValid = true;
  }

  /**
   * With {@code true}, every epoch committed after a checkpoint is also logged next to it
   * ({@code CHECKPOINT/log/epoch-E/}: the rows each partition changed; one more job per apply),
   * so that a lost partition is rebuilt from the checkpoint and the log, and the apply that met
   * the loss runs again, instead of failing; {@link #restore} replays the log too. Logging
   * starts from the next {@link #checkpoint} (or from the checkpoint this state was restored
   * from, when no epoch committed since without it).
   */
  public TxState logEpochs(boolean on) {
    lock.lock();
    try {
      logEpochs = on;
      return this;
    } finally {
      lock.unlock();
    }
  }

  /** The last committed epoch (0 after create; restore keeps the checkpoint's). */
  public long epoch() {
    lock.lock();
    try {
      return committed;
    } finally {
      lock.unlock();
    }
  }

  public String name() {
    return schema.name();
  }

  public String keyColumn() {
    return schema.keyColumn();
  }

  public List<String> valueColumns() {
    return schema.valueNames();
  }

  public int partitions() {
    return schema.partitions();
  }

  /** The partition that owns {@code key}. */
  public int partitionOf(long key) {
    return schema.partitioner().owner(key);
  }

  /** The batch ids applied so far (including those of the checkpoint it was restored from). */
  public Set<Long> appliedBatchIds() {
    lock.lock();
    try {
      return Set.copyOf(batchIds);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Makes this state callable from SQL under its {@link #name()} through
   * {@link TxStateCatalog}'s procedures ({@code CALL gstm.apply(...)}); close unregisters it.
   */
  public TxState register() {
    checkOpen();
    TxStateCatalog.register(this);
    return this;
  }

  /** Closes every partition's store (a job on the executors); a second close does nothing. */
  @Override
  public void close() {
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      TxStateCatalog.unregister(this);
      try {
        StateJobs.close(spark, ref(), schema.partitions());
      } catch (Exception e) {
        LOG.warn("gstm state '{}': closing its partitions failed", schema.name(), e);
      }
    } finally {
      lock.unlock();
    }
  }

  public boolean isClosed() {
    return closed;
  }

  long id() {
    return id;
  }

  void checkOpen() {
    if (closed) {
      throw new IllegalStateException("gstm state '" + schema.name() + "' is closed");
    }
    if (lost != null) {
      throw new StateLostException(lost, -1);
    }
  }

  /** On a cluster: fails before any job when an executor holding a partition is gone. */
  private void checkAlive() {
    Set<Integer> gone = onLostExecutors();
    if (!gone.isEmpty()) {
      Exchange.Placement p = placements[gone.iterator().next()];
      StateLostException e = new StateLostException("its executor " + p.executorId() + " ("
          + p.host() + ") is gone", p.partition());
      if (!recover(gone, e)) {
        throw markLost(p.partition(), e.getMessage());
      }
    }
  }

  /** On a cluster, the partitions whose executors are gone (none in local mode). */
  private Set<Integer> onLostExecutors() {
    Set<Integer> gone = new java.util.TreeSet<>();
    if (spark.sparkContext().isLocal()) {
      return gone;
    }
    Set<String> alive = new java.util.HashSet<>();
    scala.jdk.javaapi.CollectionConverters.asJava(spark.sparkContext().getExecutorMemoryStatus())
        .keySet().forEach(alive::add);
    for (Exchange.Placement p : placements) {
      if (!alive.contains(p.host())) {
        gone.add(p.partition());
      }
    }
    return gone;
  }

  /**
   * {@code partition}, which a task did not find, and every other partition whose executor is
   * gone: an executor takes all the partitions it held with it, and a job reports one.
   */
  private Set<Integer> lostWith(int partition) {
    Set<Integer> lost = onLostExecutors();
    lost.add(partition);
    return lost;
  }

  /** On a cluster, whether the executor holding {@code partition} is still alive. */
  private boolean ownerAlive(int partition) {
    if (spark.sparkContext().isLocal() || partition < 0 || partition >= placements.length) {
      return false;
    }
    return scala.jdk.javaapi.CollectionConverters.asJava(
        spark.sparkContext().getExecutorMemoryStatus()).containsKey(
            placements[partition].host());
  }

  /**
   * After checkpoint block {@code block} of the epoch's own jobs was lost (the cross-partition
   * phase's result, or the values asked, was on an executor that died), the loss of the first
   * partition that executor held; null when it held none. The epoch is then rebuilt as after a
   * task that did not find its partition.
   */
  private StateLostException lostWithCheckpoint(String block, long epoch) {
    Set<Integer> gone = onLostExecutors();
    if (gone.isEmpty()) {
      return null;
    }
    int first = gone.iterator().next();
    return new StateLostException("gstm state '" + schema.name() + "': epoch " + epoch
        + " lost a result of its own jobs with the executor of partition(s) " + gone + " ("
        + block + ")", first);
  }

  private static boolean brokenMesh(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof EpochMesh.BrokenException) {
        return true;
      }
    }
    return false;
  }

  /**
   * After an epoch in one stage broke off: the loss of the first partition whose executor is
   * gone, waiting a little for the driver to hear of it (a task's connection drops at once, the
   * executor's removal comes later); null when none is.
   */
  private StateLostException lostInEpoch(long epoch) {
    long deadline = System.currentTimeMillis() + LOSS_NOTICE_MILLIS;
    Set<Integer> gone = onLostExecutors();
    while (gone.isEmpty() && !spark.sparkContext().isLocal()
        && System.currentTimeMillis() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        break;
      }
      gone = onLostExecutors();
    }
    if (gone.isEmpty()) {
      return null;
    }
    return new StateLostException("gstm state '" + schema.name() + "': epoch " + epoch
        + " lost the executor of partition(s) " + gone + " while it ran in one stage",
        gone.iterator().next());
  }

  private static StateLostException lostIn(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StateLostException s) {
        return s;
      }
    }
    return null;
  }

  /**
   * Rebuilds {@code parts} from the checkpoint and the epoch log, where both hold every
   * committed epoch; false (nothing done) otherwise.
   */
  private boolean recover(Set<Integer> parts, StateLostException why) {
    if (!logEpochs || !logValid || checkpointPath == null || parts.contains(-1)) {
      return false;
    }
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    java.util.TreeMap<Long, Long> logged = EpochLog.committedAfter(checkpointPath,
        checkpointEpoch, conf);
    long last = logged.isEmpty() ? checkpointEpoch : logged.lastKey();
    if (last != committed) {
      return false;
    }
    LOG.warn("gstm state '{}': partition(s) {} lost ({}); rebuilding them from the checkpoint "
        + "of epoch {} at {} and {} logged epoch(s)", schema.name(), parts, why.getMessage(),
        checkpointEpoch, checkpointPath, logged.size());
    long[] epochs = logged.keySet().stream().mapToLong(Long::longValue).toArray();
    GstmSettings settings = GstmConf.settings(spark.sparkContext().getConf());
    Exchange.Placement[] rebuilt = StateJobs.create(spark, spark.read().parquet(checkpointData),
        schema, id, checkpointEpoch, settings, new StateJobs.Replay(parts, checkpointPath,
            epochs, org.apache.spark.util.SerializableConfiguration.broadcast(
                spark.sparkContext())));
    Exchange.Placement[] next = placements.clone();
    for (Exchange.Placement p : rebuilt) {
      if (p != null) {
        next[p.partition()] = p;
      }
    }
    placements = next;
    RECOVERIES.incrementAndGet();
    return true;
  }

  private StateLostException markLost(int partition, String why) {
    lost = "gstm state '" + schema.name() + "': partition " + partition + " was lost (" + why
        + "); the state was at committed epoch " + committed + ". "
        + (checkpointPath == null ? "It has no checkpoint: the epochs 1.." + committed
            + " applied since it was created are lost with it."
            : "Its last checkpoint is epoch " + checkpointEpoch + " at " + checkpointPath
            + (checkpointEpoch < committed ? "; epochs " + (checkpointEpoch + 1) + ".."
            + committed + " are lost" : "") + ": TxState.restore(spark, \"" + checkpointPath
            + "\") continues from it, and applies with batch ids after it run again.");
    return new StateLostException(lost, partition);
  }

  /** A failed job as the exception the caller should see. */
  private RuntimeException translate(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StateLostException lostPart) {
        int part = lostPart.partition();
        String where = part >= 0 && part < placements.length ? "it was placed on executor "
            + placements[part].executorId() + " (" + placements[part].host() + "): "
            + lostPart.getMessage() : lostPart.getMessage();
        return markLost(part, where);
      }
    }
    return TaskErrors.badInput(e);
  }

  private static StructField field(Dataset<Row> rows, String name, String what) {
    if (!Arrays.asList(rows.schema().fieldNames()).contains(name)) {
      throw new IllegalArgumentException("column '" + name + "' (" + what + ") not found; "
          + "columns: " + Arrays.toString(rows.schema().fieldNames()));
    }
    return rows.schema().apply(name);
  }

  @Override
  public String toString() {
    return "TxState{" + schema.name() + ", key " + schema.keyColumn() + ", values "
        + schema.valueNames() + ", " + schema.partitioner().describe() + ", "
        + schema.algorithm() + ", epoch " + committed + (closed ? ", closed" : "") + "}";
  }
}
