package io.gstm.spark.graph;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.graph.CsrGraph;
import io.gstm.core.graph.ProgramRelaxation;
import io.gstm.core.program.Program;
import io.gstm.core.program.StoreContents;
import io.gstm.core.program.ValueType;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.exec.ExecutorEngines;
import io.gstm.spark.exec.TaskEngine;
import io.gstm.spark.exec.TaskErrors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A relaxation written as a transaction program ({@link ProgramRelaxation}, docs/programs.md)
 * over an edges DataFrame and a vertices DataFrame that holds each vertex's values, one column
 * per region the program declares:
 *
 * <pre>{@code
 * Dataset<Row> widths = GraphRelaxation.of(edges).program(widestText)
 *     .setVertices(vertices)            // id, width
 *     .setActive(0)                     // the source
 *     .run();                           // id, width at the fixpoint
 * }</pre>
 *
 * <p>The whole graph is relaxed in one task, on its executor's engine (the GPU when the
 * executor has one): a program relaxation has no superstep exchange between partitions yet, so
 * it suits graphs one executor holds. Bad input is an IllegalArgumentException naming the
 * column, the program or the vertex: a region the vertices lack or hold in another type before
 * any job; a repeated vertex id, or an edge whose end is not a vertex, from the task.
 */
public final class GraphProgramRelaxation {
  private final Dataset<Row> edges;
  private final String srcCol;
  private final String dstCol;
  private final String weightCol;
  private final Program program;
  /** The program as written: what the task parses again (a Program is not serializable). */
  private final String programText;
  private Dataset<Row> vertices;
  private String idCol = "id";
  private long[] active;
  private int maxRounds = 100_000;
  private String orderCol;
  private boolean descending;
  private double bucketWidth = Double.NaN;

  GraphProgramRelaxation(Dataset<Row> edges, String srcCol, String dstCol, String weightCol,
      String programText) {
    List<Program> programs = Program.parse(programText);
    if (programs.size() != 1) {
      throw new IllegalArgumentException("program: one relaxation program, got "
          + programs.size());
    }
    this.edges = edges;
    this.srcCol = srcCol;
    this.dstCol = dstCol;
    this.weightCol = weightCol;
    this.program = programs.get(0);
    this.programText = programText;
  }

  /** The vertices and their starting values: column {@code id}, one column per region. */
  public GraphProgramRelaxation setVertices(Dataset<Row> value) {
    this.vertices = value;
    return this;
  }

  /** The vertices' id column (default "id"). */
  public GraphProgramRelaxation setIdCol(String value) {
    this.idCol = value;
    return this;
  }

  /** The vertices of the first round (default: every vertex). */
  public GraphProgramRelaxation setActive(long... ids) {
    this.active = ids.clone();
    return this;
  }

  /**
   * Takes the vertices lowest value of {@code column} first (a distance, a hop count), in
   * near-far buckets ({@link ProgramRelaxation.Order}): on a graph of high diameter, such as a
   * road network, far less work than taking them as they come (the default). The same values.
   */
  public GraphProgramRelaxation setOrder(String column) {
    return order(column, false);
  }

  /** As {@link #setOrder}, highest value first (a width, a capacity). */
  public GraphProgramRelaxation setOrderDescending(String column) {
    return order(column, true);
  }

  private GraphProgramRelaxation order(String column, boolean descendingOrder) {
    if (program.regions().stream().noneMatch(r -> r.name().equals(column))) {
      throw new IllegalArgumentException("order: column '" + column + "' is not a region of "
          + "program '" + program.name() + "': " + program.regions().stream()
          .map(Program.RegionDecl::name).toList());
    }
    this.orderCol = column;
    this.descending = descendingOrder;
    return this;
  }

  /**
   * The width of the order's buckets, in the column's values (default: {@value
   * ProgramRelaxation.Order#AUTO_WIDTH} mean edge weights).
   */
  public GraphProgramRelaxation setBucketWidth(double value) {
    if (!(value > 0)) {
      throw new IllegalArgumentException("bucketWidth must be positive, got " + value);
    }
    this.bucketWidth = value;
    return this;
  }

