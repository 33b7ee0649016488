package io.gstm.spark.state;

import static org.apache.spark.sql.functions.col;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.program.StoreContents;
import io.gstm.core.program.ValueType;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.CachedColumns;
import io.gstm.spark.exec.ColumnarSource;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.ExecutorSpread;
import io.gstm.spark.exec.InTaskPartitions;
import io.gstm.spark.exec.IndexPartitioner;
import io.gstm.spark.exec.PinnedRDD;
import io.gstm.spark.exec.PlainRdds;
import io.gstm.spark.exec.TaskEngine;
import io.gstm.spark.exec.ThisExecutor;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.TaskContext;
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
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.SerializableConfiguration;
import scala.Tuple2;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;

/**
 * The Spark jobs of a {@link TxState}: create, apply (route, local phase, cross-partition phase,
 * write-back), read, close. Static, so that the task functions capture only what they name.
 */
final class StateJobs {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(StateJobs.class);

  private StateJobs() {}

  /** Name of an apply's routed transactions while cached (one-partition states). */
  static final String ROUTED = "gstm routed transactions of state '";

  @SuppressWarnings("unchecked")
  static <T> ClassTag<T> tag(Class<?> c) {
    return (ClassTag<T>) ClassTag$.MODULE$.apply(c);
  }

  /** Identity ids and the executors' locations (none in local mode: one JVM). */
  static <T> JavaRDD<T> pinned(RDD<T> parent, int[] index, String[] locations, Class<?> c) {
    ClassTag<T> t = tag(c);
    return new JavaRDD<>(new PinnedRDD<>(parent, index, locations, t), t);
  }

  /**
   * Whether the application runs on one executor (local mode, or a cluster of one): a task there
   * reads every cached partition from its own memory.
   */
  private static boolean oneExecutor(SparkSession spark) {
    return spark.sparkContext().isLocal()
        || spark.sparkContext().statusTracker().getExecutorInfos().length - 1 == 1;
  }

  static int[] range(int from, int to) {
    int[] r = new int[to - from];
    for (int i = 0; i < r.length; i++) {
      r[i] = from + i;
    }
    return r;
  }

  static Exchange.Placement placement(int partition, PartitionStore p, TaskEngine lease) {
    org.apache.spark.SparkEnv env = org.apache.spark.SparkEnv.get();
    int port = env == null || env.blockManager() == null ? 0
        : env.blockManager().blockManagerId().port();
    return new Exchange.Placement(partition, ThisExecutor.id(), ThisExecutor.host()
        + ":" + port, p.incarnation, p.rows(), lease.engine().name());
  }

  // ---------------------------------------------------------------------------------------
  // create

  /** What a rebuilt partition replays after the checkpoint's rows. */
  @DefaultSerializer(JavaSerializer.class)
  record Replay(Set<Integer> only, String checkpoint, long[] epochs,
      Broadcast<SerializableConfiguration> conf) implements Serializable {}

  /** Loads {@code rows} (key, values...) into P partition stores; returns where each lives. */
  static Exchange.Placement[] create(SparkSession spark, Dataset<Row> rows, StateSchema schema,
      long stateId, long epoch, GstmSettings settings) {
    return create(spark, rows, schema, stateId, epoch, settings, null);
  }

