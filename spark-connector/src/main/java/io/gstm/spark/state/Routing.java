package io.gstm.spark.state;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import io.gstm.spark.exec.CachedColumns;
import io.gstm.spark.exec.ColumnarSource;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.columnar.CachedBatch;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Tuple2;

/**
 * The map side of an apply, by the input's form (rows, column batches, cached batches) and by
 * where it runs (the tasks of a routing job, or the state's one task reading every input
 * partition): each input partition goes through a {@link Router} of its own.
 */
final class Routing {
  /** Applies whose input was read from column batches (for tests). */
  static final java.util.concurrent.atomic.AtomicLong COLUMNAR_ROUTES =
      new java.util.concurrent.atomic.AtomicLong();

  /** Column batches taken whole (a test's check that the bulk path ran). */
  static final java.util.concurrent.atomic.AtomicLong BULK_BATCHES =
      new java.util.concurrent.atomic.AtomicLong();

  /** Cached batches decoded straight into a one-partition state's chunk (for tests). */
  static final java.util.concurrent.atomic.AtomicLong DIRECT_BATCHES =
      new java.util.concurrent.atomic.AtomicLong();

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Routing.class);

  private Routing() {}

  static Iterator<Tuple2<Integer, TxChunk>> route(int inputPartition, Iterator<InternalRow> it,
      ApplyPlan plan, int coordinator) {
    Router r = new Router(inputPartition, plan, coordinator);
    r.rows(it);
    return r.finish();
  }

  /**
   * {@link #routeColumnar} of input partition {@code inputPartition} of a one-partition state,
   * inside the state's task: its chunks, in order.
   */
  static Iterator<TxChunk> routeColumnarInTask(int inputPartition, Iterator<ColumnarBatch> it,
      ApplyPlan plan) {
    Router r = inTask(inputPartition, plan);
    while (it.hasNext()) {
      r.batch(it.next());
    }
    return chunksOf(r);
  }

  /** A router whose chunks stay in the state's task (given back after its batch). */
  private static Router inTask(int inputPartition, ApplyPlan plan) {
    Router r = new Router(inputPartition, plan, -1);
    r.pooledSegments = true;
    r.firstCapacity = firstInTaskCapacity();
    return r;
  }

  /**
   * Rows of the last nonempty input partition a state's task read, in this JVM (0: none yet).
   * An epoch's input partitions are much alike from one epoch to the next: a partition's first
   * chunk takes their size, not 64 rows doubled (a partition of 125,000 rows went into eleven
   * chunks of 64 to 65,536 rows, fresh arrays every epoch, none a segment that is kept; on the
   * H200 node 64 partitions of 156,250 rows made five collections in ten epochs, none since).
   */
  private static volatile long inTaskRows;

  /** The rows of an in-task router's first chunk: the last partition's, in a power of two. */
  static int firstInTaskCapacity() {
    long rows = inTaskRows;
    return rows <= 64 ? 64 : (int) Math.min(SEGMENT, Long.highestOneBit(rows - 1) << 1);
  }

  /** The router's chunks, in order, as they are (joined in the task that routed them). */
  private static Iterator<TxChunk> chunksOf(Router r) {
    if (r.rows() > 0) {
      inTaskRows = r.rows(); // an empty partition says nothing of the others
    }
    List<TxChunk> chunks = new ArrayList<>();
    r.finish(false).forEachRemaining(t -> chunks.add(t._2()));
    return chunks.iterator();
  }

  /**
   * Applies whose one state task read every input partition itself, rows or column batches
   * (for tests).
   */
  static final java.util.concurrent.atomic.AtomicLong INPUT_IN_TASK_ROUTES =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * {@link #route} of input partition {@code inputPartition} of a one-partition state, inside
   * the state's task ({@link io.gstm.spark.exec.InTaskPartitions}): its chunks, in order.
   */
  static Iterator<TxChunk> routeRowsInTask(int inputPartition, Iterator<InternalRow> it,
      ApplyPlan plan) {
    Router r = inTask(inputPartition, plan);
    r.rows(it);
    return chunksOf(r);
  }

  /**
   * As {@link #route}, from the column batches under the rows (a cached or Parquet input, see
   * {@link #columnar}): a batch whose columns need no per-row check (no nulls, one program, no
   * array elements) is taken a column at a time, others row by row as {@link #route} reads them.
   */
  static Iterator<Tuple2<Integer, TxChunk>> routeColumnar(int inputPartition,
      Iterator<ColumnarBatch> it, ApplyPlan plan, int coordinator) {
    Router r = new Router(inputPartition, plan, coordinator);
    while (it.hasNext()) {
      r.batch(it.next());
    }
    return r.finish();
  }

  /**
   * As {@link #routeColumnar} for a state of one partition over a cached input: the chunk
   * sized once for the partition's rows and each cached batch's columns decoded straight into
   * it ({@link CachedColumns#readBits}), not into a batch's own arrays copied into a chunk that
   * grows ({@link #routesCached} says when); from the first batch that a decode leaves to Spark
   * (nulls, an unknown program, a shape not known here) on, Spark's batches, as {@link
   * #routeColumnar} takes them.
   */
  static Iterator<Tuple2<Integer, TxChunk>> routeCached(int inputPartition,
      List<CachedBatch> cached, Iterator<ColumnarBatch> spark, CachedColumns columns,
      ApplyPlan plan) {
    Router r = new Router(inputPartition, plan, -1);
    int decoded = r.directAll(columns, cached);
    if (decoded < cached.size()) {
      for (int k = 0; k < decoded; k++) {
        spark.next(); // the same sequence of batches: skip those decoded
      }
      while (spark.hasNext()) {
        r.batch(spark.next());
      }
    }
    return r.finish();
  }

  /** Of those, applies decoded into one chunk (no partition left to Spark; for tests). */
  static final java.util.concurrent.atomic.AtomicLong ONE_CHUNK_ROUTES =
      new java.util.concurrent.atomic.AtomicLong();

  /** Applies whose one state task decoded every input partition itself (for tests). */
  static final java.util.concurrent.atomic.AtomicLong IN_TASK_ROUTES =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * {@link #routeCached} of every input partition inside the state's one task, on all cores: the
   * partitions' cached batches ({@code lists}, in partition order) and Spark's batches of the
   * same partitions in the same order ({@code spark}, read only when a partition has a batch the
   * decoder leaves to Spark: then every batch before that partition's last is read to reach
   * it). One chunk per input partition, in order.
   */
  static Iterator<TxChunk> routeCachedInTask(Iterator<List<CachedBatch>> lists,
      Iterator<ColumnarBatch> spark, CachedColumns columns, ApplyPlan plan) {
    long started = System.nanoTime();
    List<List<CachedBatch>> parts = new ArrayList<>();
    lists.forEachRemaining(parts::add);
    TxChunk one = decodedIntoOne(parts, columns, plan);
    if (one != null) {
      IN_TASK_ROUTES.incrementAndGet();
      ONE_CHUNK_ROUTES.incrementAndGet();
      LOG.debug("gstm state '{}': {} input partitions decoded into one chunk in its task in {} "
          + "ms", plan.state.name(), parts.size(), (System.nanoTime() - started) / 1_000_000);
      return List.of(one).iterator();
    }
    Router[] routers = new Router[parts.size()];
    int[] decoded = new int[parts.size()];
    java.util.stream.IntStream.range(0, parts.size()).parallel().forEach(k -> {
      routers[k] = new Router(k, plan, -1);
      decoded[k] = routers[k].directAll(columns, parts.get(k));
    });
    int last = -1;
    for (int k = 0; k < parts.size(); k++) {
      last = decoded[k] < parts.get(k).size() ? k : last;
    }
    for (int k = 0; k <= last; k++) {
      for (int b = 0; b < parts.get(k).size(); b++) {
        ColumnarBatch theirs = spark.next();
        if (b >= decoded[k] && decoded[k] < parts.get(k).size()) {
          routers[k].batch(theirs);
        }
      }
    }
    IN_TASK_ROUTES.incrementAndGet();
    List<TxChunk> chunks = new ArrayList<>();
    for (Router r : routers) {
      r.finish().forEachRemaining(t -> chunks.add(t._2()));
    }
    LOG.debug("gstm state '{}': {} input partitions routed in its task in {} ms ({} went on "
        + "with Spark's batches)", plan.state.name(), parts.size(),
        (System.nanoTime() - started) / 1_000_000, countShort(decoded, parts));
    return chunks.iterator();
  }

  /**
   * Every partition's cached batches decoded side by side into one chunk, each partition into
   * its rows (no chunk per partition to join after); null when a batch is not the default
   * serializer's or one the decoder leaves to Spark (the caller then routes per partition).
   */
  private static TxChunk decodedIntoOne(List<List<CachedBatch>> parts, CachedColumns columns,
      ApplyPlan plan) {
    int[] first = new int[parts.size() + 1];
    for (int k = 0; k < parts.size(); k++) {
      long rows = CachedColumns.rows(parts.get(k));
      if (rows < 0 || first[k] + rows > Integer.MAX_VALUE - 8) {
        return null;
      }
      first[k + 1] = (int) (first[k] + rows);
    }
    // Recycled columns (every row of each is written below), given back once the batch ran.
    TxChunk one = TxChunk.recycled(plan.slots.length, first[parts.size()]);
    boolean decoded = java.util.stream.IntStream.range(0, parts.size()).parallel().allMatch(k -> {
      Router r = new Router(k, plan, -1);
      int at = first[k];
      for (CachedBatch b : parts.get(k)) {
        if (!r.directInto(columns, b, one, at)) {
          return false;
        }
        at += b.numRows();
      }
      return true;
    });
    if (!decoded) {
      return null;
    }
    one.n = first[parts.size()];
    return one;
  }

  /** Partitions with batches the decoder left to Spark. */
  private static int countShort(int[] decoded, List<List<CachedBatch>> parts) {
    int c = 0;
    for (int k = 0; k < decoded.length; k++) {
      c += decoded[k] < parts.get(k).size() ? 1 : 0;
    }
    return c;
  }

  /**
   * Whether {@link #routeCached} serves this plan: one partition, one program or a column of
   * program indices, no array elements.
   */
  static boolean routesCached(ApplyPlan plan) {
    if (plan.state.partitions() != 1 || (plan.typeIndex >= 0 && plan.typeByName)) {
      return false;
    }
    for (ApplyPlan.Slot slot : plan.slots) {
      if (slot.element() >= 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * The plan's columns of {@code tx}: {@code tx} itself when it has exactly those columns, in
   * order, of their types (analysing a selection of them costs an epoch milliseconds), else
   * their selection.
   */
  static Dataset<Row> selected(Dataset<Row> tx, ApplyPlan plan) {
    org.apache.spark.sql.types.StructField[] fields = tx.schema().fields();
    boolean same = fields.length == plan.selectNames.length;
    for (int i = 0; same && i < fields.length; i++) {
      same = fields[i].name().equals(plan.selectNames[i])
          && fields[i].dataType().equals(plan.selectTypes[i]);
    }
    if (same) {
      INPUTS_TAKEN_WHOLE.incrementAndGet();
    }
    return same ? tx : tx.select(plan.selection());
  }

  /** Inputs read as they are, with no selection ({@link #selected}; for tests). */
  static final java.util.concurrent.atomic.AtomicLong INPUTS_TAKEN_WHOLE =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * The column batches that hold {@code selected}'s rows, column for column (the plan's
   * selection over a cached relation or a Parquet scan), or null: the caller reads rows.
   */
  static ColumnarSource columnar(Dataset<Row> selected, ApplyPlan plan) {
    ColumnarSource c = ColumnarSource.of(selected);
    boolean fits = c != null && c.width() == plan.selectNames.length;
    for (int i = 0; fits && i < plan.selectNames.length; i++) {
      fits = c.name(i).equals(plan.selectNames[i]) && c.type(i).equals(plan.selectTypes[i]);
    }
    if (!fits) {
      // The plan at trace only: explaining it costs milliseconds an epoch.
      if (LOG.isTraceEnabled()) {
        LOG.trace("gstm state '{}': the input is read row by row (no column batches under its "
            + "selection):\n{}", plan.state.name(), ColumnarSource.explain(selected));
      } else {
        LOG.debug("gstm state '{}': the input is read row by row (no column batches under its "
            + "selection)", plan.state.name());
      }
      return null;
    }
    COLUMNAR_ROUTES.incrementAndGet();
    return c;
  }

  /**
   * The plan's columns of {@code tx} as the batches of the cached relation {@code tx} is as a
   * whole ({@link ColumnarSource#cached}), or null: the caller selects them and plans the query
   * ({@link #columnar}). {@code -Dgstm.state.cacheLookup=false} always plans (to compare).
   */
  static ColumnarSource cachedColumnar(Dataset<Row> tx, ApplyPlan plan) {
    if (!Boolean.parseBoolean(System.getProperty("gstm.state.cacheLookup", "true"))) {
      return null;
    }
    ColumnarSource c = ColumnarSource.cached(tx, plan.selectNames, plan.selectTypes);
    if (c != null) {
      COLUMNAR_ROUTES.incrementAndGet();
      CACHE_LOOKUPS.incrementAndGet();
    }
    return c;
  }

  /** Inputs found as a whole in Spark's cache ({@link #cachedColumnar}; for tests). */
  static final java.util.concurrent.atomic.AtomicLong CACHE_LOOKUPS =
      new java.util.concurrent.atomic.AtomicLong();

  /** Rows of a one-partition state's routed chunk, read row by row, before another begins. */
  static final int SEGMENT = 1 << 18;
  /** Routed chunks set aside whole at {@link #SEGMENT} rows (for tests). */
  static final java.util.concurrent.atomic.AtomicLong SEGMENTS =
      new java.util.concurrent.atomic.AtomicLong();
}
