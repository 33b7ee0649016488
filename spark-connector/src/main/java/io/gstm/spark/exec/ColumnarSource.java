package io.gstm.spark.exec;

import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.execution.ColumnarToRowExec;
import org.apache.spark.sql.execution.InputAdapter;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.WholeStageCodegenExec;
import org.apache.spark.sql.execution.columnar.InMemoryRelation;
import org.apache.spark.sql.execution.columnar.InMemoryTableScanExec;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The column batches under a Dataset's rows: a Parquet scan or a cached relation yields batches
 * that Spark turns into rows one by one; reading the batches' columns in bulk skips a row
 * object per record (edges, points, transactions). A selection of plain columns above the scan
 * (a Parquet scan of a partitioned directory adds the partition column to every batch, which a
 * projection then drops) picks the batches' columns instead of turning them into rows.
 */
public final class ColumnarSource {
  private final SparkPlan plan;
  /** Per column of the Dataset, its place in the plan's batches; null: the same places. */
  private final int[] columns;
  private final Attribute[] output;

  private ColumnarSource(SparkPlan plan, int[] columns, Attribute[] output) {
    this.plan = plan;
    this.columns = columns;
    this.output = output;
  }

  /**
   * The column batches under {@code ds}'s rows, or null when its plan yields none (the caller
   * reads rows). The caller checks the columns' names and types.
   */
  public static ColumnarSource of(Dataset<?> ds) {
    SparkPlan plan;
    try {
      plan = ds.queryExecution().executedPlan();
    } catch (RuntimeException e) {
      return null;
    }
    plan = unwrap(plan);
    if (plan.supportsColumnar()) {
      return new ColumnarSource(plan, null, attributes(plan));
    }
    if (!(plan instanceof ProjectExec project)) {
      return null;
    }
    SparkPlan child = unwrap(project.child());
    if (!child.supportsColumnar()) {
      return null;
    }
    Attribute[] below = attributes(child);
    int k = project.projectList().size();
    int[] columns = new int[k];
    Attribute[] output = new Attribute[k];
    for (int i = 0; i < k; i++) {
      NamedExpression e = project.projectList().apply(i);
      if (!(e instanceof AttributeReference a)) {
        return null; // computed: rows
      }
      columns[i] = indexOf(below, a);
      if (columns[i] < 0) {
        return null;
      }
      output[i] = a;
    }
    return new ColumnarSource(child, columns, output);
  }

  /**
   * Columns {@code names} of {@code ds}, of types {@code types}, as the column batches of the
   * cached relation that {@code ds} is as a whole (a DataFrame the caller cached), found in
   * Spark's cache without planning a query: a selection's analysis and physical planning took
   * 10-20 ms, paid again by every epoch over a new cached input. Null when {@code ds} is not a
   * cached relation as a whole, a column is missing or of another type, or Spark would not
   * read the relation as batches; the caller then plans {@code ds.select(...)} ({@link #of}).
   */
  public static ColumnarSource cached(Dataset<?> ds, String[] names, DataType[] types) {
    if (!(ds instanceof org.apache.spark.sql.classic.Dataset<?> classic)) {
      return null;
    }
    scala.Option<org.apache.spark.sql.execution.CachedData> hit = classic.sparkSession()
        .sharedState().cacheManager().lookupCachedData(classic);
    if (hit.isEmpty()) {
      return null;
    }
    InMemoryRelation relation = hit.get().cachedRepresentation();
    // The cached plan has the same result as ds's: its output, column for column.
    org.apache.spark.sql.types.StructField[] fields = ds.schema().fields();
    if (relation.output().size() != fields.length) {
      return null;
    }
    Attribute[] picked = new Attribute[names.length];
    Attribute[] named = new Attribute[names.length];
    for (int i = 0; i < names.length; i++) {
      int at = -1;
      for (int j = 0; j < fields.length; j++) {
        if (fields[j].name().equals(names[i])) {
          at = at < 0 ? j : -2; // a name twice: left to Spark's resolution
        }
      }
      if (at < 0 || !fields[at].dataType().equals(types[i])
          || !relation.output().apply(at).dataType().equals(types[i])) {
        return null;
      }
      picked[i] = relation.output().apply(at);
      named[i] = picked[i].withName(names[i]);
    }
    InMemoryTableScanExec scan = new InMemoryTableScanExec(
        CollectionConverters.asScala(java.util.Arrays.asList(picked)).toList(),
        scala.collection.immutable.List$.MODULE$.empty(), relation);
    return scan.supportsColumnar() ? new ColumnarSource(scan, null, named) : null;
  }