  /**
   * As {@link #create}, and when {@code replay} is given: only its partitions (the others give
   * null), each brought from {@code epoch} (a checkpoint's) through the logged epochs after it.
   */
  static Exchange.Placement[] create(SparkSession spark, Dataset<Row> rows, StateSchema schema,
      long stateId, long epoch, GstmSettings settings, Replay replay) {
    int p = schema.partitions();
    org.apache.spark.sql.Column[] sel = new org.apache.spark.sql.Column[1 + schema.values()];
    sel[0] = col("`" + schema.keyColumn() + "`").cast(DataTypes.LongType);
    for (int r = 0; r < schema.values(); r++) {
      sel[1 + r] = col("`" + schema.valueNames().get(r) + "`")
          .cast(StateSchema.sparkType(schema.valueTypes().get(r)));
    }
    JavaRDD<InternalRow> in = rows.select(sel).queryExecution().toRdd().toJavaRDD();
    JavaRDD<Tuple2<Integer, Exchange.Rows>> split = in.mapPartitions(
        it -> splitRows(it, schema), true);
    RDD<Exchange.Rows> byOwner = JavaPairRDD.fromJavaRDD(split)
        .partitionBy(new IndexPartitioner(p)).values().rdd();
    // Each partition on executor i mod E of those registered: a state's tasks then spread over
    // the cluster (Spark would place them by where the rows were read, often on one executor).
    List<ExecutorSpread.Executor> executors = ExecutorSpread.registered(spark.sparkContext());
    String[] spread = null;
    if (executors.size() > 1) {
      spread = new String[p];
      for (int i = 0; i < p; i++) {
        spread[i] = executors.get(i % executors.size()).location();
      }
    }
    List<Exchange.Placement> placed = pinned(byOwner, range(0, p), spread, Exchange.Rows.class)
        .mapPartitionsWithIndex((i, it) -> {
          List<Exchange.Rows> parts = new ArrayList<>();
          it.forEachRemaining(x -> parts.add((Exchange.Rows) x));
          List<Exchange.Placement> none = new ArrayList<>();
          if (replay != null && !replay.only().contains(i)) {
            none.add(null);
            return none.iterator();
          }
          Exchange.Rows all = concat(i, parts, schema.values());
          try (TaskEngine lease = ExecutorEngines.acquire(settings)) {
            PartitionStore ps = PartitionStore.create(stateId, i, schema, epoch, all,
                lease.engine());
            try {
              if (replay != null) {
                for (long e : replay.epochs()) {
                  Exchange.KeyValues changes = EpochLog.read(replay.checkpoint(), e, i,
                      replay.conf().value().value());
                  if (changes == null) {
                    throw new IllegalStateException("epoch " + e + " is not committed in the "
                        + "epoch log at " + replay.checkpoint());
                  }
                  ps.replay(e, changes);
                }
              }
            } catch (RuntimeException ex) {
              ps.close();
              throw ex;
            }
            StateRegistry.put(ps);
            return List.of(placement(i, ps, lease)).iterator();
          }
        }, true).collect();
    return placed.toArray(new Exchange.Placement[0]);
  }

  private static Iterator<Tuple2<Integer, Exchange.Rows>> splitRows(Iterator<InternalRow> it,
      StateSchema schema) {
    int p = schema.partitions();
    int regions = schema.values();
    long[][] keys = new long[p][];
    long[][][] bits = new long[p][][];
    int[] n = new int[p];
    while (it.hasNext()) {
      InternalRow r = it.next();
      if (r.isNullAt(0)) {
        throw new IllegalArgumentException("column '" + schema.keyColumn() + "': null key; "
            + "every state row needs a key");
      }
      long key = r.getLong(0);
      int o = schema.partitioner().owner(key);
      if (keys[o] == null) {
        keys[o] = new long[64];
        bits[o] = new long[regions][64];
      } else if (n[o] == keys[o].length) {
        keys[o] = java.util.Arrays.copyOf(keys[o], n[o] * 2);
        for (int q = 0; q < regions; q++) {
          bits[o][q] = java.util.Arrays.copyOf(bits[o][q], n[o] * 2);
        }
      }
      keys[o][n[o]] = key;
      for (int q = 0; q < regions; q++) {
        if (r.isNullAt(1 + q)) {
          throw new IllegalArgumentException("column '" + schema.valueNames().get(q)
              + "': null value for key " + key + "; every state value must be set");
        }
        ValueType t = schema.valueTypes().get(q);
        bits[o][q][n[o]] = switch (t) {
          case INT32 -> r.getInt(1 + q);
          case INT64 -> r.getLong(1 + q);
          case FLOAT32 -> Float.floatToRawIntBits(r.getFloat(1 + q));
          default -> Double.doubleToRawLongBits(r.getDouble(1 + q));
        };
      }
      n[o]++;
    }
    List<Tuple2<Integer, Exchange.Rows>> out = new ArrayList<>();
    for (int o = 0; o < p; o++) {
      if (keys[o] != null) {
        long[][] b = new long[regions][];
        for (int q = 0; q < regions; q++) {
          b[q] = java.util.Arrays.copyOf(bits[o][q], n[o]);
        }
        out.add(new Tuple2<>(o, new Exchange.Rows(o, java.util.Arrays.copyOf(keys[o], n[o]),
            b)));
      }
    }
    return out.iterator();
  }