  /** The most rounds before the run fails (default 100,000). */
  public GraphProgramRelaxation setMaxRounds(int value) {
    if (value < 1) {
      throw new IllegalArgumentException("maxRounds must be at least 1, got " + value);
    }
    this.maxRounds = value;
    return this;
  }

  /** Relaxes to the fixpoint; returns the vertices' values (the id column, then each region). */
  public Dataset<Row> run() {
    if (vertices == null) {
      throw new IllegalArgumentException("vertices: give the vertices and their values with "
          + "setVertices(...)");
    }
    List<String> columns = Arrays.asList(vertices.columns());
    if (!columns.contains(idCol)) {
      throw new IllegalArgumentException("column '" + idCol + "' (vertex id) not found; "
          + "columns: " + columns);
    }
    List<String> names = new ArrayList<>();
    List<ValueType> types = new ArrayList<>();
    StructType out = new StructType().add(idCol, DataTypes.LongType, false);
    for (Program.RegionDecl r : program.regions()) {
      if (!columns.contains(r.name())) {
        throw new IllegalArgumentException("program '" + program.name() + "' uses region '"
            + r.name() + "', which is not a column of the vertices; columns: " + columns);
      }
      DataType t = vertices.schema().apply(r.name()).dataType();
      DataType want = sparkType(r.type());
      if (!t.equals(want)) {
        throw new IllegalArgumentException("column '" + r.name() + "' holds " + t.simpleString()
            + " but program '" + program.name() + "' declares region '" + r.name() + "' as "
            + r.type() + " (" + want.simpleString() + ")");
      }
      names.add(r.name());
      types.add(r.type());
      out = out.add(r.name(), want, false);
    }
    boolean weighted = program.params().stream().anyMatch(p -> p.name().equals("weight"));
    org.apache.spark.sql.Column w = weighted && Arrays.asList(edges.columns()).contains(weightCol)
        ? col(weightCol).cast(DataTypes.DoubleType) : lit(1.0);
    JavaRDD<Row> e = edges.select(col(srcCol).cast(DataTypes.LongType),
        col(dstCol).cast(DataTypes.LongType), w).toJavaRDD().coalesce(1);
    org.apache.spark.sql.Column[] sel = new org.apache.spark.sql.Column[1 + names.size()];
    sel[0] = col(idCol).cast(DataTypes.LongType);
    for (int i = 0; i < names.size(); i++) {
      sel[1 + i] = col(names.get(i));
    }
    JavaRDD<Row> v = vertices.select(sel).toJavaRDD().coalesce(1);
    // An input of no partitions (an empty one) stays empty under coalesce: one, to zip.
    e = e.getNumPartitions() == 1 ? e : e.repartition(1);
    v = v.getNumPartitions() == 1 ? v : v.repartition(1);
    SparkSession spark = vertices.sparkSession();
    GstmSettings settings = GstmConf.settings(spark.sparkContext().getConf());
    String text = programText;
    long[] first = active;
    int rounds = maxRounds;
    String by = orderCol;
    boolean down = descending;
    double width = bucketWidth;
    JavaRDD<Row> relaxed = v.zipPartitions(e, (vs, es) -> relax(vs, es,
        Program.parse(text).get(0), names, types, first, ProgramRelaxation.Settings.defaults()
            .withOrder(by == null ? null : new ProgramRelaxation.Order(by, down, width))
            .withMaxRounds(rounds), settings));
    try {
      // Relaxed once, now (its errors here, named), and kept where it ran.
      return spark.createDataFrame(relaxed, out).localCheckpoint(true);
    } catch (Exception ex) {
      throw TaskErrors.badInput(ex);
    }
  }