  /** {@code ds}'s physical plan as text, for a log line (or why it has none). */
  public static String explain(Dataset<?> ds) {
    try {
      return ds.queryExecution().executedPlan().toString();
    } catch (RuntimeException e) {
      return "(no physical plan: " + e.getMessage() + ")";
    }
  }

  private static SparkPlan unwrap(SparkPlan plan) {
    while (true) {
      if (plan instanceof WholeStageCodegenExec x) {
        plan = x.child();
      } else if (plan instanceof ColumnarToRowExec x) {
        plan = x.child();
      } else if (plan instanceof InputAdapter x) {
        plan = x.child();
      } else {
        return plan;
      }
    }
  }

  private static Attribute[] attributes(SparkPlan plan) {
    Attribute[] a = new Attribute[plan.output().size()];
    for (int i = 0; i < a.length; i++) {
      a[i] = plan.output().apply(i);
    }
    return a;
  }

  /** The Dataset's columns. */
  public int width() {
    return output.length;
  }

  public String name(int column) {
    return output[column].name();
  }

  public DataType type(int column) {
    return output[column].dataType();
  }

  /**
   * The Dataset's columns as Spark's cached bytes ({@link CachedColumns}), partitioned as
   * {@link #batches}; null unless the plan is a plain scan of a relation that Spark's default
   * serializer cached (and {@code gstm.cachedBytes} is not false).
   */
  public CachedColumns cachedColumns() {
    // -Dgstm.cachedBytes=false keeps Spark's own decoding of cached relations (to compare).
    if (!(plan instanceof InMemoryTableScanExec scan)
        || !Boolean.parseBoolean(System.getProperty("gstm.cachedBytes", "true"))) {
      return null;
    }
    Attribute[] cached = new Attribute[scan.relation().output().size()];
    for (int j = 0; j < cached.length; j++) {
      cached[j] = scan.relation().output().apply(j);
    }
    int[] buffer = new int[output.length];
    DataType[] types = new DataType[output.length];
    for (int i = 0; i < output.length; i++) {
      Attribute a = scan.output().apply(columns == null ? i : columns[i]);
      buffer[i] = indexOf(cached, a);
      if (buffer[i] < 0) {
        return null;
      }
      types[i] = a.dataType();
    }
    return CachedColumns.of(scan, buffer, types);
  }

  /**
   * The batches, their columns those of the Dataset in its order: a cached relation's decoded
   * here from its cached bytes where {@link CachedColumns} can ({@link CachedColumns#batches}),
   * else as Spark's plan decodes them. A batch is valid until the iterator's next one (a scan
   * refills its vectors).
   */
  public JavaRDD<ColumnarBatch> batches() {
    JavaRDD<ColumnarBatch> spark = sparkBatches();
    CachedColumns cached = cachedColumns();
    return cached != null && cached.decodesBatches() ? cached.batches(spark) : spark;
  }

  /** The batches as Spark's plan decodes them, the Dataset's columns in its order. */
  public JavaRDD<ColumnarBatch> sparkBatches() {
    JavaRDD<ColumnarBatch> all = plan.executeColumnar().toJavaRDD();
    if (columns == null) {
      return all;
    }
    int[] picked = columns;
    return JavaRDD.fromRDD(PlainRdds.map(all.rdd(), b -> {
      ColumnVector[] v = new ColumnVector[picked.length];
      for (int i = 0; i < v.length; i++) {
        v[i] = b.column(picked[i]);
      }
      return new ColumnarBatch(v, b.numRows());
    }, ColumnarBatch.class), PlainRdds.tag(ColumnarBatch.class));
  }

  /** The last of {@code among} that is {@code a} (the same expression id); -1 when none is. */
  private static int indexOf(Attribute[] among, Attribute a) {
    int at = -1;
    for (int j = 0; j < among.length; j++) {
      if (among[j].exprId().equals(a.exprId())) {
        at = j;
      }
    }
    return at;
  }
}