  private static Exchange.Rows concat(int partition, List<Exchange.Rows> parts, int regions) {
    int n = 0;
    for (Exchange.Rows r : parts) {
      n += r.keys().length;
    }
    long[] keys = new long[n];
    long[][] bits = new long[regions][n];
    int f = 0;
    for (Exchange.Rows r : parts) {
      System.arraycopy(r.keys(), 0, keys, f, r.keys().length);
      for (int q = 0; q < regions; q++) {
        System.arraycopy(r.bits()[q], 0, bits[q], f, r.keys().length);
      }
      f += r.keys().length;
    }
    return new Exchange.Rows(partition, keys, bits);
  }

  // ---------------------------------------------------------------------------------------
  // apply

  /**
   * Everything one apply did; {@code outcomes} makes the outcome DataFrame (its analysis, a few
   * milliseconds, paid only when a caller asks for it).
   */
  record Applied(java.util.function.Supplier<Dataset<Row>> outcomes,
      List<Exchange.LocalSummary> local, Exchange.CrossSummary cross, long crossTransactions,
      String exchange) {}

  /**
   * Epoch {@code epoch} over committed epoch {@code base}: routes the transactions (one
   * shuffle), applies each partition's own (job 1), then, when some span partitions, caches the
   * values they asked where each partition ran (job 2), runs them in one task over a store of
   * just the keys they touch (job 3, after every partition's own: the epoch's serial order is
   * every partition's transactions, then the cross-partition ones) and sends each owner its new
   * values (job 4). With {@link EpochMesh} (the {@code mesh} exchange, unless {@code jobsOnly})
   * the same epoch is one stage after the routing; a one-partition state over a cached input
   * on one executor is one job, its task decoding the input itself. The driver sees summaries
   * only.
   */
  static Applied apply(SparkSession spark, TxState.Ref ref, Dataset<Row> tx, ApplyPlan plan,
      long epoch, long base, GstmSettings settings, boolean jobsOnly) {
    long planned = System.nanoTime();
    int p = plan.state.partitions();
    boolean mesh = !jobsOnly && EpochMesh.wanted(spark.sparkContext(), plan, p,
        ref.locations());
    int coordinator = mesh ? CrossBatch.coordinator(epoch, p) : -1;
    // A cached or Parquet input is read from its column batches: no row object per transaction.
    // A cached input as a whole is found in Spark's cache, with no query planned for it.
    ColumnarSource columnar = Routing.cachedColumnar(tx, plan);
    Dataset<Row> selected = columnar != null ? null : Routing.selected(tx, plan);
    columnar = columnar != null ? columnar : Routing.columnar(selected, plan);
    // -Dgstm.state.directRouting=false routes a one-partition state's cached input as any
    // other's (to compare).
    CachedColumns cached = columnar == null || !Routing.routesCached(plan)
        || !Boolean.parseBoolean(System.getProperty("gstm.state.directRouting", "true"))
        ? null : columnar.cachedColumns();
    boolean decoded = cached != null && cached.decodesBatches();
    if (p == 1 && oneExecutor(spark) && routeInTask()) {
      // One job: the state's task reads every input partition itself, on all cores (the
      // routing job, the routed chunks' cache and a job's scheduling saved): a cached input's
      // batches decoded, any other (rows, a Parquet scan's batches) computed and routed there.
      RDD<TxChunk> inTask = decoded ? decodedInTask(columnar, cached, ref, plan)
          : columnar == null
          ? new InTaskPartitions<InternalRow, TxChunk>(selected.queryExecution().toRdd(),
              (k, it) -> Routing.routeRowsInTask(k, it, plan), tag(TxChunk.class))
          : new InTaskPartitions<ColumnarBatch, TxChunk>(columnar.batches().rdd(),
              (k, it) -> Routing.routeColumnarInTask(k, it, plan), tag(TxChunk.class));
      if (!decoded) {
        Routing.INPUT_IN_TASK_ROUTES.incrementAndGet();
      }
      long t0 = System.nanoTime();
      try {
        return apply(spark, ref, plan, epoch, base, settings, inTask);
      } finally {
        LOG.debug("gstm state '{}' epoch {}: planned in {} ms, {} routed and applied in one job "
            + "{} ms", plan.state.name(), epoch, (t0 - planned) / 1_000_000,
            decoded ? "cached batches" : columnar == null ? "rows" : "column batches",
            (System.nanoTime() - t0) / 1_000_000);
      }
    }
    // Through PlainRdds: Spark's own operations would put each function through the closure
    // cleaner, several milliseconds an epoch.
    JavaRDD<Tuple2<Integer, TxChunk>> routedPairs = JavaRDD.fromRDD(decoded
        ? PlainRdds.zipPartitions(cached.partitions().rdd(), columnar.sparkBatches().rdd(),
            (lists, theirs) -> Routing.routeCached(TaskContext.getPartitionId(), lists.next(),
                theirs, cached, plan), Tuple2.class)
        : columnar != null
        ? PlainRdds.mapPartitions(columnar.batches().rdd(),
            (i, it) -> Routing.routeColumnar(i, it, plan, coordinator), true, Tuple2.class)
        : PlainRdds.mapPartitions(selected.queryExecution().toRdd(),
            (i, it) -> Routing.route(i, it, plan, coordinator), true, Tuple2.class),
        tag(Tuple2.class));
    if (p == 1) {
      long t0 = System.nanoTime();
      JavaRDD<TxChunk> gathered = gatheredForOne(routedPairs, plan.state.name(), epoch);
      long t1 = System.nanoTime();
      try {
        return apply(spark, ref, plan, epoch, base, settings, gathered.coalesce(1).rdd());
      } finally {
        gathered.unpersist(false);
        LOG.debug("gstm state '{}' epoch {}: planned in {} ms, routed {} ms, applied {} ms",
            plan.state.name(), epoch, (t0 - planned) / 1_000_000, (t1 - t0) / 1_000_000,
            (System.nanoTime() - t1) / 1_000_000);
      }
    }
    if (mesh) {
      // Routed into the cache where read (reading spread over the executors), then traded
      // between the partitions' tasks: a shuffle would write, fetch and read every chunk.
      JavaRDD<Tuple2<Integer, TxChunk>> routed = ExecutorSpread.evenly(routedPairs);
      routed.setName(ROUTED + plan.state.name() + "' epoch " + epoch);
      routed.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        long t0 = System.nanoTime();
        PlainRdds.count(routed.rdd());
        long routedNanos = System.nanoTime() - t0;
        LOG.debug("gstm state '{}' epoch {}: routed in {} tasks in {} ms", plan.state.name(),
            epoch, routed.getNumPartitions(), routedNanos / 1_000_000);
        int[][] groups = EpochMesh.groups(spark.sparkContext(), routed.rdd(), ref.locations(),
            p);
        long t1 = System.nanoTime();
        Applied a = EpochMesh.apply(spark, ref, plan, epoch, base, settings, routed.rdd(), groups);
        LOG.debug("gstm state '{}' epoch {}: planned in {} ms, routed {} ms, placed {} ms, one "
                + "stage {} ms", plan.state.name(), epoch, (t0 - planned) / 1_000_000,
            routedNanos / 1_000_000, (t1 - t0 - routedNanos) / 1_000_000,
            (System.nanoTime() - t1) / 1_000_000);
        return a;
      } finally {
        routed.unpersist(false);
      }
    }
    RDD<TxChunk> routed = PlainRdds.map(JavaPairRDD.fromJavaRDD(routedPairs)
        .partitionBy(new IndexPartitioner(p + 1)).rdd(), Tuple2<Integer, TxChunk>::_2,
        TxChunk.class);
    return apply(spark, ref, plan, epoch, base, settings, routed);
  }

  /**
   * A one-partition state's one task over a cached input: every input partition's cached
   * batches decoded there, with Spark's batches of the same partitions for those the decoder
   * leaves to Spark ({@link Routing#routeCachedInTask}).
   */
  private static RDD<TxChunk> decodedInTask(ColumnarSource columnar, CachedColumns cached,
      TxState.Ref ref, ApplyPlan plan) {
    JavaRDD<ColumnarBatch> sparkBatches = columnar.sparkBatches();
    int[][] all = {range(0, sparkBatches.getNumPartitions())};
    ClassTag<List<CachedBatch>> listTag = tag(List.class);
    ClassTag<ColumnarBatch> batchTag = tag(ColumnarBatch.class);
    JavaRDD<List<CachedBatch>> lists = new JavaRDD<>(new PinnedRDD<>(
        cached.partitions().rdd(), all, ref.locations(), listTag), listTag);
    JavaRDD<ColumnarBatch> theirs = new JavaRDD<>(new PinnedRDD<>(sparkBatches.rdd(), all,
        ref.locations(), batchTag), batchTag);
    return PlainRdds.zipPartitions(lists.rdd(), theirs.rdd(),
        (ls, th) -> Routing.routeCachedInTask(ls, th, cached, plan), TxChunk.class);
  }

  /** {@code -Dgstm.state.routeInTask=false} keeps the routing job (to compare). */
  private static boolean routeInTask() {
    return Boolean.parseBoolean(System.getProperty("gstm.state.routeInTask", "true"));
  }

  /**
   * A state of one partition takes every transaction (none spans partitions): instead of a
   * shuffle, which serializes and writes every routed chunk and reads it back, the input's own
   * tasks route their rows into the cache (in parallel, one job) and the state's one task
   * reads the cached chunks through {@code coalesce(1)}: within an executor no copy at all. The
   * caller unpersists the chunks once the epoch's jobs are done.
   */
  private static JavaRDD<TxChunk> gatheredForOne(JavaRDD<Tuple2<Integer, TxChunk>> routedPairs,
      String state, long epoch) {
    JavaRDD<TxChunk> chunks = JavaRDD.fromRDD(PlainRdds.map(routedPairs.rdd(),
        Tuple2<Integer, TxChunk>::_2, TxChunk.class), tag(TxChunk.class));
    chunks.setName(ROUTED + state + "' epoch " + epoch);
    chunks.persist(StorageLevel.MEMORY_AND_DISK());
    boolean routed = false;
    try {
      long t0 = System.nanoTime();
      PlainRdds.count(chunks.rdd());
      LOG.debug("gstm state '{}' epoch {}: routed in {} tasks in {} ms", state, epoch,
          chunks.getNumPartitions(), (System.nanoTime() - t0) / 1_000_000);
      routed = true;
    } finally {
      if (!routed) { // a failed job is a SparkException, which Java sees as checked
        chunks.unpersist(false);
      }
    }
    return chunks;
  }

  /** The epoch's jobs over the routed chunks: partition i of {@code routed} is partition i's. */
  private static Applied apply(SparkSession spark, TxState.Ref ref, ApplyPlan plan, long epoch,
      long base, GstmSettings settings, RDD<TxChunk> routed) {
    int p = plan.state.partitions();
    // Job 1: every partition's own transactions.
    RDD<Exchange.LocalResult> local = PlainRdds.mapPartitions(pinned(routed, range(0, p),
        ref.locations(), TxChunk.class).rdd(), (i, it) -> {
          long started = System.nanoTime();
          List<TxChunk> chunks = new ArrayList<>();
          it.forEachRemaining(c -> chunks.add((TxChunk) c));
          long read = System.nanoTime();
          // The keys are read once (each row's local index): left in the routed chunks.
          boolean[] keys = new boolean[plan.slots.length];
          for (int s = 0; s < keys.length; s++) {
            keys[s] = plan.slots[s].key();
          }
          TxChunk all = chunks.isEmpty() ? new TxChunk(plan.slots.length, 1)
              : TxChunk.concat(chunks, plan.slots.length, keys);
          long joined = System.nanoTime();
          Exchange.LocalResult r = local(ref, i, epoch, base, all, plan, settings);
          for (TxChunk c : chunks) {
            c.recycle(); // its batch ran: the next epoch's decoding reuses its columns
          }
          all.recycle(); // a join of them: its own columns (a no-op for a chunk of its own)
          LOG.debug("gstm state '{}' partition {} epoch {}: {} routed chunks read in {} ms, "
                  + "joined in {} ms, applied in {} ms", plan.state.name(), i, epoch,
              chunks.size(), (read - started) / 1_000_000, (joined - read) / 1_000_000,
              (System.nanoTime() - joined) / 1_000_000);
          return List.of(r).iterator();
        }, true, Exchange.LocalResult.class);
    local.localCheckpoint();
    long t0 = System.nanoTime();
    List<Exchange.LocalSummary> results = PlainRdds.collect(local,
        Exchange.LocalResult::summary);
    long t1 = System.nanoTime();
    LOG.debug("gstm state '{}' epoch {}: every partition's own transactions in {} ms (a job)",
        plan.state.name(), epoch, (t1 - t0) / 1_000_000);
    long askedKeys = 0;
    for (Exchange.LocalSummary r : results) {
      ref.check(r.placement());
      askedKeys += r.asked();
    }
    RDD<InternalRow> rows = PlainRdds.flatMap(local, r -> r.outcomes().rows(plan),
        InternalRow.class);
    Exchange.CrossSummary cross = null;
    if (askedKeys > 0) {
      // The values the cross-partition transactions asked of each partition, cached where the
      // partition ran (job 2); the cross task fetches them from there, not through the driver.
      RDD<Exchange.KeyValues> asked = PlainRdds.map(local, Exchange.LocalResult::requested,
          Exchange.KeyValues.class);
      asked.persist(StorageLevel.MEMORY_AND_DISK());
      try {
        PlainRdds.count(asked);
        long t2 = System.nanoTime();
        // Job 3: the cross-partition transactions, in one task; their result stays there.
        JavaRDD<TxChunk> crossTx = pinned(routed, new int[] {p}, null, TxChunk.class);
        RDD<Exchange.CrossResult> crossed = PlainRdds.zipPartitions(crossTx.rdd(),
            asked.coalesce(1, false, scala.Option.empty(), null), (txs, parts) -> {
              List<TxChunk> chunks = new ArrayList<>();
              txs.forEachRemaining(chunks::add);
              TxChunk all = chunks.isEmpty() ? new TxChunk(plan.slots.length, 1)
                  : TxChunk.concat(chunks, plan.slots.length);
              List<Exchange.KeyValues> values = new ArrayList<>();
              parts.forEachRemaining(values::add);
              return List.of(cross(all, Exchange.KeyValues.merge(values, plan.state.regions()),
                  plan, settings, epoch)).iterator();
            }, Exchange.CrossResult.class);
        // No lineage: a lost result fails the epoch (rerun, the transactions could be ordered
        // otherwise than in the writes some owners already took).
        crossed.localCheckpoint();
        cross = PlainRdds.collect(crossed, Exchange.CrossResult::summary).get(0);
        long t3 = System.nanoTime();
        // Job 4: each owner's new values, to the owner (a shuffle of the writes alone).
        RDD<Tuple2<Integer, Exchange.KeyValues>> each = PlainRdds.flatMap(crossed, c -> {
          List<Tuple2<Integer, Exchange.KeyValues>> pairs = new ArrayList<>();
          for (int i = 0; i < c.writes().length; i++) {
            pairs.add(new Tuple2<>(i, c.writes()[i]));
          }
          return pairs.iterator();
        }, Tuple2.class);
        RDD<Exchange.KeyValues> writes = PlainRdds.map(JavaPairRDD.fromRDD(each, tag(Integer.class),
            tag(Exchange.KeyValues.class)).partitionBy(new IndexPartitioner(p)).rdd(),
            Tuple2<Integer, Exchange.KeyValues>::_2, Exchange.KeyValues.class);
        PlainRdds.collect(PlainRdds.mapPartitions(pinned(writes, range(0, p), ref.locations(),
            Exchange.KeyValues.class).rdd(), (i, it) -> {
              Exchange.KeyValues w = it.next();
              return List.of(writeBack(ref, i, epoch, w, settings)).iterator();
            }, true, Object.class));
        LOG.debug("gstm state '{}' epoch {}: local phase {} ms, {} values asked, cached in {} "
            + "ms; {} cross-partition transactions in {} ms, written back in {} ms",
            plan.state.name(), epoch, (t1 - t0) / 1_000_000, askedKeys, (t2 - t1) / 1_000_000,
            cross.transactions(), (t3 - t2) / 1_000_000, (System.nanoTime() - t3) / 1_000_000);
        rows = rows.union(PlainRdds.flatMap(crossed, c -> c.outcomes().rows(plan),
            InternalRow.class));
      } finally {
        asked.unpersist(false);
      }
    }
    StructType schema = OutcomeChunk.schema(plan);
    JavaRDD<InternalRow> all = JavaRDD.fromRDD(rows, tag(InternalRow.class));
    return new Applied(() -> frame(spark, all, schema), results, cross,
        cross == null ? 0 : cross.transactions(), p == 1 ? "one" : "jobs");
  }

  static Exchange.LocalResult local(TxState.Ref ref, int i, long epoch, long base,
      TxChunk in, ApplyPlan plan, GstmSettings settings) {
    PartitionStore ps = StateRegistry.get(ref.id(), i, ref.incarnation(i), ref.name());
    Thread duplicate = null;
    Exchange.LocalResult[] dup = new Exchange.LocalResult[1];
    RuntimeException[] dupError = new RuntimeException[1];
    if (TxStateHooks.duplicateLocal) {
      duplicate = new Thread(() -> {
        try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
          dup[0] = ps.applyLocal(epoch, base, in, plan, settings, lease,
              placement(i, ps, lease));
        } catch (RuntimeException e) {
          dupError[0] = e;
        }
      }, "gstm-speculative-copy");
      duplicate.start();
    }
    Exchange.LocalResult r;
    try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
      r = ps.applyLocal(epoch, base, in, plan, settings, lease, placement(i, ps, lease));
    }
    if (r.replayed()) {
      TxStateHooks.REPLAYED.incrementAndGet();
    }
    if (duplicate != null) {
      try {
        duplicate.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (dupError[0] != null) {
        throw dupError[0];
      }
      if (dup[0].replayed()) {
        TxStateHooks.REPLAYED.incrementAndGet();
      }
    }
    TaskContext tc = TaskContext.get();
    TxStateHooks.at("local", i, epoch, tc == null ? 0 : tc.attemptNumber());
    return r;
  }

  private static Exchange.CrossResult cross(TxChunk in, Exchange.KeyValues values,
      ApplyPlan plan, GstmSettings settings, long epoch) {
    long t0 = System.nanoTime();
    StateSchema schema = plan.state;
    int m = values.keys().length;
    LongIntMap index = new LongIntMap(m);
    int regions = schema.regions();
    long[][] contents = new long[regions][Math.max(1, m)];
    for (int i = 0; i < m; i++) {
      if (values.found()[i]) {
        index.put(values.keys()[i], i);
        for (int r = 0; r < regions; r++) {
          contents[r][i] = values.bits()[r][i];
        }
      }
    }
    OutcomeChunk out = new OutcomeChunk(epoch, -1, in, plan);
    int p = schema.partitions();
    long[] ran;
    long[][] after;
    String engineName;
    boolean gpu;
    try (TaskEngine lease = ExecutorEngines.acquire(settings)) {
      engineName = lease.engine().name() + " (" + lease.reason() + ")";
      gpu = lease.gpu();
      try (TxStore store = lease.engine().createStore(schema.layout(m),
          schema.storeAlgorithm())) {
        StoreContents.write(store, contents);
        ran = BatchRunner.run(lease.engine(), store, plan, settings, in, index::get, null, out,
            (long) p << 40);
        after = StoreContents.read(store);
      }
    }
    // The new values of the keys that changed, to their owners (millions of keys at scale:
    // counted, then placed, with no object per key).
    int[] owner = new int[m];
    int[] count = new int[p];
    for (int i = 0; i < m; i++) {
      owner[i] = -1;
      if (!values.found()[i]) {
        continue;
      }
      boolean changed = false;
      for (int r = 0; r < regions && !changed; r++) {
        changed = after[r][i] != contents[r][i];
      }
      if (changed) {
        owner[i] = schema.partitioner().owner(values.keys()[i]);
        count[owner[i]]++;
      }
    }
    Exchange.KeyValues[] writes = new Exchange.KeyValues[p];
    for (int q = 0; q < p; q++) {
      boolean[] found = new boolean[count[q]];
      java.util.Arrays.fill(found, true);
      writes[q] = new Exchange.KeyValues(new long[count[q]], found, new long[regions][count[q]]);
    }
    int[] next = new int[p];
    for (int i = 0; i < m; i++) {
      int q = owner[i];
      if (q >= 0) {
        int j = next[q]++;
        writes[q].keys()[j] = values.keys()[i];
        for (int r = 0; r < regions; r++) {
          writes[q].bits()[r][j] = after[r][i];
        }
      }
    }
    TaskContext tc = TaskContext.get();
    TxStateHooks.at("cross", -1, epoch, tc == null ? 0 : tc.attemptNumber());
    return new Exchange.CrossResult(out, writes, new Exchange.TaskStats(ran[0], ran[1],
        System.nanoTime() - t0, engineName, gpu, false));
  }

  private static Boolean writeBack(TxState.Ref ref, int i, long epoch, Exchange.KeyValues w,
      GstmSettings settings) {
    PartitionStore ps = StateRegistry.get(ref.id(), i, ref.incarnation(i), ref.name());
    boolean wrote;
    try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
      wrote = ps.writeBack(epoch, w, lease);
    }
    TaskContext tc = TaskContext.get();
    TxStateHooks.at("writeBack", i, epoch, tc == null ? 0 : tc.attemptNumber());
    return wrote;
  }

  /** Writes every partition's changes of {@code epoch} to the epoch log (the epoch's last job). */
  static void log(SparkSession spark, TxState.Ref ref, int p, long epoch, String checkpoint,
      GstmSettings settings) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<SerializableConfiguration> conf = SerializableConfiguration.broadcast(
        spark.sparkContext());
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      ids.add(i);
    }
    PlainRdds.collect(PlainRdds.mapPartitions(pinned(jsc.parallelize(ids, p).rdd(),
        range(0, p), ref.locations(), Integer.class).rdd(), (i, it) -> {
          PartitionStore ps = StateRegistry.get(ref.id(), i, ref.incarnation(i), ref.name());
          Exchange.KeyValues changes;
          try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
            changes = ps.changes(epoch);
          }
          EpochLog.write(checkpoint, epoch, i, changes, conf.value().value());
          return List.of(changes.keys().length).iterator();
        }, true, Integer.class));
  }

  // ---------------------------------------------------------------------------------------
  // read and close

  /** The rows at committed epoch {@code base}, as a locally checkpointed DataFrame. */
  static Dataset<Row> read(SparkSession spark, TxState.Ref ref, StateSchema schema, long base,
      GstmSettings settings) {
    int p = schema.partitions();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      ids.add(i);
    }
    RDD<Exchange.Rows> parts = PlainRdds.mapPartitions(pinned(jsc.parallelize(ids, p).rdd(),
        range(0, p), ref.locations(), Integer.class).rdd(), (i, it) -> {
          PartitionStore ps = StateRegistry.get(ref.id(), i, ref.incarnation(i), ref.name());
          try (TaskEngine lease = ExecutorEngines.acquire(settings, ps.engine())) {
            return List.of(ps.read(base, lease)).iterator();
          }
        }, true, Exchange.Rows.class);
    parts.localCheckpoint();
    PlainRdds.count(parts);
    JavaRDD<InternalRow> rows = JavaRDD.fromRDD(PlainRdds.flatMap(parts,
        r -> rowsOf(r, schema), InternalRow.class), tag(InternalRow.class));
    return frame(spark, rows, schema.sparkSchema());
  }

  private static Iterator<InternalRow> rowsOf(Exchange.Rows r, StateSchema schema) {
    int regions = schema.values();
    List<InternalRow> out = new ArrayList<>(r.keys().length);
    for (int i = 0; i < r.keys().length; i++) {
      Object[] v = new Object[1 + regions];
      v[0] = schema.intKey() ? (Object) (int) r.keys()[i] : (Object) r.keys()[i];
      for (int q = 0; q < regions; q++) {
        v[1 + q] = StateSchema.value(schema.valueTypes().get(q), r.bits()[q][i]);
      }
      out.add(new GenericInternalRow(v));
    }
    return out.iterator();
  }

  /** Closes every partition where it lives; failures (a lost executor) are ignored. */
  static void close(SparkSession spark, TxState.Ref ref, int p) {
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    if (spark.sparkContext().isLocal()) {
      StateRegistry.removeState(ref.id());
      return;
    }
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < p; i++) {
      ids.add(i);
    }
    pinned(jsc.parallelize(ids, p).rdd(), range(0, p), ref.locations(), Integer.class)
        .foreachPartition(it -> StateRegistry.removeState(ref.id()));
  }

  static Dataset<Row> frame(SparkSession spark, JavaRDD<InternalRow> rows, StructType schema) {
    if (spark instanceof org.apache.spark.sql.classic.SparkSession classic) {
      return classic.internalCreateDataFrame(rows.rdd(), schema, false);
    }
    int width = schema.size();
    return spark.createDataFrame(rows.map(r -> {
      Object[] v = new Object[width];
      for (int i = 0; i < width; i++) {
        Object x = r.isNullAt(i) ? null : r.get(i, schema.fields()[i].dataType());
        v[i] = x instanceof org.apache.spark.unsafe.types.UTF8String u ? u.toString() : x;
      }
      return RowFactory.create(v);
    }), schema);
  }

  /** Outcome counts over the partitions and the cross-partition phase. */
  static Map<String, Long> counts(List<Exchange.LocalSummary> local,
      Exchange.CrossSummary cross) {
    Map<String, Long> m = new TreeMap<>();
    for (Exchange.LocalSummary r : local) {
      r.counts().forEach((k, v) -> m.merge(k, v, Long::sum));
    }
    if (cross != null) {
      cross.counts().forEach((k, v) -> m.merge(k, v, Long::sum));
    }
    return m;
  }
}