  private static Iterator<Row> relax(Iterator<Row> vs, Iterator<Row> es, Program program,
      List<String> names, List<ValueType> types, long[] active,
      ProgramRelaxation.Settings relaxation, GstmSettings settings) {
    List<Row> vrows = new ArrayList<>();
    vs.forEachRemaining(vrows::add);
    int n = vrows.size();
    long[] ids = new long[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      ids[i] = vrows.get(i).getLong(0);
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(ids[a], ids[b]));
    long[] sorted = new long[n];
    long[][] values = new long[names.size()][Math.max(1, n)];
    for (int i = 0; i < n; i++) {
      Row r = vrows.get(order[i]);
      sorted[i] = r.getLong(0);
      if (i > 0 && sorted[i] == sorted[i - 1]) {
        throw new IllegalArgumentException("vertices: id " + sorted[i] + " appears more than "
            + "once");
      }
      for (int c = 0; c < names.size(); c++) {
        if (r.isNullAt(1 + c)) {
          throw new IllegalArgumentException("column '" + names.get(c) + "': null value for "
              + "vertex " + sorted[i]);
        }
        values[c][i] = types.get(c).bits((Number) r.get(1 + c));
      }
    }
    int m = 0;
    int[] src = new int[1024];
    int[] dst = new int[1024];
    double[] w = new double[1024];
    while (es.hasNext()) {
      Row r = es.next();
      if (m == src.length) {
        src = Arrays.copyOf(src, 2 * m);
        dst = Arrays.copyOf(dst, 2 * m);
        w = Arrays.copyOf(w, 2 * m);
      }
      src[m] = vertex(sorted, r, 0);
      dst[m] = vertex(sorted, r, 1);
      if (r.isNullAt(2)) {
        throw new IllegalArgumentException("edges: edge " + r.getLong(0) + " -> " + r.getLong(1)
            + " has a null weight");
      }
      w[m++] = r.getDouble(2);
    }
    src = Arrays.copyOf(src, m);
    dst = Arrays.copyOf(dst, m);
    w = Arrays.copyOf(w, m);
    CsrGraph graph = CsrGraph.fromEdges(n, src, dst, w);
    int[] first;
    if (active == null) {
      first = new int[n];
      for (int i = 0; i < n; i++) {
        first[i] = i;
      }
    } else {
      first = new int[active.length];
      for (int i = 0; i < active.length; i++) {
        first[i] = Arrays.binarySearch(sorted, active[i]);
        if (first[i] < 0) {
          throw new IllegalArgumentException("active: vertex " + active[i] + " is not among "
              + "the vertices");
        }
      }
    }
    // One lock a vertex for all its columns: a relaxation reads its source's row and writes its
    // target's, and takes one lock for the row instead of one for each word it writes.
    List<RegionSpec> specs = new ArrayList<>();
    for (int c = 0; c < names.size(); c++) {
      RegionSpec spec = new RegionSpec(names.get(c), types.get(c).regionType(), Math.max(1, n), 1);
      specs.add(c == 0 ? spec : spec.withLocksOf(names.get(0)));
    }
    long[][] after;
    try (TaskEngine lease = ExecutorEngines.acquire(settings);
        TxStore store = lease.engine().createStore(new StoreLayout(specs))) {
      StoreContents.write(store, values);
      ProgramRelaxation.relax(lease.engine(), store, graph, program, first,
          relaxation.withOptions(RunOptions.defaults()
              .withMaxRetries(settings.transactions().retryLimit())));
      after = StoreContents.read(store);
    }
    List<Row> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Object[] row = new Object[1 + names.size()];
      row[0] = sorted[i];
      for (int c = 0; c < names.size(); c++) {
        row[1 + c] = types.get(c).box(after[c][i]);
      }
      out.add(RowFactory.create(row));
    }
    return out.iterator();
  }

  /** The dense index of edge end {@code field} of {@code r}, named in the error if absent. */
  private static int vertex(long[] sorted, Row r, int field) {
    if (r.isNullAt(field)) {
      throw new IllegalArgumentException("edges: a null " + (field == 0 ? "source" : "target"));
    }
    long id = r.getLong(field);
    int i = Arrays.binarySearch(sorted, id);
    if (i < 0) {
      throw new IllegalArgumentException("edges: edge " + r.getLong(0) + " -> " + r.getLong(1)
          + " names vertex " + id + ", which is not among the vertices");
    }
    return i;
  }

  private static DataType sparkType(ValueType t) {
    return t == ValueType.INT32 ? DataTypes.IntegerType : t == ValueType.INT64
        ? DataTypes.LongType : t == ValueType.FLOAT32 ? DataTypes.FloatType : DataTypes.DoubleType;
  }
}
